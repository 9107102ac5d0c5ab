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
}
