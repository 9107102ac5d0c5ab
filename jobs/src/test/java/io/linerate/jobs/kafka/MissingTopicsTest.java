package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The close names of a missing topic: {@link MissingTopics#edits} is the Levenshtein distance, capped at max + 1,
 * and
 * {@link MissingTopics#similar} lists the names within two edits or equal ignoring case, closest first.
 */
class MissingTopicsTest {

  @Test
  void editsCountsInsertsDeletesAndReplacementsUpToTheCap() {
    assertThat(MissingTopics.edits("packets", "packets", 2)).isZero();
    assertThat(MissingTopics.edits("packets", "pakets", 2)).isOne();       // a delete
    assertThat(MissingTopics.edits("pakcets", "packets", 2)).isEqualTo(2); // a swap is two replacements
    assertThat(MissingTopics.edits("packets", "packets-2", 2)).isEqualTo(2);
    assertThat(MissingTopics.edits("", "ab", 2)).isEqualTo(2);
    assertThat(MissingTopics.edits("kitten", "sitting", 3)).isEqualTo(3);
    assertThat(MissingTopics.edits("kitten", "sitting", 2)).isEqualTo(3);  // above the cap: cap + 1
    assertThat(MissingTopics.edits("packets", "reports", 2)).isEqualTo(3);
    assertThat(MissingTopics.edits("a", "abcdef", 2)).isEqualTo(3);         // lengths too far apart
  }

  @Test
  void similarNamesTheCloseOnesClosestFirst() {
    Set<String> names = Set.of("packets", "Pakets", "pakets-v2", "paket", "reports", "pack", "dead-letters");
    // equal ignoring case first, then by edits (1: packets, paket; pakets-v2 is 3 away), then by name
    assertThat(MissingTopics.similar("pakets", names)).containsExactly("Pakets", "packets", "paket");
    assertThat(MissingTopics.similar("flows", names)).isEmpty();
  }
}
