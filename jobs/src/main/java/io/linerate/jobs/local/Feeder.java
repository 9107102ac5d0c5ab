package io.linerate.jobs.local;

/**
 * Writes input records to a Kafka topic for a job to read: the demo's traffic. The synthetic traffic generator and
 * the pcap replay implement it (the tests use a minimal pass-through feeder).
 *
 * <p>{@link #feed(FeedContext)} runs on a thread of its own; it returns when it has nothing more to send or soon
 * after {@link FeedContext#stopRequested()} turns true (or its thread is interrupted), and reports what it sent
 * through {@link FeedContext#sent(long)} so the demo can print progress.
 */
public interface Feeder {

  /** One line saying what this feeder sends, e.g. "numbered records at 1000/s". */
  String description();

  /**
   * What this feeder counts in {@link FeedContext#sent(long)}, plural, for the demo's progress lines: "packets" for
   * the packet feeders (a Kafka record holds a batch of them), "events" for the JSON events; "records" by default.
   */
  default String unit() {
    return "records";
  }

  /**
   * Sends records to {@code context.topic()} on {@code context.bootstrapServers()} until done or stopped.
   *
   * @throws Exception if sending fails: the demo stops and reports it
   */
  void feed(FeedContext context) throws Exception;
}
