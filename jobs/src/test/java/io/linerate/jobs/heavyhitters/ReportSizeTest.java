package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.JsonTopics;
import io.linerate.sketches.frequency.HeavyHitter;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import org.junit.jupiter.api.Test;

/**
 * The heavy-hitters job refuses, when it is built, a configuration whose reports could be longer than a Kafka record
 * of its sinks ({@link ReportSize}); without that, the sink fails the job on such a report and again on every
 * restore.
 *
 * <p>Why it can fail: a byte bound below what the job's own serializer writes for the widest items, an item bound
 * below what a Space-Saving tracker actually reports (the top k plus every counter ≥ φ·N, at most k + ⌊1/φ⌋
 * because the counters add up to N), or a build that accepts reports the sinks cannot write.
 */
class ReportSizeTest {

  /** The bound against the job's real rendering (operator text → {@link HeavyHittersJob.ReportText} → JSON). */
  @Test
  void theByteBoundCoversTheWidestRealReport() {
    String v6 = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"; // the widest IPv6 address, as FiveTuple.toString writes it
    String[] operatorText = {v6 + " " + v6 + " 65535 65535 255", "ff".repeat(16), "ff".repeat(16)};
    PacketItem[] items = {PacketItem.FIVE_TUPLE, PacketItem.SRC_ADDRESS, PacketItem.DST_ADDRESS};
    for (int i = 0; i < items.length; i++) {
      for (int n : new int[] {0, 1, 7, 500}) {
        // the operator's own text of the widest item, rewritten by the job as it rewrites every report
        HeavyHitterReport<Integer> r = ReportSize.widest(n, operatorText[i], 0.0123456789);
        int written = new HeavyHittersJob.ItemsAsText<>(OutputJson.<Integer>heavyHitterReports(),
            new HeavyHittersJob.ReportText(items[i])).serialize(r).length;
        long bound = ReportSize.maxBytes(n, items[i], r.phi);
        assertThat(bound).as(items[i] + ", " + n + " items").isGreaterThanOrEqualTo(written)
            .isLessThanOrEqualTo(written + 1L); // only the first item's comma is counted in excess
      }
    }
  }

  /**
   * A Space-Saving tracker's report (its {@code heavyHitters(φ)} ∪ {@code topK(k)}, as the operator builds it)
   * never lists more than k + ⌊1/φ⌋ items, on streams made to produce many counters near φ·N.
   */
  @Test
  void aTumblingWindowReportListsAtMostKPlusOneOverPhiItems() {
    int k = 10;
    double phi = 0.01;
    int capacity = 4 * 100;
    long bound = k + (long) Math.floor(1 / phi);
    SplittableRandom random = new SplittableRandom(20261126L);
    for (int trial = 0; trial < 30; trial++) {
      SpaceSaving tracker = SpaceSaving.withCapacity(KeyKind.longs(), capacity, trial);
      int distinct = trial % 3 == 0 ? 100 : trial % 3 == 1 ? 101 : 5_000; // exactly at, just below φ·N, or flat
      for (int i = 0; i < 200_000; i++) {
        tracker.update(random.nextInt(distinct), 1 + random.nextInt(trial % 2 == 0 ? 1 : 3));
      }
      Set<Object> listed = new HashSet<>();
      for (HeavyHitter h : tracker.heavyHitters(phi)) {
        listed.add(h.item());
      }
      for (HeavyHitter h : tracker.topK(k)) {
        listed.add(h.item());
      }
      assertThat((long) listed.size()).as("trial " + trial).isLessThanOrEqualTo(bound);
    }
  }

