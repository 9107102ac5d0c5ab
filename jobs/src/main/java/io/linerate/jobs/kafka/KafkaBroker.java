package io.linerate.jobs.kafka;

/**
 * A Kafka broker the jobs, the demo and the tests talk to: where it listens, how to make topics, and a short
 * description of what it is (tests print it, so a reader knows which broker a result came from).
 *
 * <p>Today there is one kind, {@link EmbeddedKafka} (a KRaft broker in this JVM). A broker in a container
 * (Testcontainers) would be a second implementation where a Docker engine exists.
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

  /** Stops the broker and removes what it created. Idempotent. */
  @Override
  void close();
}
