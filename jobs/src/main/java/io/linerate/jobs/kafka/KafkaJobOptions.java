package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import io.linerate.jobs.format.KafkaDecoding;

/**
 * The options every Kafka-to-Kafka job shares: how far the watermark trails the largest timestamp seen
 * (out-of-orderness), after how long a silent partition stops holding it back (idleness), whether the input is read
 * only up to its end offsets at start (bounded), the sinks' transaction timeout, the Kafka clients' properties and
 * the dead letters' size. Each job's builder holds one and delegates its setters here, so the checks and their
 * messages are the same in every job.
 *
 * <p>Client properties: {@link #clientProperty} for every client the job creates (its source's consumer, its sinks'
 * producers, its admin clients: security settings belong here), {@link #sourceProperty} for the consumer only,
 * {@link #sinkProperty} for the producers only; a client-specific property wins over a common one of the same key.
 */
public final class KafkaJobOptions {

  /** What a job name may be. */
  public static final String JOB_NAME_RULE = "1 to 100 letters, digits, '_' or '-'";
  private static final Pattern JOB_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

  private Duration outOfOrderness;
  private Duration idleness;
  private boolean bounded;
  private Duration transactionTimeout = ExactlyOnceSink.DEFAULT_TRANSACTION_TIMEOUT;
  private String jobName;
  private final Map<String, String> clientProperties = new LinkedHashMap<>();
  private final Map<String, String> sourceProperties = new LinkedHashMap<>();
  private final Map<String, String> sinkProperties = new LinkedHashMap<>();
  private int maxDeadLetterBytes = KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES;

  /** Options with the job's defaults for out-of-orderness and idleness; unbounded, the default transaction timeout. */
  public KafkaJobOptions(Duration outOfOrderness, Duration idleness) {
    outOfOrderness(outOfOrderness);
    idleness(idleness);
  }

  /** @throws IllegalArgumentException if negative */
  public void outOfOrderness(Duration outOfOrderness) {
    Objects.requireNonNull(outOfOrderness, "outOfOrderness");
    if (outOfOrderness.isNegative()) {
      throw new IllegalArgumentException("outOfOrderness must be >= 0, got " + outOfOrderness);
    }
    this.outOfOrderness = outOfOrderness;
  }

  /** Zero turns idleness detection off. @throws IllegalArgumentException if negative */
  public void idleness(Duration idleness) {
    Objects.requireNonNull(idleness, "idleness");
    if (idleness.isNegative()) {
      throw new IllegalArgumentException("idleness must be >= 0 (0: off), got " + idleness);
    }
    this.idleness = idleness;
  }

  public void bounded(boolean bounded) {
    this.bounded = bounded;
  }

  /**
   * The sinks' {@code transaction.timeout.ms}: > 0 and at most Kafka's default {@code transaction.max.timeout.ms}
   * ({@link ExactlyOnceSink#DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT}), as the sinks check it.
   *
   * @throws IllegalArgumentException if out of that range
   */
  public void transactionTimeout(Duration transactionTimeout) {
    Objects.requireNonNull(transactionTimeout, "transactionTimeout");
    if (transactionTimeout.isZero() || transactionTimeout.isNegative()) {
      throw new IllegalArgumentException("transactionTimeout must be > 0, got " + transactionTimeout);
    }
    if (transactionTimeout.compareTo(ExactlyOnceSink.DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT) > 0) {
      throw new IllegalArgumentException("transactionTimeout must be <= the broker's transaction.max.timeout.ms ("
          + ExactlyOnceSink.DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT + "), got " + transactionTimeout);
    }
    this.transactionTimeout = transactionTimeout;
  }

