package io.linerate.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * What a run committed: every record of its output topics read with {@code read_committed}, sorted per topic (the
 * order across partitions and sinks is not part of a job's contract; the records themselves are, byte for byte).
 */
public final class Outputs {

  private Outputs() {
  }

  /** Above this many records a topic's records are kept as fingerprints (see {@link #committed}). */
  static final int PLAIN_RECORDS = 200_000;

  /**
   * The committed records of each topic, in the order of {@code topics}, each list sorted. A topic of more than
   * {@value #PLAIN_RECORDS} records (the full scale: millions of records, gigabytes of JSON) is kept as 128-bit
   * fingerprints instead ({@code "#"} and 32 hex digits of two independent seeded 64-bit hashes): equal outputs still
   * give equal lists, two different records share a fingerprint with probability about n²/2¹²⁹ (below 10⁻²⁴ for 10⁷
   * records), and outputs of different sizes differ either way; but a mismatch then shows fingerprints, not
   * records: reproduce it at the reduced scale to read them.
   */
  public static List<List<String>> committed(String bootstrapServers, List<String> topics) {
    List<List<String>> out = new ArrayList<>();
    for (String topic : topics) {
      List<String> records = new ArrayList<>();
      boolean[] fingerprints = {false};
      CommittedRecords.forEach(bootstrapServers, topic, value -> {
        if (!fingerprints[0] && records.size() == PLAIN_RECORDS) {
          records.replaceAll(r -> fingerprint(r.getBytes(StandardCharsets.UTF_8)));
          fingerprints[0] = true;
        }
        String text = value == null ? "null" : new String(value, StandardCharsets.UTF_8);
        records.add(fingerprints[0] ? fingerprint(text.getBytes(StandardCharsets.UTF_8)) : text);
      });
      Collections.sort(records);
      out.add(records);
    }
    return out;
  }

  private static final Hasher64 FIRST = Hashing.komihash5_0(0x1F5A_7E11_0001L);
  private static final Hasher64 SECOND = Hashing.komihash5_0(0x1F5A_7E11_0002L);

  static String fingerprint(byte[] value) {
    return String.format(Locale.ROOT, "#%016x%016x", FIRST.hashBytesToLong(value), SECOND.hashBytesToLong(value));
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
    throw new AssertionError(String.format(Locale.ROOT,
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
