package io.linerate.jobs.local;

/**
 * Writes input records to a Kafka topic for a job to read: the demo's traffic. The synthetic traffic generator and
 * the pcap replay implement it; {@link PassThroughFeeder} is the minimal one.
 *
 * <p>{@link #feed(FeedContext)} runs on a thread of its own; it returns when it has nothing more to send or soon
 * after {@link FeedContext#stopRequested()} turns true (or its thread is interrupted), and reports what it sent
 * through {@link FeedContext#sent(long)} so the demo can print progress.
 */
public interface Feeder {

  /** One line saying what this feeder sends, e.g. "numbered records at 1000/s". */
  String description();

  /**
   * Sends records to {@code context.topic()} on {@code context.bootstrapServers()} until done or stopped.
   *
   * @throws Exception if sending fails: the demo stops and reports it
   */
  void feed(FeedContext context) throws Exception;
}
