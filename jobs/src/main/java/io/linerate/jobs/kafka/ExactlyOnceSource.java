package io.linerate.jobs.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Kafka source of a linerate job for exactly-once processing.
 *
 * <p>What it fixes: the consumer reads with {@code isolation.level=read_committed} (records of open or aborted
 * transactions of an upstream exactly-once writer are never read); the read position of every partition is part of
 * Flink's checkpoints (the {@link KafkaSource} keeps it in its split state), so after a failure the job resumes from
 * the offsets of its last completed checkpoint, consistent with its operator state; offsets are also committed to
 * the consumer group on each completed checkpoint, for lag monitoring only. A fresh start (no checkpoint or
 * savepoint) reads from {@link StartingOffsets#EARLIEST} unless told otherwise.
 *
 * <pre>{@code
 * DataStream<PacketBatch> packets = ExactlyOnceSource.builder(new PacketBatchSchema())
 *     .bootstrapServers(servers).topics("packets").jobName("heavy-hitters")
 *     .fromSource(env, WatermarkStrategy.<PacketBatch>forBoundedOutOfOrderness(Duration.ofSeconds(2)));
 * }</pre>
 *
 * <p>Configuration errors fail in {@link Builder#build()} with a message naming the option.
 */
public final class ExactlyOnceSource {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceSource.class);

  /** Where a fresh start (no checkpoint, no savepoint) begins reading. A restore always uses the checkpoint. */
  public enum StartingOffsets {
    /** Every partition from its first retained record (the default: a job sees the whole topic). */
    EARLIEST,
    /** Only records written after the job started. */
    LATEST,
    /** The consumer group's committed offsets, earliest where the group has none. */
    COMMITTED_OR_EARLIEST
  }

  private ExactlyOnceSource() {}

  /** A builder reading record values with {@code valueDeserializer} (keys, headers and timestamps ignored). */
  public static <T> Builder<T> builder(DeserializationSchema<T> valueDeserializer) {
    Objects.requireNonNull(valueDeserializer, "valueDeserializer");
    return new Builder<>(KafkaRecordDeserializationSchema.valueOnly(valueDeserializer));
  }

  /** A builder reading whole Kafka records (key, value, headers, timestamp) with {@code deserializer}. */
  public static <T> Builder<T> builder(KafkaRecordDeserializationSchema<T> deserializer) {
    return new Builder<>(Objects.requireNonNull(deserializer, "deserializer"));
  }

  /** Options of the source; {@code bootstrapServers}, {@code topics} and {@code jobName} are required. */
  public static final class Builder<T> {
    private static final Set<String> OWNED = Set.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG, ConsumerConfig.ISOLATION_LEVEL_CONFIG);
    /** Consumer properties Flink's Kafka source replaces whatever it is given. */
    private static final Set<String> OVERRIDDEN = Set.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

    private final KafkaRecordDeserializationSchema<T> deserializer;
    private final List<String> topics = new ArrayList<>();
    private final Map<String, String> properties = new LinkedHashMap<>();
    private String bootstrapServers;
    private String jobName;
    private String groupId;
    private StartingOffsets startingOffsets = StartingOffsets.EARLIEST;
    private boolean bounded;
    private String uid;

    private Builder(KafkaRecordDeserializationSchema<T> deserializer) {
      this.deserializer = deserializer;
    }

    /** The brokers, {@code host:port[,host:port…]}. Required. */
    public Builder<T> bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /** The topics to read. Required, at least one. */
    public Builder<T> topics(String... topics) {
      this.topics.clear();
      this.topics.addAll(List.of(topics));
      return this;
    }

    /**
     * The job's name: the consumer group is {@code linerate-<jobName>} and the client ids start with it unless
     * {@link #groupId(String)} says otherwise. Required.
     */
    public Builder<T> jobName(String jobName) {
      this.jobName = jobName;
      return this;
    }

    /** The consumer group that receives the offsets committed on each checkpoint (monitoring only). */
    public Builder<T> groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** Where a fresh start begins; default {@link StartingOffsets#EARLIEST}. */
    public Builder<T> startingOffsets(StartingOffsets startingOffsets) {
      this.startingOffsets = Objects.requireNonNull(startingOffsets, "startingOffsets");
      return this;
    }

    /**
     * Stops at the end offsets the partitions have for a {@code read_committed} reader when the job starts (each
     * partition's last stable offset: a transaction still open then is not waited for, its records are not read),
     * so the job ends when it has read them (tests, replays of a fixed topic). Default: unbounded.
     */
    public Builder<T> bounded() {
      this.bounded = true;
      return this;
    }

    /** The operator uid of the source in {@link #fromSource}; default {@code kafka-source-<topics>}. */
    public Builder<T> uid(String uid) {
      this.uid = uid;
      return this;
    }

    /**
     * Any other Kafka consumer or Flink Kafka source property ({@code partition.discovery.interval.ms},
     * {@code fetch.max.bytes}, security settings…). {@code bootstrap.servers} and {@code group.id} have their own
     * options; {@code isolation.level} stays {@code read_committed}; {@code auto.offset.reset} (see {@link
     * #startingOffsets}) and the key and value deserializers are the connector's, which replaces any given.
     *
     * <p>A value Kafka's consumer would refuse is refused, naming the property. A value may be a config-provider
     * placeholder ({@code ${env:NAME}}, {@code ${file:/path:key}}) when {@code config.providers} names its provider:
     * {@link #build} resolves it as Kafka's consumer will and checks the value it resolves to, or, if it cannot be
     * resolved where the job is built, logs a warning that it is not checked. The consumer is given the placeholder.
     *
     * <p>The properties Flink's Kafka source reads itself, which Kafka's consumer does not know
     * ({@code client.id.prefix}, {@code partition.discovery.interval.ms}, {@code register.consumer.metrics},
     * {@code commit.offsets.on.checkpoint}), are checked as Flink parses them, and a placeholder there is refused:
     * Flink never resolves one ({@link #checkFlinkSourceValue}).
     */
    public Builder<T> property(String key, String value) {
      checkProperty(key, value);
      properties.put(key, value);
      return this;
    }

    /**
     * The checks of {@link #property}: refuses {@code key} if the source owns it, or {@code value} if Kafka's consumer
     * or Flink's source would refuse it (a config-provider placeholder of a consumer property is checked by
     * {@link #build}, once resolved; one of a property Flink's source reads itself is refused).
     *
     * @throws IllegalArgumentException naming the property
     */
    static void checkProperty(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (OWNED.contains(key)) {
        if (key.equals(ConsumerConfig.ISOLATION_LEVEL_CONFIG)) {
          throw new IllegalArgumentException(
              "isolation.level is read_committed for exactly-once input and cannot be changed, got " + value);
        }
        throw new IllegalArgumentException(key + " has its own option (" + camel(key) + "), not property(..)");
      }
      if (OVERRIDDEN.contains(key)) {
        throw new IllegalArgumentException(key + " is set by Flink's Kafka source itself and cannot be changed"
            + (key.equals(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG) ? " (use startingOffsets(..))"
                : " (the deserializer given to builder(..) reads the record's bytes)") + ", got " + value);
      }
      if (ClientProperties.FLINK_SOURCE_KEYS.contains(key)) {
        checkFlinkSourceValue(key, value);
      } else if (!ConfigProviders.hasPlaceholder(value)) {
        checkClientValue(ConsumerConfig.configDef(), key, value, "consumer"); // a placeholder: by build()
      }
    }

    /** The Kafka source; fails with a message naming the option if one is missing or wrong. */
    public KafkaSource<T> build() {
      requireText(bootstrapServers, "bootstrapServers");
      if (topics.isEmpty()) {
        throw new IllegalArgumentException("topics must name at least one topic");
      }
      for (String topic : topics) {
        requireTopic(topic, "topics");
      }
      requireText(jobName, "jobName");
      String group = groupId != null ? requireText(groupId, "groupId") : "linerate-" + jobName;
      ConfigProviders.checkResolved(properties, ConfigProviders.resolve(properties),
          (key, value) -> checkClientValue(ConsumerConfig.configDef(), key, value, "consumer"), "consumer", LOG);
      KafkaSourceBuilder<T> builder = KafkaSource.<T>builder()
          .setBootstrapServers(bootstrapServers)
          .setTopics(topics)
          .setGroupId(group)
          .setClientIdPrefix(group)
          .setDeserializer(deserializer)
          .setStartingOffsets(offsets(startingOffsets));
      properties.forEach(builder::setProperty);
      builder.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      if (bounded) {
        builder.setBounded(new CommittedEndOffsets(ClientProperties.adminConfig(bootstrapServers, properties)));
      }
      return AsciiCaseLocale.underAsciiCaseMapping(builder::build); // the connector lower-cases a setting
    }

    /**
     * Adds the source to {@code env} with {@code watermarks} (event time from the records; use
     * {@link WatermarkStrategy#noWatermarks()} for processing-time jobs), named and uid'ed after its topics.
     */
    public DataStreamSource<T> fromSource(StreamExecutionEnvironment env, WatermarkStrategy<T> watermarks) {
      Objects.requireNonNull(env, "env");
      Objects.requireNonNull(watermarks, "watermarks");
      KafkaSource<T> source = build();
      DataStreamSource<T> stream = env.fromSource(source, watermarks, "Kafka " + String.join(",", topics));
      stream.uid(uid != null ? uid : "kafka-source-" + String.join(",", topics));
      return stream;
    }

    private static OffsetsInitializer offsets(StartingOffsets startingOffsets) {
      switch (startingOffsets) {
        case LATEST:
          return OffsetsInitializer.latest();
        case COMMITTED_OR_EARLIEST:
          return OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        case EARLIEST:
        default:
          return OffsetsInitializer.earliest();
      }
    }
  }

  /**
   * The end offsets a {@code read_committed} reader sees: each partition's last stable offset. The connector's
   * {@link OffsetsInitializer#latest()} asks for the high watermark, which lies past a transaction still open at
   * the start (an upstream exactly-once job between two checkpoints, or a crashed one whose transaction waits for its
   * timeout): the reader cannot pass the open transaction, so the bounded job would wait until it ends, and then
   * read records committed after the start.
   */
  static final class CommittedEndOffsets implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;
    private static final long TIMEOUT_MS = 60_000;
    private final HashMap<String, Object> adminConfig;

    /** @param adminConfig the admin client's configuration ({@link ClientProperties#adminConfig}) */
    CommittedEndOffsets(Map<String, Object> adminConfig) {
      this.adminConfig = new HashMap<>(adminConfig);
    }

    /** The configuration of the admin client it creates. */
    Map<String, Object> adminConfig() {
      return java.util.Collections.unmodifiableMap(adminConfig);
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(Collection<TopicPartition> partitions,
        PartitionOffsetsRetriever retriever) {
      if (partitions.isEmpty()) {
        return Map.of();
      }
      try (Admin admin = Admin.create(new HashMap<>(adminConfig))) {
        return admin.listOffsets(
                partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())),
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
            .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("cannot read the committed end offsets of " + partitions, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while reading the committed end offsets of " + partitions, e);
      }
    }

    @Override
    public OffsetResetStrategy getAutoOffsetResetStrategy() {
      return OffsetResetStrategy.LATEST;
    }
  }

  static String requireText(String value, String option) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(option + " must be set, got " + (value == null ? "nothing" : "'" + value + "'"));
    }
    return value;
  }

  /**
   * {@code topic} if it is a topic name Kafka accepts (1 to 249 of a-z A-Z 0-9 . _ -, not . or ..): a name the
   * broker refuses would fail only once the job runs, and again on every restart.
   *
   * @throws IllegalArgumentException naming {@code option} and the topic otherwise
   */
  static String requireTopic(String topic, String option) {
    requireText(topic, option);
    try {
      org.apache.kafka.common.internals.Topic.validate(topic);
    } catch (org.apache.kafka.common.errors.InvalidTopicException e) {
      throw new IllegalArgumentException(option + " must be a Kafka topic name, got '" + topic + "': "
          + e.getMessage(), e);
    }
    return topic;
  }

  /**
   * Parses and range-checks {@code value} as Kafka's {@code client} (consumer, producer) would when the task creates
   * it, so that a bad value fails when the job is defined, naming the property, not in every task at run time.
   *
   * @return the parsed value, or null for a key {@code config} does not know (a connector's own, a plugin's) or one
   *     naming a class (left to the task's class loader)
   * @throws IllegalArgumentException naming the key and the value if Kafka would refuse it
   */
  static Object checkClientValue(ConfigDef config, String key, String value, String client) {
    return ProducerLimits.clientValue(config, key, value, client);
  }


  /**
   * Refuses a value of a property Flink's Kafka source reads itself ({@link ClientProperties#FLINK_SOURCE_KEYS}) that
   * Flink could not parse, or would read as something else than written: {@code partition.discovery.interval.ms} a
   * whole number of milliseconds (Flink's {@code Long.parseLong}, which fails the job's enumerator on anything else),
   * {@code register.consumer.metrics} and {@code commit.offsets.on.checkpoint} {@code true} or {@code false} (Flink
   * reads other text as false in one place and fails on it in another). Config-provider placeholders are refused:
   * Flink reads these values itself and never resolves them (only Kafka's clients do), so the job would fail at run
   * time, or, for {@code client.id.prefix}, take the text as the prefix.
   *
   * @throws IllegalArgumentException naming the property
   */
  static void checkFlinkSourceValue(String key, String value) {
    if (ConfigProviders.hasPlaceholder(value)) {
      throw new IllegalArgumentException(key + " is read by Flink's Kafka source itself, which does not resolve "
          + "config-provider placeholders (only Kafka's clients do, and Kafka's consumer does not know " + key
          + "): give the value itself, got " + value);
    }
    if (key.equals(KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key())) {
      try {
        Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(key + " must be a whole number of milliseconds (0 or less: no partition "
            + "discovery), as Flink's Kafka source parses it, got '" + value + "'");
      }
    } else if (!key.equals(KafkaSourceOptions.CLIENT_ID_PREFIX.key())
        && !value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException(key + " must be true or false, as Flink's Kafka source reads it, got '"
          + value + "'");
    }
  }

  private static String camel(String key) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : key.toCharArray()) {
      if (c == '.') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }
}
