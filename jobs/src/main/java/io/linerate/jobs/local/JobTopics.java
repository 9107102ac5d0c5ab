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

  public JobTopics {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(deadLetter, "deadLetter");
  }

  /** The three topic names, input first. */
  public List<String> names() {
    return List.of(input, output, deadLetter);
  }
}
