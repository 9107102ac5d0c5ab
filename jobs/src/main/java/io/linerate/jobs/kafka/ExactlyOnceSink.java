package io.linerate.jobs.kafka;

import static io.linerate.jobs.kafka.ExactlyOnceSource.requireText;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchemaBuilder;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the transactional Kafka sink of a linerate job: {@link DeliveryGuarantee#EXACTLY_ONCE}.
 *
 * <p>Each sink subtask writes the records between two checkpoints in one Kafka transaction and commits it when
 * the checkpoint completes (two-phase commit driven by Flink's checkpoints). A {@code read_committed} consumer
 * therefore sees every output record exactly once, also across failures and restarts, but only after the
 * checkpoint that follows it: the output latency is about one checkpoint interval.
 *
 * <p>The settings it fixes or checks, and why:
 * <ul>
 *   <li>{@code transactional.id} prefix: derived from the job name and the topic,
 *       {@code linerate-<jobName>-<topic>}, stable across restarts (Flink finds and aborts the transactions a
 *       crashed run left open by these ids) and distinct between jobs (two sinks with one prefix fence each other).
 *   <li>{@code transaction.timeout.ms}: default {@link #DEFAULT_TRANSACTION_TIMEOUT} (10 min). It must not exceed
 *       the broker's {@code transaction.max.timeout.ms} (15 min unless the cluster changed it), or the producer
 *       fails at its first transaction; Flink's own default (1 h) exceeds it. It must exceed the checkpoint
 *       interval, and should exceed it by the longest checkpoint plus the longest restart: a transaction the broker
 *       aborted on timeout before Flink committed it is data lost.
 *   <li>{@code batch.size} {@value #DEFAULT_BATCH_BYTES} and {@code linger.ms} 20 unless set: records are visible
 *       only at the checkpoint's commit anyway, so larger batches cost no visible latency and save a request per
 *       16 KiB of output (measured by the integration tests' attack run, where every packet makes a flow record).
 *   <li>Checkpointing must be on, in exactly-once mode ({@link Builder#sinkTo} checks): without checkpoints no
 *       transaction commits before the end of a bounded input, and an unbounded job never outputs anything.
 * </ul>
 *
 * <p>Configuration errors fail in {@link Builder#build()} / {@link Builder#sinkTo} with a message naming the option.
 */
public final class ExactlyOnceSink {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceSink.class);

  /** The transaction timeout unless set: below the broker's default maximum, far above usual checkpoint intervals. */
  public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(10);

  /** Kafka's default {@code transaction.max.timeout.ms} (15 min), the upper limit unless told otherwise. */
  public static final Duration DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

  /** {@code batch.size} unless set: 256 KiB (Kafka's default is 16 KiB). */
  public static final int DEFAULT_BATCH_BYTES = 256 * 1024;

  /** {@code linger.ms} unless set: 20 ms (Kafka's default is 5 ms), far below any checkpoint interval. */
  public static final Duration DEFAULT_LINGER = Duration.ofMillis(20);

  /**
   * Bytes a record without key or headers takes beyond its value in the producer's {@code max.request.size} check
   * (Kafka's upper bound for a batch of that one record, with the value's length at its longest varint): a value of
   * up to {@code max.request.size − RECORD_OVERHEAD} bytes is sent, a longer one fails the sink
   * ({@code RecordTooLargeException}) and so the job.
   */
  public static final int RECORD_OVERHEAD = ProducerLimits.RECORD_OVERHEAD;

  private ExactlyOnceSink() {}

  /**
   * A builder writing each element's {@code valueSerializer} bytes as the value of one record of {@link
   * Builder#topic(String)} (no key unless {@link Builder#keySerializer} is set).
   */
  public static <T> Builder<T> builder(SerializationSchema<T> valueSerializer) {
    return new Builder<>(Objects.requireNonNull(valueSerializer, "valueSerializer"), null);
  }

  /** A builder where {@code serializer} makes whole Kafka records (topic, key, value, headers) itself. */
  public static <T> Builder<T> builder(KafkaRecordSerializationSchema<T> serializer) {
    return new Builder<>(null, Objects.requireNonNull(serializer, "serializer"));
  }

  /** Options of the sink; {@code bootstrapServers}, {@code jobName} and (with a value serializer) {@code topic} are required. */
  public static final class Builder<T> {
    private static final Set<String> OWNED = Set.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        // Flink's KafkaSink serializes records itself and hands the producer bytes
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    private final SerializationSchema<T> valueSerializer;
    private final KafkaRecordSerializationSchema<T> recordSerializer;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private SerializationSchema<T> keySerializer;
    private String bootstrapServers;
    private String topic;
    private String jobName;
    private String transactionalIdPrefix;
    private Duration transactionTimeout = DEFAULT_TRANSACTION_TIMEOUT;
    private Duration brokerMaxTransactionTimeout = DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT;
    private String uid;

    private Builder(SerializationSchema<T> valueSerializer, KafkaRecordSerializationSchema<T> recordSerializer) {
      this.valueSerializer = valueSerializer;
      this.recordSerializer = recordSerializer;
    }

    /** The brokers, {@code host:port[,host:port…]}. Required. */
    public Builder<T> bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /** The topic written. Required with a value serializer; with a record serializer it names the sink only. */
    public Builder<T> topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** Serializes each element's key (with a value serializer only); default: records without key. */
    public Builder<T> keySerializer(SerializationSchema<T> keySerializer) {
      this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
      return this;
    }

    /** The job's name, the first part of the transactional id prefix. Required unless the prefix is set. */
    public Builder<T> jobName(String jobName) {
      this.jobName = jobName;
      return this;
    }

    /**
     * The transactional id prefix; default {@code linerate-<jobName>-<topic>} (characters other than letters,
     * digits, {@code . _ -} become {@code -}). Must be unique among the sinks writing to one Kafka cluster and
     * unchanged across restarts of the job.
     */
    public Builder<T> transactionalIdPrefix(String transactionalIdPrefix) {
      this.transactionalIdPrefix = transactionalIdPrefix;
      return this;
    }

    /**
     * {@code transaction.timeout.ms}; default {@link #DEFAULT_TRANSACTION_TIMEOUT}. Must be positive, at most
     * {@link #brokerMaxTransactionTimeout}, and longer than the checkpoint interval (checked by {@link #sinkTo}).
     */
    public Builder<T> transactionTimeout(Duration transactionTimeout) {
      this.transactionTimeout = Objects.requireNonNull(transactionTimeout, "transactionTimeout");
      return this;
    }

    /** The cluster's {@code transaction.max.timeout.ms}, if changed from Kafka's default of 15 min. */
    public Builder<T> brokerMaxTransactionTimeout(Duration brokerMaxTransactionTimeout) {
      this.brokerMaxTransactionTimeout = Objects.requireNonNull(brokerMaxTransactionTimeout, "brokerMaxTransactionTimeout");
      return this;
    }

    /** The operator uid of the sink in {@link #sinkTo}; default {@code kafka-sink-<topic>}. */
    public Builder<T> uid(String uid) {
      this.uid = uid;
      return this;
    }

    /**
     * Any other Kafka producer property ({@code compression.type}, {@code linger.ms}, security settings…).
     * {@code bootstrap.servers}, {@code transactional.id} and {@code transaction.timeout.ms} have their own options;
     * {@code enable.idempotence} stays on (transactions need it). A value Kafka's producer would refuse when the
     * sink's task creates it (a property Kafka knows with a value it cannot parse or that is out of range; {@code
     * acks} other than {@code all}, {@code retries} 0 or more than 5 {@code max.in.flight.requests.per.connection},
     * which a transactional producer refuses) is refused here, naming the property; a {@code delivery.timeout.ms}
     * below {@code linger.ms} + {@code request.timeout.ms}, which the producer refuses too, by {@link #build}.
     *
     * <p>A value may be a config-provider placeholder ({@code ${env:KAFKA_LINGER}}, {@code ${file:/path:key}}) when
     * {@code config.providers} names its provider: {@link #build} resolves it as Kafka's producer will and checks the
     * value it resolves to, or, if it cannot be resolved where the job is built, logs a warning that it is not
     * checked. The producer is given the placeholder, and resolves it itself.
     */
    public Builder<T> property(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (OWNED.contains(key)) {
        throw new IllegalArgumentException(key + " is set by the exactly-once sink itself"
            + (key.equals(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG) ? " (use transactionTimeout(..))" : "")
            + (key.equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG) ? " (use transactionalIdPrefix(..))" : "")
            + (key.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) ? " (use bootstrapServers(..))" : "")
            + ", got " + value);
      }
      if (!ConfigProviders.hasPlaceholder(value)) {
        checkProducerValue(key, value); // a placeholder: by build(), once config.providers can resolve it
      }
      properties.put(key, value);
      return this;
    }

    /**
     * The producers' {@code max.request.size}: as set by {@link #property}, else Kafka's default (1 MiB).
     *
     * @throws IllegalArgumentException if it is a config-provider placeholder that cannot be resolved here
     *     ({@link #sizeSetting})
     */
    public int maxRequestSize() {
      return ((Number) sizeSetting(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)).intValue();
    }

    /**
     * The producers' {@code buffer.memory}: as set by {@link #property}, else Kafka's default (32 MiB).
     *
     * @throws IllegalArgumentException if it is a config-provider placeholder that cannot be resolved here
     *     ({@link #sizeSetting})
     */
    public long bufferMemory() {
      return ((Number) sizeSetting(ProducerConfig.BUFFER_MEMORY_CONFIG)).longValue();
    }

    /**
     * The longest record value the sink can send: the smaller of {@link #maxRequestSize()} and {@link
     * #bufferMemory()} (the producer refuses a record larger than either) less {@link #RECORD_OVERHEAD}.
     *
     * @throws IllegalArgumentException if either is a config-provider placeholder that cannot be resolved here
     */
    public int maxValueBytes() {
      return ProducerLimits.maxValueBytes(properties, WHERE, WHY);
    }

    /**
     * A delivery.timeout.ms set below linger.ms + request.timeout.ms is refused: Kafka's producer refuses it (when
     * set explicitly) as each of the sink's tasks creates one, at run time; linger.ms is the sink's own default
     * ({@link #DEFAULT_LINGER}) unless set.
     */
    private void checkDeliveryTimeout(ConfigProviders.Resolved resolved) {
      if (!properties.containsKey(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
        return; // Kafka raises its default to linger.ms + request.timeout.ms itself
      }
      for (String key : List.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ProducerConfig.LINGER_MS_CONFIG,
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)) {
        if (!resolved.known(key)) {
          LOG.warn("delivery.timeout.ms is not checked against linger.ms + request.timeout.ms before the job runs: "
              + "{} ({}) cannot be resolved here", key, properties.get(key));
          return;
        }
      }
      long delivery = ((Number) effective(resolved, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).longValue();
      long linger = properties.containsKey(ProducerConfig.LINGER_MS_CONFIG)
          ? ((Number) effective(resolved, ProducerConfig.LINGER_MS_CONFIG)).longValue() : DEFAULT_LINGER.toMillis();
      long request = ((Number) effective(resolved, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)).longValue();
      // as KafkaProducer: linger.ms capped at an int, the sum too
      long least = Math.min(Math.min(linger, Integer.MAX_VALUE) + request, Integer.MAX_VALUE);
      if (delivery < least) {
        throw new IllegalArgumentException("delivery.timeout.ms must be at least linger.ms + request.timeout.ms ("
            + linger + " + " + request + " = " + least + " ms" + (properties.containsKey(ProducerConfig.LINGER_MS_CONFIG)
                ? "" : ", linger.ms being the sink's default") + "): Kafka's producer refuses less, got " + delivery);
      }
    }

    private static final String WHERE = "where the job is built";
    private static final String WHY = ": the largest record its Kafka sinks can write decides which records become "
        + "dead letters";

    /** {@link ProducerLimits#sizeSetting}, its refusal saying the job needs the value where it is built. */
    private Object sizeSetting(String key) {
      return ProducerLimits.sizeSetting(properties, ConfigProviders.resolve(properties), key, WHERE, WHY);
    }

    /**
     * The value the producer will take for {@code key}: as set (its placeholders resolved), else Kafka's default.
     *
     * @throws IllegalStateException if it is a placeholder that cannot be resolved here (the callers check first)
     */
    private Object effective(ConfigProviders.Resolved resolved, String key) {
      if (!resolved.known(key)) {
        throw new IllegalStateException(key + " (" + properties.get(key) + ") is not known where the job is built: "
            + resolved.unresolved().get(key));
      }
      return ProducerLimits.effective(resolved, key);
    }

    /** The sink; fails with a message naming the option if one is missing or out of range. */
    public KafkaSink<T> build() {
      requireText(bootstrapServers, "bootstrapServers");
      if (valueSerializer != null) {
        ExactlyOnceSource.requireTopic(topic, "topic");
      } else {
        if (topic != null) {
          requireText(topic, "topic");
        }
        if (keySerializer != null) {
          throw new IllegalArgumentException("keySerializer is for a sink built with a value serializer; the record "
              + "serializer given to builder(..) makes the whole record, key included");
        }
      }
      String prefix = transactionalIdPrefix();
      if (transactionTimeout.isZero() || transactionTimeout.isNegative()) {
        throw new IllegalArgumentException("transactionTimeout must be > 0, got " + transactionTimeout);
      }
      if (transactionTimeout.compareTo(brokerMaxTransactionTimeout) > 0) {
        throw new IllegalArgumentException("transactionTimeout must be <= the broker's transaction.max.timeout.ms ("
            + brokerMaxTransactionTimeout + "), got " + transactionTimeout);
      }
      ConfigProviders.Resolved resolved = ConfigProviders.resolve(properties);
      ConfigProviders.checkResolved(properties, resolved, ExactlyOnceSink::checkProducerValue, "producer", LOG);
      checkDeliveryTimeout(resolved);
      KafkaSinkBuilder<T> builder = KafkaSink.<T>builder()
          .setBootstrapServers(bootstrapServers)
          .setRecordSerializer(recordSerializer != null ? recordSerializer : valueRecords())
          .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
          .setTransactionalIdPrefix(prefix);
      // Output becomes visible only when the checkpoint commits its transaction, so lingering to fill larger
      // batches delays nothing a read_committed reader can see; it saves a request (and the broker's work) per
      // 16 KiB of small JSON records. Set by property(..) to override.
      builder.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(DEFAULT_BATCH_BYTES));
      builder.setProperty(ProducerConfig.LINGER_MS_CONFIG, Long.toString(DEFAULT_LINGER.toMillis()));
      properties.forEach(builder::setProperty);
      builder.setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeout.toMillis()));
      return builder.build();
    }

    /**
     * Adds the sink after {@code stream}, after checking the job's checkpointing: on, in exactly-once mode, with
     * an interval shorter than the transaction timeout.
     */
    public DataStreamSink<T> sinkTo(DataStream<T> stream) {
      Objects.requireNonNull(stream, "stream");
      checkCheckpointing(stream.getExecutionEnvironment().getCheckpointConfig(), transactionTimeout);
      KafkaSink<T> sink = build();
      DataStreamSink<T> out = stream.sinkTo(sink).name("Kafka " + sinkName());
      out.uid(uid != null ? uid : "kafka-sink-" + sinkName());
      return out;
    }

    String transactionalIdPrefix() {
      if (transactionalIdPrefix != null) {
        return requireText(transactionalIdPrefix, "transactionalIdPrefix");
      }
      if (jobName == null || jobName.isBlank()) {
        throw new IllegalArgumentException("jobName must be set (it names the transactional id prefix), got "
            + (jobName == null ? "nothing" : "'" + jobName + "'"));
      }
      return sanitize("linerate-" + jobName + "-" + sinkName());
    }

    private String sinkName() {
      return topic != null ? topic : "records";
    }

    private KafkaRecordSerializationSchema<T> valueRecords() {
      KafkaRecordSerializationSchemaBuilder<T> records = KafkaRecordSerializationSchema.<T>builder()
          .setTopic(topic)
          .setValueSerializationSchema(valueSerializer);
      if (keySerializer != null) {
        records = records.setKeySerializationSchema(keySerializer);
      }
      return records.build();
    }
  }

  /** The shortest checkpoint timeout {@link #checkpointTimeoutFor} may leave. */
  public static final Duration MIN_CHECKPOINT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The shortest transaction timeout that leaves a checkpoint {@link #MIN_CHECKPOINT_TIMEOUT} (two checkpoints of
   * that length and the margin of {@link #checkpointTimeoutFor} fit in it).
   */
  public static final Duration MIN_TRANSACTION_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The longest a checkpoint may take so that no transaction outlives {@code transactionTimeout}, with checkpoints
   * every {@code interval} and no minimum pause between them: {@link #checkpointTimeoutFor(Duration, Duration,
   * Duration)}.
   */
  public static Duration checkpointTimeoutFor(Duration interval, Duration transactionTimeout) {
    return checkpointTimeoutFor(interval, Duration.ZERO, transactionTimeout);
  }

  /**
   * {@link #checkpointTimeoutFor(Duration, Duration, int, Duration)} with no failed checkpoint tolerated (Flink's
   * default, and the jobs' setting).
   */
  public static Duration checkpointTimeoutFor(Duration interval, Duration minPause, Duration transactionTimeout) {
    return checkpointTimeoutFor(interval, minPause, 0, transactionTimeout);
  }

  /**
   * The longest a checkpoint may take so that no transaction outlives {@code transactionTimeout}. A transaction
   * opens when the barrier of checkpoint n passes the sink and commits when a later checkpoint completes: n+1, or,
   * when up to {@code tolerableFailures} checkpoints in a row fail without failing the job
   * ({@code execution.checkpointing.tolerable-failed-checkpoints}), the first of the following ones that completes.
   * Each checkpoint starts {@code interval} after the one before started, but not before that one has ended (one
   * checkpoint at a time) plus {@code minPause}. So with f = {@code tolerableFailures} a transaction lives up to
   * (f + 1)·max(interval, timeout + minPause) + timeout. What the transaction timeout leaves after a margin (a tenth
   * of it, at least 10 s, for the commit's own latency and the broker's clock) must hold that: the budget is the
   * smaller of (life − (f + 1)·interval) and (life − (f + 1)·minPause) / (f + 2), life = transaction timeout − margin
   * (f = 0: the smaller of life − interval and (life − minPause) / 2).
   */
  public static Duration checkpointTimeoutFor(Duration interval, Duration minPause, int tolerableFailures,
      Duration transactionTimeout) {
    if (tolerableFailures < 0) {
      throw new IllegalArgumentException("tolerableFailures must be ≥ 0, got " + tolerableFailures);
    }
    Duration margin = transactionTimeout.dividedBy(10);
    if (margin.compareTo(Duration.ofSeconds(10)) < 0) {
      margin = Duration.ofSeconds(10);
    }
    long spans = tolerableFailures + 1L;
    Duration life = transactionTimeout.minus(margin);
    Duration onTime = life.minus(interval.multipliedBy(spans));
    Duration afterSlowOnes = life.minus(minPause.multipliedBy(spans)).dividedBy(spans + 1);
    return onTime.compareTo(afterSlowOnes) < 0 ? onTime : afterSlowOnes;
  }

  /**
   * Checks that the job's checkpointing suits a transactional sink: on, exactly-once, and an interval and min pause
   * that leave a checkpoint at least {@link #MIN_CHECKPOINT_TIMEOUT} ({@link #checkpointTimeoutFor}); lowers the checkpoint
   * timeout to {@link #checkpointTimeoutFor} when it is longer (Flink's default is 10 minutes, as long as the
   * default transaction timeout), logged: a checkpoint that completed later would commit transactions the broker
   * had already aborted, and their records would be lost.
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public static void checkCheckpointing(CheckpointConfig checkpoints, Duration transactionTimeout) {
    if (transactionTimeout.isZero() || transactionTimeout.isNegative()) {
      throw new IllegalArgumentException("transactionTimeout must be > 0, got " + transactionTimeout);
    }
    if (!checkpoints.isCheckpointingEnabled()) {
      throw new IllegalArgumentException("execution.checkpointing.interval must be set: the exactly-once Kafka sink "
          + "commits its transactions on checkpoints (env.enableCheckpointing(..))");
    }
    if (checkpoints.getCheckpointingConsistencyMode() != CheckpointingMode.EXACTLY_ONCE) {
      throw new IllegalArgumentException("execution.checkpointing.mode must be EXACTLY_ONCE for the exactly-once "
          + "Kafka sink, got " + checkpoints.getCheckpointingConsistencyMode());
    }
    Duration interval = Duration.ofMillis(checkpoints.getCheckpointInterval());
    if (interval.compareTo(transactionTimeout) >= 0) {
      throw new IllegalArgumentException("execution.checkpointing.interval (" + interval + ") must be shorter than "
          + "the sink's transactionTimeout (" + transactionTimeout + "), or transactions time out before they commit");
    }
    Duration minPause = Duration.ofMillis(checkpoints.getMinPauseBetweenCheckpoints());
    int tolerable = Math.max(0, checkpoints.getTolerableCheckpointFailureNumber()); // negative: unset, none
    if (tolerable > 0 && checkpointTimeoutFor(Duration.ZERO, minPause, tolerable, transactionTimeout)
        .compareTo(MIN_CHECKPOINT_TIMEOUT) < 0) {
      throw new IllegalArgumentException("execution.checkpointing.tolerable-failed-checkpoints (" + tolerable
          + ") is too many for the sink's transactionTimeout (" + transactionTimeout + "): a transaction lives until a "
          + "checkpoint completes, through every failed one before it, and " + (tolerable + 2) + " checkpoints of at "
          + "least " + MIN_CHECKPOINT_TIMEOUT + " and the margin do not fit in it (tolerate fewer failures, or raise "
          + "the transaction timeout)");
    }
    Duration budget = checkpointTimeoutFor(interval, minPause, tolerable, transactionTimeout);
    if (checkpointTimeoutFor(Duration.ZERO, minPause, transactionTimeout).compareTo(MIN_CHECKPOINT_TIMEOUT) < 0) {
      throw new IllegalArgumentException("the sink's transactionTimeout (" + transactionTimeout + ") must be at least "
          + MIN_TRANSACTION_TIMEOUT + (minPause.isZero() ? "" : " plus the checkpoints' min pause (" + minPause + ")")
          + ": a transaction can live through two checkpoints (the next one waits for a slow one), and each needs "
          + "at least " + MIN_CHECKPOINT_TIMEOUT + " to complete");
    }
    if (budget.compareTo(MIN_CHECKPOINT_TIMEOUT) < 0) {
      throw new IllegalArgumentException("execution.checkpointing.interval (" + interval + ") must be shorter than "
          + "the sink's transactionTimeout (" + transactionTimeout + ") by at least " + MIN_CHECKPOINT_TIMEOUT
          + " plus a margin of a tenth of the timeout (at least 10 s)"
          + (tolerable > 0 ? ", once for each of the " + (tolerable + 1) + " checkpoints a transaction can span with "
              + "execution.checkpointing.tolerable-failed-checkpoints " + tolerable : "")
          + ": a transaction lives from one checkpoint to the completion of the next, and a checkpoint needs time to "
          + "complete");
    }
    Duration timeout = Duration.ofMillis(checkpoints.getCheckpointTimeout());
    if (timeout.compareTo(budget) > 0) {
      checkpoints.setCheckpointTimeout(budget.toMillis());
      LOG.info("execution.checkpointing.timeout lowered from {} to {}: with checkpoints every {}, a checkpoint that"
          + " completes later would commit Kafka transactions older than their timeout ({})", timeout, budget,
          interval, transactionTimeout);
    }
  }

  /**
   * Refuses a producer property value Kafka's producer would refuse when the sink's task creates it: one that does
   * not parse or is out of range (for the properties Kafka knows; class names are left to the task's class loader),
   * and the settings a transactional (idempotent) producer cannot run with.
   */
  static void checkProducerValue(String key, String value) {
    ProducerLimits.checkProducerValue(key, value,
        "for the exactly-once sink (its producer is transactional, so idempotent)");
  }


  static String sanitize(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "-");
  }
}
