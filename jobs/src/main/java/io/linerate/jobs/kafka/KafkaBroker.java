package io.linerate.jobs.kafka;

import java.time.Duration;

/**
 * A Kafka broker the jobs, the demo and the tests talk to: where it listens, how to make topics, and a short
 * description of what it is (tests print it, so a reader knows which broker a result came from).
 *
 * <p>The main code has one kind, {@link EmbeddedKafka} (a KRaft broker in this JVM). The integration tests add a
 * broker in a container (Testcontainers) for machines with a Docker engine.
 */
public interface KafkaBroker extends AutoCloseable {

  /** The {@code bootstrap.servers} value clients use, e.g. {@code 127.0.0.1:40123}. */
  String bootstrapServers();

  /** What this broker is, e.g. {@code "embedded KRaft broker 4.2.0"}. */
  String description();

  /**
   * Creates a topic with {@code partitions} partitions and replication factor 1, and returns once every
   * partition has a leader.
   *
   * @throws IllegalArgumentException if the name is blank or {@code partitions < 1}
   * @throws IllegalStateException if the broker refuses (e.g. the topic exists)
   */
  void createTopic(String name, int partitions);

  /** {@link #createTopic(String, int)} for several topics of the same partition count, in one request. */
  void createTopics(int partitions, String... names);

  /**
   * Stops the broker, keeps it down for {@code downtime}, and starts it again at the same
   * {@linkplain #bootstrapServers() bootstrap address} with the same data: topics, committed records, consumer
   * group offsets and transaction state survive. Returns once the broker answers an admin request again.
   *
   * <p>For tests of what clients and jobs do while the broker is away. Clients connected during the downtime see
   * disconnects and retry on their own; nothing on this side waits for them.
   *
   * @param downtime how long the broker stays stopped; {@link Duration#ZERO} restarts at once
   * @throws IllegalArgumentException if {@code downtime} is negative
   * @throws IllegalStateException if the broker is closed, or cannot start again (e.g. another process took its
   *     port meanwhile); the broker then stays stopped, and {@link #close()} still removes what it created
   */
  void restart(Duration downtime);

  /** Stops the broker and removes what it created. Idempotent. */
  @Override
  void close();
}
