package io.linerate.jobs.local;

import java.util.Map;

import java.io.PrintStream;
import java.time.Duration;

import io.linerate.jobs.kafka.WrittenTopics;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink job the demo can run: it adds its pipeline (Kafka source, operators, Kafka sinks) to an environment
 * whose configuration (parallelism, checkpointing, state backend) the caller set. The heavy-hitters, dedup and
 * flow-meter jobs implement it (the tests use a minimal pass-through job).
 */
public interface JobLauncher {

  /**
   * Flink's job name: the job's kind, e.g. "heavy-hitters", or what {@code --job-name} set (the job's Kafka
   * identity, consumer group and transactional ids, also holds the kind: {@code KafkaJobOptions.kafkaName}).
   */
  String name();

  /** One line saying what the job does. */
  String description();

  /**
   * Adds the job's pipeline to {@code env}: read {@code topics.input()}, write {@code topics.output()} (and
   * {@code topics.deadLetter()}), exactly once.
   */
  void define(StreamExecutionEnvironment env, JobTopics topics);

  /**
   * The topics {@link #define} makes the job write, with what it may write to them, for
   * {@link io.linerate.jobs.kafka.TopicPreflight} to check against the topics' configs before the job is submitted.
   * The default, for a job that does not say, is {@link WrittenTopics#none()}: nothing is checked.
   */
  default WrittenTopics writtenTopics(JobTopics topics) {
    return WrittenTopics.none();
  }

  /**
   * The properties of the admin clients made for the job (the topic check before it is submitted): those of every
   * Kafka client of the job, security settings among them ({@code KafkaJobOptions#adminProperties}). The default, for
   * a job that has none: no properties beyond the broker's address.
   */
  default Map<String, String> adminProperties() {
    return Map.of();
  }

  /**
   * Called after the feeder stopped and before the job is cancelled: waits at most {@code timeout} for the job to
   * have written (and committed) its output for everything fed, and prints a summary to {@code out}. Returns
   * whether the output is complete; the default has nothing to wait for.
   *
   * @param recordsFed what the feeder reported as sent
   */
  default boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream out)
      throws InterruptedException {
    return true;
  }

  /**
   * Whether {@link #drain} waits for the job's output (the demo then says it is draining); the default, for a job
   * with nothing to wait for, does not. The flow meter's output for what was fed is not complete at any moment:
   * flows still open are written when they time out.
   */
  default boolean drains() {
    return false;
  }

  /**
   * {@link #drain(JobTopics, long, Duration, PrintStream)} with all the feeder reported: what it sent and the event
   * times it spanned ({@link FeedContext#firstEventMillis()}), for a job that can tell from them that waiting is
   * useless. The default passes the count on.
   */
  default boolean drain(JobTopics topics, FeedContext feed, Duration timeout, PrintStream out)
      throws InterruptedException {
    return drain(topics, feed.sentCount(), timeout, out);
  }

  /**
   * What the demo shows while the job runs, or {@code null} (the default) for the status line alone. The demo
   * polls and prints it from its own thread and closes it before stopping the job.
   *
   * @param terminal whether the output is a terminal (redraw in place) or a log (append blocks)
   */
  default LiveView liveView(JobTopics topics, boolean terminal) {
    return null;
  }
}
