package io.linerate.jobs.local;

import java.util.List;
import java.util.Objects;

/**
 * Where a job reads and writes: the broker and the three topics of a Kafka-to-Kafka job.
 *
 * @param bootstrapServers the {@code bootstrap.servers} of the broker
 * @param input the topic the job reads
 * @param output the topic the job writes its results to
 * @param deadLetter the topic for input records the job cannot read
 */
public record JobTopics(String bootstrapServers, String input, String output, String deadLetter) {

  /**
   * @throws IllegalArgumentException if the output or dead-letter topic is the input topic: the job would read its
   *     own output back, each record failing to decode into a dead letter that is read again, without end
   */
  public JobTopics {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(deadLetter, "deadLetter");
    requireNotInput("output", output, input);
    requireNotInput("deadLetter", deadLetter, input);
  }

  /**
   * Fails if {@code topic}, a topic the job writes, is the {@code input} topic it reads.
   *
   * @throws IllegalArgumentException naming {@code name} and the topic
   */
  public static void requireNotInput(String name, String topic, String input) {
    if (topic.equals(input)) {
      throw new IllegalArgumentException(name + " topic '" + topic + "' is the input topic: the job would read what"
          + " it writes, without end");
    }
  }

  /** The three topic names, input first. */
  public List<String> names() {
    return List.of(input, output, deadLetter);
  }
}
