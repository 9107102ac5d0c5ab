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

  /**
   * Fails unless {@code actual} equals {@code expected} record for record (both sorted); the message lists the
   * records missing from {@code actual} and those it has in excess (at most 20 of each), not two whole topics.
   */
  public static void assertSameRecords(String what, List<String> actual, List<String> expected) {
    if (actual.equals(expected)) {
      return;
    }
    java.util.Map<String, Integer> diff = new java.util.TreeMap<>();
    expected.forEach(r -> diff.merge(r, 1, Integer::sum));
    actual.forEach(r -> diff.merge(r, -1, Integer::sum));
    List<String> missing = new ArrayList<>();
    List<String> extra = new ArrayList<>();
    diff.forEach((r, n) -> {
      for (int i = 0; i < Math.abs(n); i++) {
        (n > 0 ? missing : extra).add(r);
      }
    });
    throw new AssertionError(String.format(java.util.Locale.ROOT,
        "%s differ: %d expected, %d actual; %d missing, %d in excess%nmissing (first 20):%n  %s%nin excess (first 20):%n  %s",
        what, expected.size(), actual.size(), missing.size(), extra.size(),
        String.join("\n  ", missing.subList(0, Math.min(20, missing.size()))),
        String.join("\n  ", extra.subList(0, Math.min(20, extra.size())))));
  }

  /** Records in all lists. */
  public static long count(List<List<String>> outputs) {
    return outputs.stream().mapToLong(List::size).sum();
  }
}