  @Test
  void theDefaultsAndLargeButWritableReportsBuild() {
    HeavyHittersJob job = HeavyHittersJob.builder().build();
    assertThat(ReportSize.maxItems(job.detector())).isEqualTo(10 + 100);
    assertThat(ReportSize.maxBytes(110, PacketItem.FIVE_TUPLE, 0.01)).isLessThan(JsonTopics.maxValueBytes() / 10);
    // sliding: the capacity is the bound (merged summaries' upper bounds may add up to more than N)
    HeavyHittersJob sliding = HeavyHittersJob.builder().window(Duration.ofMinutes(1)).slide(Duration.ofSeconds(10))
        .capacity(2_000).build();
    assertThat(ReportSize.maxItems(sliding.detector())).isEqualTo(2_000);
    // CM-heap candidates enter at over-estimates, so their counts may add up to more than N: the capacity again
    var cmHeap = io.linerate.flink.heavyhitters.HeavyHitterDetector
        .<PacketRecord, Integer>builder(PacketRecord::observationPoint, PacketItem.FIVE_TUPLE.selector())
        .timestamps(PacketRecord.TIMESTAMP).tumbling(Duration.ofMinutes(1)).countMinHeap().capacity(3_000).build();
    assertThat(ReportSize.maxItems(cmHeap)).isEqualTo(3_000);
  }

  @Test
  void reportsTooLargeForAKafkaRecordFailTheBuildNamingTheParameters() {
    int limit = JsonTopics.maxValueBytes();
    assertThatThrownBy(() -> HeavyHittersJob.builder().topK(20_000).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("k, phi and capacity: a report may list 20100 items (k + 1/phi)")
        .hasMessageContaining("more than the " + limit + " bytes").hasMessageContaining("lower k or raise phi");
    assertThatThrownBy(() -> HeavyHittersJob.builder().phi(1e-5).item(PacketItem.SRC_ADDRESS).build())
        .hasMessageContaining("100010 items");
    assertThatThrownBy(() -> HeavyHittersJob.builder().window(Duration.ofMinutes(1)).slide(Duration.ofSeconds(10))
        .capacity(50_000).build())
        .hasMessageContaining("50000 items (the capacity, in a sliding window)")
        .hasMessageContaining("lower the capacity");
    // the same capacity in tumbling windows lists at most k + 1/phi = 110 items: fine
    assertThat(HeavyHittersJob.builder().capacity(50_000).build().detector().capacity()).isEqualTo(50_000);
  }

  /**
   * The limit is the sinks' as configured by sinkProperty (max.request.size, buffer.memory), not Kafka's defaults:
   * a larger one admits a larger report, a smaller one refuses a report the default would take.
   */
  @Test
  void theLimitFollowsTheSinksConfiguredSizes() {
    assertThat(HeavyHittersJob.builder().sinkProperty("max.request.size", Integer.toString(8 << 20)).topK(20_000)
        .build().detector().k()).isEqualTo(20_000);
    assertThat(HeavyHittersJob.builder().topK(4_000).build().detector().k()).isEqualTo(4_000);
    assertThatThrownBy(() -> HeavyHittersJob.builder().sinkProperty("buffer.memory", Integer.toString(256 << 10))
        .topK(4_000).build())
        .hasMessageContaining("more than the " + ((256 << 10) - ExactlyOnceSink.RECORD_OVERHEAD) + " bytes");
  }

  /** The build checks against the sinks' own limit: the largest k that fits builds, one more does not. */
  @Test
  void theLimitIsTheSinksLargestValue() {
    int limit = JsonTopics.maxValueBytes();
    double phi = 0.5; // a report lists at most k + 2 items
    int k = 1;
    while (ReportSize.maxBytes(k + 1 + 2, PacketItem.FIVE_TUPLE, phi) <= limit) {
      k++;
    }
    assertThat(HeavyHittersJob.builder().phi(phi).topK(k).build().detector().k()).isEqualTo(k);
    int tooMany = k + 1;
    assertThatThrownBy(() -> HeavyHittersJob.builder().phi(phi).topK(tooMany).build())
        .hasMessageContaining((tooMany + 2) + " items");
    assertThat(k).as("about 200 bytes per five-tuple item in 1 MiB").isBetween(4_000, 6_000);
  }
}