  /**
   * A Kafka producer property of the job's sinks ({@code buffer.memory}, {@code max.request.size},
   * {@code compression.type}, {@code linger.ms}…), checked as {@link ExactlyOnceSink.Builder#property}
   * checks it. The job's record-size checks follow {@code max.request.size} and {@code buffer.memory} as set here
   * ({@link JsonTopics#maxValueBytes(Map)}): records whose output the sinks could not write are dead letters, and a
   * configuration whose output could exceed them is refused when the job is built. A config-provider placeholder
   * ({@code ${env:NAME}}) is checked once resolved, when the job's sinks are built
   * ({@link ExactlyOnceSink.Builder#property}); for those two properties it must resolve where the job is built.
   * Wins over a {@link #clientProperty} of the same key.
   */
  public void sinkProperty(String key, String value) {
    checkSinkProperty(key, value);
    sinkProperties.put(key, value);
  }

  /**
   * A Kafka consumer property (or one of Flink's Kafka source: {@code partition.discovery.interval.ms}…) of the
   * job's source, checked when set as {@link ExactlyOnceSource.Builder#property} checks it: {@code bootstrap.servers},
   * {@code group.id} (the job's name decides it), {@code isolation.level} ({@code read_committed}),
   * {@code auto.offset.reset} and the deserializers are refused, and so is a value Kafka's consumer or Flink's source
   * would refuse. Wins over a {@link #clientProperty} of the same key.
   *
   * @throws IllegalArgumentException naming the property
   */
  public void sourceProperty(String key, String value) {
    checkSourceProperty(key, value);
    sourceProperties.put(key, value);
  }

  /**
   * A property of every Kafka client the job creates: its source's consumer, its sinks' producers, and its admin
   * clients ({@link #adminProperties()}) — the place for security settings ({@code security.protocol},
   * {@code sasl.*}, {@code ssl.*}) and config providers. A client gets the properties it knows and those no Kafka
   * client knows (a plugin's own; {@link ClientProperties#forClient}). Checked as {@link #sourceProperty} and
   * {@link #sinkProperty} check it, so a key the source or the sinks own is refused.
   *
   * @throws IllegalArgumentException naming the property
   */
  public void clientProperty(String key, String value) {
    checkClientProperty(key, value);
    clientProperties.put(key, value);
  }

  /** The checks of {@link #sinkProperty}, without setting it. @throws IllegalArgumentException naming the property */
  public static void checkSinkProperty(String key, String value) {
    JsonTopics.checkSinkProperty(key, value); // the sink's own checks and messages
  }

  /** The checks of {@link #sourceProperty}, without setting it. @throws IllegalArgumentException naming the property */
  public static void checkSourceProperty(String key, String value) {
    ExactlyOnceSource.Builder.checkProperty(key, value);
  }

  /** The checks of {@link #clientProperty}, without setting it. @throws IllegalArgumentException naming the property */
  public static void checkClientProperty(String key, String value) {
    checkSourceProperty(key, value);
    checkSinkProperty(key, value);
  }

  /**
   * The sinks' producer properties: the {@link #clientProperty client properties} a producer uses, then those set by
   * {@link #sinkProperty} (which win), in the order set.
   */
  public Map<String, String> sinkProperties() {
    return merged(ClientProperties.Client.PRODUCER, sinkProperties);
  }

  /**
   * The source's consumer properties: the {@link #clientProperty client properties} a consumer uses, then those set
   * by {@link #sourceProperty} (which win), in the order set.
   */
  public Map<String, String> sourceProperties() {
    return merged(ClientProperties.Client.CONSUMER, sourceProperties);
  }

  /**
   * The properties of the admin clients the job creates (the bounded source's end offsets; topic checks): the
   * {@link #clientProperty client properties} an admin client uses. {@link ClientProperties#adminConfig} makes an
   * admin client's configuration of them.
   */
  public Map<String, String> adminProperties() {
    return Collections.unmodifiableMap(ClientProperties.forClient(ClientProperties.Client.ADMIN, clientProperties));
  }

  /** The properties set by {@link #clientProperty}, in the order set. */
  public Map<String, String> clientProperties() {
    return Collections.unmodifiableMap(clientProperties);
  }

  private Map<String, String> merged(ClientProperties.Client client, Map<String, String> specific) {
    Map<String, String> all = ClientProperties.forClient(client, clientProperties);
    all.putAll(specific);
    return Collections.unmodifiableMap(all);
  }

