package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class HeavyHittersTest {

    private static final List<Supplier<HeavyHitters>> TRACKERS = List.of(
            () -> SpaceSaving.withCapacity(KeyKind.longs(), 500, 3),
            () -> CountMinHeap.create(KeyKind.longs(), 300, 1021, 4, true, 3));

    /** A byte item prints as its bytes (hex, as the operators render it), not as the array's identity. */
    @Test
    void aByteItemPrintsItsBytes() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.bytes(16), 10, 1);
        byte[] alice = "alice".getBytes(StandardCharsets.UTF_8);
        ss.update(alice, 0, alice.length, 3);
        ss.update(new byte[] {0, 15, -1}, 0, 3, 1);
        assertThat(ss.topK(2)).extracting(HeavyHitter::toString).containsExactly(
                "HeavyHitter[item=616c696365, estimate=3, lowerBound=3, upperBound=3]",
                "HeavyHitter[item=000fff, estimate=1, lowerBound=1, upperBound=1]");
        HeavyHitter longItem = new HeavyHitter(7L, 2, 1, 2);
        assertThat(longItem).hasToString("HeavyHitter[item=7, estimate=2, lowerBound=1, upperBound=2]");
    }

    /** Space-Saving's deterministic bounds (Metwally et al., Lemma 3 and Theorem 1). */
    @Test
    void spaceSavingBoundsHoldForEveryItem() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 200, 1);
        Map<Long, Long> truth = new HashMap<>();
        ZipfStream stream = new ZipfStream(50_000, 1.0, 1);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 300_000; i++) {
            long key = stream.key(stream.nextRank());
            long weight = 1 + random.nextInt(10);
            truth.merge(key, weight, Long::sum);
            ss.update(key, weight);
        }
        long n = ss.totalWeight();
        assertThat(ss.unmonitoredBound()).as("c_min <= N/m").isLessThanOrEqualTo(n / 200);
        List<HeavyHitter> all = ss.topK(200);
        assertThat(all).hasSize(200);
        for (HeavyHitter h : all) {
            assertThat(truth.get((Long) h.item())).isBetween(h.lowerBound(), h.upperBound());
        }
        for (Map.Entry<Long, Long> e : truth.entrySet()) {
            if (e.getValue() > ss.unmonitoredBound()) {
                assertThat(all.stream().anyMatch(h -> h.item().equals(e.getKey())))
                        .as("item heavier than c_min is monitored").isTrue();
            }
        }
    }

    @Test
    void adversarialAllDistinctKeysKeepMemoryAtItsBound() {
        for (Supplier<HeavyHitters> make : TRACKERS) {
            HeavyHitters t = make.get();
            long memory = t.memoryBytes();
            for (long i = 0; i < 500_000; i++) {
                t.update(i * 0x9E3779B97F4A7C15L, 1);
            }
            assertThat(t.memoryBytes()).isEqualTo(memory);
            assertThat(t.topK(10)).hasSize(10);
        }
        SpaceSaving bounded = SpaceSaving.withMemory(KeyKind.longs(), 64 * 1024, 1);
        assertThat(bounded.memoryBytes()).isLessThanOrEqualTo(64 * 1024)
                .isGreaterThan(64 * 1024 - MonitoredItems.bytesFor(KeyKind.longs(), 64, true));
    }

    @Test
    void mergeKeepsTheBoundsOfTheUnion() {
        for (Supplier<HeavyHitters> make : TRACKERS) {
            HeavyHitters a = make.get();
            HeavyHitters b = make.get();
            Map<Long, Long> truth = new HashMap<>();
            ZipfStream stream = new ZipfStream(20_000, 1.1, 9);
            for (int i = 0; i < 200_000; i++) {
                long key = stream.key(stream.nextRank());
                truth.merge(key, 1L, Long::sum);
                (i % 2 == 0 ? a : b).update(key, 1);
            }
            a.merge(b);
            assertThat(a.totalWeight()).isEqualTo(200_000);
            for (HeavyHitter h : a.topK(50)) {
                assertThat(truth.get((Long) h.item())).as(a.getClass().getSimpleName())
                        .isBetween(h.lowerBound(), h.upperBound());
            }
            long heaviest = truth.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(a.topK(1).get(0).upperBound()).isGreaterThanOrEqualTo(heaviest);
        }
    }

    /**
     * Two full CM-heaps of 2^17 candidates, half of them shared: the merge finds repeats by hash lookup (it
     * scanned every kept item per item, ~10 s here), and keeps the heaviest distinct items by merged estimate.
     */
    @Test
    void countMinHeapMergeOfLargeOverlappingSetsIsFastAndKeepsTheHeaviestDistinctItems() {
        int capacity = 1 << 17;
        CountMinHeap a = CountMinHeap.create(KeyKind.longs(), capacity, 1 << 16, 4, true, 11);
        CountMinHeap b = CountMinHeap.create(KeyKind.longs(), capacity, 1 << 16, 4, true, 11);
        SplittableRandom random = new SplittableRandom(11);
        for (long i = 0; i < capacity; i++) {
            a.update(i, 1 + random.nextInt(5));
            b.update(i + capacity / 2, 1 + random.nextInt(5));
        }
        java.util.Set<Long> union = new java.util.HashSet<>();
        a.topK(capacity).forEach(h -> union.add((Long) h.item()));
        b.topK(capacity).forEach(h -> union.add((Long) h.item()));
        assertThat(union).hasSize(capacity * 3 / 2);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> a.merge(b));
        List<HeavyHitter> merged = a.topK(capacity);
        assertThat(merged).hasSize(capacity);
        java.util.Set<Long> kept = new java.util.HashSet<>();
        long lightestKept = Long.MAX_VALUE;
        // plain checks in the loops over the 2^17 kept and 2^16 dropped items (an AssertJ assertion each was most
        // of this test's time)
        for (HeavyHitter h : merged) {
            if (!kept.add((Long) h.item())) {
                throw new AssertionError("item " + h.item() + " kept once");
            }
            long estimate = a.sketch().estimate((Long) h.item());
            if (h.upperBound() != estimate) {
                throw new AssertionError(h + ": upper bound is not the sketch's estimate " + estimate);
            }
            lightestKept = Math.min(lightestKept, h.upperBound());
        }
        for (long item : union) {
            if (!kept.contains(item)) {
                long estimate = a.sketch().estimate(item);
                if (estimate > lightestKept || estimate > a.unmonitoredBound()) {
                    throw new AssertionError("dropped item " + item + " has estimate " + estimate + ", above the"
                            + " lightest kept " + lightestKept + " or the unmonitored bound " + a.unmonitoredBound());
                }
            }
        }
        // merging a heap with itself keeps each item once
        CountMinHeap c = CountMinHeap.create(KeyKind.longs(), 8, 101, 3, true, 11);
        for (long i = 0; i < 5; i++) {
            c.update(i, 1);
        }
        c.merge(c);
        assertThat(c.topK(8)).hasSize(5).extracting(HeavyHitter::upperBound).containsOnly(2L);
    }

    @Test
    void fiveTupleAndByteStringKeysAreReportedBack() {
        SpaceSaving flows = SpaceSaving.withCapacity(KeyKind.fiveTuples(), 16, 1);
        FiveTuple v4 = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 443, 6);
        FiveTuple v6 = FiveTuple.ipv6(0x20010DB800000000L, 1, 0x20010DB800000000L, 2, 5353, 53, 17);
        flows.update(v4, 1500);
        flows.update(v6, 40);
        flows.update(v4, 60);
        assertThat(flows.topK(2).get(0)).isEqualTo(new HeavyHitter(v4, 1560, 1560, 1560));
        assertThat(flows.topK(2).get(1).item()).isEqualTo(v6);

        CountMinHeap names = CountMinHeap.create(KeyKind.bytes(32), 8, 101, 3, true, 1);
        byte[] buffer = "xxtenant-42yy".getBytes(StandardCharsets.UTF_8);
        names.update(buffer, 2, 9, 5);
        names.update("tenant-7".getBytes(StandardCharsets.UTF_8), 0, 8, 1);
        assertThat(new String((byte[]) names.topK(1).get(0).item(), StandardCharsets.UTF_8)).isEqualTo("tenant-42");
        assertThatThrownBy(() -> names.update(new byte[33], 0, 33, 1)).hasMessageContaining("maxBytes");
        assertThatThrownBy(() -> names.update(7L, 1)).hasMessageContaining("BYTES");
    }

    @Test
    void imagesRoundTrip() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.fiveTuples(), 64, 5);
        CountMinHeap cm = CountMinHeap.create(KeyKind.bytes(16), 32, 211, 3, true, 5);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 20_000; i++) {
            int r = (int) Math.min(999, 1 / Math.pow(random.nextDouble() + 1e-9, 1.0));
            ss.update(FiveTuple.ipv4(r, ~r, r & 0xFFFF, 80, 6), 1 + r % 3);
            cm.update(("k" + r).getBytes(StandardCharsets.UTF_8), 0, ("k" + r).length(), 1);
        }
        byte[] ssImage = ss.toByteArray();
        SpaceSaving ssBack = SpaceSaving.fromByteArray(ssImage);
        assertThat(ssBack.topK(64)).usingRecursiveComparison().isEqualTo(ss.topK(64));
        assertThat(ssBack.toByteArray()).isEqualTo(ssImage);
        byte[] cmImage = cm.toByteArray();
        CountMinHeap cmBack = CountMinHeap.fromByteArray(cmImage);
        assertThat(cmBack.topK(32)).usingRecursiveComparison().isEqualTo(cm.topK(32));
        assertThat(cmBack.unmonitoredBound()).isEqualTo(cm.unmonitoredBound());
        for (byte[] image : new byte[][] {ssImage, cmImage}) {
            for (int cut = 0; cut < image.length; cut += 53) {
                byte[] truncated = java.util.Arrays.copyOf(image, cut);
                assertThatThrownBy(() -> {
                    if (image == ssImage) {
                        SpaceSaving.fromByteArray(truncated);
                    } else {
                        CountMinHeap.fromByteArray(truncated);
                    }
                }).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void badInputNamesTheParameter() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 10, 1);
        assertThatThrownBy(() -> ss.update(1L, -1)).hasMessageContaining("weight");
        assertThatThrownBy(() -> ss.heavyHitters(0)).hasMessageContaining("phi");
        assertThatThrownBy(() -> ss.heavyHitters(1.5)).hasMessageContaining("phi");
        assertThatThrownBy(() -> ss.topK(-1)).hasMessageContaining("k");
        assertThatThrownBy(() -> SpaceSaving.withCapacity(KeyKind.longs(), 0, 1)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> KeyKind.bytes(0)).hasMessageContaining("maxBytes");
        assertThatThrownBy(() -> ss.merge(SpaceSaving.withCapacity(KeyKind.longs(), 11, 1)))
                .hasMessageContaining("capacity");
        assertThatThrownBy(() -> ss.merge(CountMinHeap.create(KeyKind.longs(), 10, 11, 2, false, 1)))
                .hasMessageContaining("CountMinHeap");
        CountMinHeap cm = CountMinHeap.create(KeyKind.longs(), 10, 101, 2, false, 1);
        assertThatThrownBy(() -> cm.merge(CountMinHeap.create(KeyKind.longs(), 10, 101, 2, false, 2)))
                .hasMessageContaining("seed");
    }

    /** lastEstimate is the updated item's upper bound right after the update; lastItemHash its h1. */
    @Test
    void lastEstimateAndHashDescribeTheLatestUpdate() {
        for (Supplier<HeavyHitters> make : TRACKERS) {
            HeavyHitters tracker = make.get();
            assertThat(tracker.lastEstimate()).isZero();
            Map<Long, Long> truth = new HashMap<>();
            ZipfStream stream = new ZipfStream(5_000, 1.1, 7);
            for (int i = 0; i < 20_000; i++) {
                long key = stream.key(stream.nextRank());
                truth.merge(key, 2L, Long::sum);
                tracker.update(key, 2);
                assertThat(tracker.lastEstimate()).as("an upper bound").isGreaterThanOrEqualTo(truth.get(key));
                long hash = tracker instanceof CountMinHeap cmh ? cmh.sketch().hasher().hash(key)
                        : io.linerate.sketches.hash.ItemHasher.seeded(3).hash(key);
                assertThat(tracker.lastItemHash()).isEqualTo(hash);
                HeavyHitter top = tracker.topK(1).get(0);
                if ((Long) top.item() == key) {
                    assertThat(tracker.lastEstimate()).isEqualTo(top.upperBound());
                }
            }
        }
    }
}
