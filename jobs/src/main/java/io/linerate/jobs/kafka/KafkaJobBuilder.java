package io.linerate.jobs.kafka;

import java.time.Duration;

/**
 * The setters every Kafka-to-Kafka job builder has, checked by {@link KafkaJobOptions} (so with the same messages in
 * every job); each job's builder extends it with its own options and defaults.
 *
 * @param <B> the job's builder
 */
public abstract class KafkaJobBuilder<B extends KafkaJobBuilder<B>> {

  /** The common options as set so far; a job takes a {@link KafkaJobOptions#copy()} when it is built. */
  protected final KafkaJobOptions options;

  protected KafkaJobBuilder(Duration defaultOutOfOrderness, Duration defaultIdleness) {
    this.options = new KafkaJobOptions(defaultOutOfOrderness, defaultIdleness);
  }

  /** This builder, for chaining. */
  protected abstract B self();

  /**
   * How far the watermark trails the largest timestamp seen (packets or events may arrive this far behind the
   * newest of their partition); ≥ 0; the default is the job's.
   */
  public B outOfOrderness(Duration outOfOrderness) {
    options.outOfOrderness(outOfOrderness);
    return self();
  }

  /** A partition without records for this long stops holding the watermark back; 0 = never; default 30 s. */
  public B idleness(Duration idleness) {
    options.idleness(idleness);
    return self();
  }

  /** Read the input topic up to its end offsets at start, then finish (flushing what the job holds); default off. */
  public B bounded(boolean bounded) {
    options.bounded(bounded);
    return self();
  }

  /** {@code transaction.timeout.ms} of the sinks; default {@link ExactlyOnceSink#DEFAULT_TRANSACTION_TIMEOUT}. */
  public B transactionTimeout(Duration timeout) {
    options.transactionTimeout(timeout);
    return self();
  }

  /**
   * A Kafka producer property of the job's sinks, e.g. {@code buffer.memory} (the heap each sink producer may hold
   * in batches, 32 MiB by default) or {@code compression.type}; see {@link KafkaJobOptions#sinkProperty}.
   */
  public B sinkProperty(String key, String value) {
    options.sinkProperty(key, value);
    return self();
  }

  /**
   * A Kafka consumer property of the job's source (or one of Flink's Kafka source, e.g.
   * {@code partition.discovery.interval.ms}); see {@link KafkaJobOptions#sourceProperty}.
   */
  public B sourceProperty(String key, String value) {
    options.sourceProperty(key, value);
    return self();
  }

  /**
   * A property of every Kafka client of the job (consumer, producers, admin clients), e.g. {@code security.protocol}
   * or {@code sasl.jaas.config}; see {@link KafkaJobOptions#clientProperty}.
   */
  public B clientProperty(String key, String value) {
    options.clientProperty(key, value);
    return self();
  }

  /**
   * Bytes of an undecodable record's value, key and headers its dead letter keeps; default
   * {@link io.linerate.jobs.format.KafkaDecoding#DEFAULT_MAX_DEAD_LETTER_BYTES}; see
   * {@link KafkaJobOptions#maxDeadLetterBytes(int)}.
   */
  public B maxDeadLetterBytes(int maxDeadLetterBytes) {
    options.maxDeadLetterBytes(maxDeadLetterBytes);
    return self();
  }

  /** The job's name instead of its default ({@link KafkaJobOptions#jobName(String)}); null: the default. */
  public B jobName(String jobName) {
    options.jobName(jobName);
    return self();
  }
}
