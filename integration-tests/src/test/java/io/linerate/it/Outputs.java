package io.linerate.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.linerate.jobs.kafka.TopicReader;

/**
 * What a run committed: every record of its output topics read with {@code read_committed}, sorted per topic (the
 * order across partitions and sinks is not part of a job's contract; the records themselves are, byte for byte).
 */
public final class Outputs {

  private Outputs() {
  }

  /** The committed records of each topic, in the order of {@code topics}, each list sorted. */
  public static List<List<String>> committed(String bootstrapServers, List<String> topics) {
    List<List<String>> out = new ArrayList<>();
    for (String topic : topics) {
      List<String> records = new ArrayList<>(TopicReader.readAll(bootstrapServers, topic, true));
      Collections.sort(records);
      out.add(records);
    }
    return out;
  }

  /** Records in all lists. */
  public static long count(List<List<String>> outputs) {
    return outputs.stream().mapToLong(List::size).sum();
  }
}
