package io.linerate.jobs.local;

import java.io.PrintStream;
import java.time.Duration;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink job the demo can run: it adds its pipeline (Kafka source, operators, Kafka sinks) to an environment
 * whose configuration (parallelism, checkpointing, state backend) the caller set. The heavy-hitters, dedup and
 * flow-meter jobs implement it; {@link PassThroughJob} is the minimal one.
 */
public interface JobLauncher {

  /** The job's name (Flink's job name, the Kafka sink's transactional id prefix), e.g. "heavy-hitters". */
  String name();

  /** One line saying what the job does. */
  String description();

  /**
   * Adds the job's pipeline to {@code env}: read {@code topics.input()}, write {@code topics.output()} (and
   * {@code topics.deadLetter()}), exactly once.
   */
  void define(StreamExecutionEnvironment env, JobTopics topics);

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
}
