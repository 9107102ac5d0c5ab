package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The options every Kafka-to-Kafka job shares: how far the watermark trails the largest timestamp seen
 * (out-of-orderness), after how long a silent partition stops holding it back (idleness), whether the input is read
 * only up to its end offsets at start (bounded), and the sinks' transaction timeout. Each job's builder holds one and
 * delegates its setters here, so the checks and their messages are the same in every job.
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
  private final Map<String, String> sinkProperties = new LinkedHashMap<>();

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
   * {@code compression.type}, {@code linger.ms}, security settings…), checked as {@link ExactlyOnceSink.Builder#property}
   * checks it. The job's record-size checks follow {@code max.request.size} and {@code buffer.memory} as set here
   * ({@link JsonTopics#maxValueBytes(Map)}): records whose output the sinks could not write are dead letters, and a
   * configuration whose output could exceed them is refused when the job is built. A config-provider placeholder
   * ({@code ${env:NAME}}) is checked once resolved, when the job's sinks are built
   * ({@link ExactlyOnceSink.Builder#property}); for those two properties it must resolve where the job is built.
   */
  public void sinkProperty(String key, String value) {
    JsonTopics.checkSinkProperty(key, value); // the sink's own checks and messages
    sinkProperties.put(key, value);
  }

  /** The sinks' producer properties set by {@link #sinkProperty}, in the order set. */
  public Map<String, String> sinkProperties() {
    return Collections.unmodifiableMap(sinkProperties);
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
    c.sinkProperties.putAll(sinkProperties);
    return c;
  }
}