  /**
   * The most bytes of an undecodable record's value, of its key, and of its headers a dead letter keeps
   * ({@link KafkaDecoding}); default {@link KafkaDecoding#DEFAULT_MAX_DEAD_LETTER_BYTES}. The largest dead letter must
   * fit what the dead-letter sink can write ({@link #requireDeadLettersFit()}, checked when the job is built, with
   * the sinks' properties as they are then).
   *
   * @throws IllegalArgumentException if negative
   */
  public void maxDeadLetterBytes(int maxDeadLetterBytes) {
    if (maxDeadLetterBytes < 0) {
      throw new IllegalArgumentException("maxDeadLetterBytes must be >= 0, got " + maxDeadLetterBytes);
    }
    this.maxDeadLetterBytes = maxDeadLetterBytes;
  }

  /** The bytes of a record's value, key and headers a dead letter keeps. */
  public int maxDeadLetterBytes() {
    return maxDeadLetterBytes;
  }

  /**
   * Refuses a {@link #maxDeadLetterBytes} whose largest dead letter the dead-letter sink could not write with the
   * {@link #sinkProperties()} ({@link KafkaInput#requireDeadLettersFit(int, Map)}).
   *
   * @throws IllegalArgumentException naming maxDeadLetterBytes, the limit and the largest setting that fits
   */
  public void requireDeadLettersFit() {
    KafkaInput.requireDeadLettersFit(maxDeadLetterBytes, sinkProperties());
  }

  /**
   * The job's name instead of its default: Flink's job name, and (with the job's kind) its Kafka identity,
   * {@link #kafkaName}. Two instances of one job on the same broker need different names, or they share a consumer
   * group and fence each other's transactions. Null: the job's default.
   *
   * @throws IllegalArgumentException unless null or {@value #JOB_NAME_RULE}
   */
  public void jobName(String jobName) {
    if (jobName != null && !validJobName(jobName)) {
      throw new IllegalArgumentException("jobName must be " + JOB_NAME_RULE + ", got '" + jobName + "'");
    }
    this.jobName = jobName;
  }

  /** The name set by {@link #jobName(String)}, or null. */
  public String jobName() {
    return jobName;
  }

  /**
   * The job's Kafka identity: its consumer group is {@code linerate-<this>}, its sinks' transactional ids start
   * with {@code linerate-<this>} ({@link JsonTopics#transactionalIdPrefix}). {@code kind} alone by default (the
   * identity of earlier versions, so their lingering transactions are found again), {@code kind.name} when named:
   * the kind keeps two different jobs with one name apart, and names cannot hold '.', so no two (kind, name) pairs
   * give the same identity.
   */
  public String kafkaName(String kind) {
    return jobName == null ? kind : kind + "." + jobName;
  }

  /** Whether {@code name} is {@value #JOB_NAME_RULE}. */
  public static boolean validJobName(String name) {
    return JOB_NAME.matcher(name).matches();
  }

  /** The name set by {@link #jobName(String)}, else {@code defaultName}. */
  public String jobNameOr(String defaultName) {
    return jobName != null ? jobName : defaultName;
  }

  public Duration outOfOrderness() {
    return outOfOrderness;
  }

  /** Zero: idleness detection off. */
  public Duration idleness() {
    return idleness;
  }

  public boolean bounded() {
    return bounded;
  }

  public Duration transactionTimeout() {
    return transactionTimeout;
  }

  /** A copy, so a built job does not change when its builder is reused. */
  public KafkaJobOptions copy() {
    KafkaJobOptions c = new KafkaJobOptions(outOfOrderness, idleness);
    c.bounded = bounded;
    c.transactionTimeout = transactionTimeout;
    c.jobName = jobName;
    c.clientProperties.putAll(clientProperties);
    c.sourceProperties.putAll(sourceProperties);
    c.sinkProperties.putAll(sinkProperties);
    c.maxDeadLetterBytes = maxDeadLetterBytes;
    return c;
  }
}
