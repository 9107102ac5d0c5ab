package io.linerate.jobs.local;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** What a {@link Feeder} writes to, when it should stop, and where it counts what it sent. Thread-safe. */
public final class FeedContext {

  private final String bootstrapServers;
  private final String topic;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong sent = new AtomicLong();
  private long firstEventMillis = Long.MIN_VALUE;
  private long lastEventMillis = Long.MIN_VALUE;
  private long lastRecordEventMillis = Long.MIN_VALUE;

  public FeedContext(String bootstrapServers, String topic) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.topic = Objects.requireNonNull(topic, "topic");
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String topic() {
    return topic;
  }

  /** True once the demo wants the feeder to return. */
  public boolean stopRequested() {
    return stop.get();
  }

  /** Asks the feeder to return (it checks {@link #stopRequested()} between records or batches). */
  public void requestStop() {
    stop.set(true);
  }

  /** Adds {@code records} to the count of records sent (acknowledged by the broker). */
  public void sent(long records) {
    sent.addAndGet(records);
  }

  /** Records sent so far. */
  public long sentCount() {
    return sent.get();
  }

  /**
   * The earliest and latest event time (epoch ms) of what the feeder sent, {@code Long.MIN_VALUE} for both when it
   * sent nothing; a feeder reports them once it is done, so that a job can tell what event time reached it.
   */
  public void eventTimes(long first, long last) {
    eventTimes(first, last, last);
  }

  /**
   * As {@link #eventTimes(long, long)}, with the latest event time of a record as the jobs stamp it
   * ({@code lastRecord}: a packet batch's earliest packet, at most {@code last}): a job's watermark follows the
   * records, so it stays below {@code lastRecord} minus its out-of-orderness even when later packets were sent.
   */
  public synchronized void eventTimes(long first, long last, long lastRecord) {
    if (first == Long.MIN_VALUE) {
      return;
    }
    firstEventMillis = firstEventMillis == Long.MIN_VALUE ? first : Math.min(firstEventMillis, first);
    lastEventMillis = Math.max(lastEventMillis, last);
    lastRecordEventMillis = Math.max(lastRecordEventMillis, lastRecord);
  }

  /** The earliest event time sent, or {@code Long.MIN_VALUE} when not reported. */
  public synchronized long firstEventMillis() {
    return firstEventMillis;
  }

  /** The latest event time sent, or {@code Long.MIN_VALUE} when not reported. */
  public synchronized long lastEventMillis() {
    return lastEventMillis;
  }

  /** The latest event time of a record sent as the jobs stamp it, or {@code Long.MIN_VALUE} when not reported. */
  public synchronized long lastRecordEventMillis() {
    return lastRecordEventMillis;
  }
}
