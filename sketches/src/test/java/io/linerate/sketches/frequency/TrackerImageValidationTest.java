package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Tracker images that a correct writer never produces, built field by field: non-canonical keys (one item
 * encoded two ways, so it would be monitored twice) and CM-heap candidates whose counts exceed the sketch.
 */
class TrackerImageValidationTest {

    private static final long SEED = 7;

    /** A Space-Saving image with the given entries: each the key's longs, then count and error. */
    private static byte[] spaceSaving(KeyKind kind, long[]... entries) {
        return TrackerImages.spaceSaving(kind, 16, SEED, 100, entries); // equal counts: slot order is a valid heap
    }

    /** A CM-heap image over {@code sketch} with the given candidates (key longs, count, error). */
    private static byte[] countMinHeap(KeyKind kind, long bound, CountMinSketch sketch, long[]... candidates) {
        return TrackerImages.countMinHeap(kind, 16, bound, sketch, candidates);
    }

    /** The stored form of a byte-string key, then count and error. */
    private static long[] bytesEntry(KeyKind kind, String key, long count, long error) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        long[] e = new long[kind.width() + 2];
        kind.encode(b, 0, b.length, e, 0);
        e[kind.width()] = count;
        e[kind.width() + 1] = error;
        return e;
    }

    private static long[] tupleEntry(FiveTuple t, long count) {
        long[] e = new long[7];
        KeyKind.encode(t, e, 0);
        e[5] = count;
        return e;
    }

    @Test
    void canonicalKeysStillRead() {
        KeyKind bytes = KeyKind.bytes(16);
        SpaceSaving ss = SpaceSaving.fromByteArray(spaceSaving(bytes, bytesEntry(bytes, "ab", 3, 0),
                bytesEntry(bytes, "", 3, 0), bytesEntry(bytes, "0123456789abcdef", 3, 0)));
        assertThat(ss.topK(3)).hasSize(3);
        FiveTuple v4 = FiveTuple.ipv4(0x80000001, 0xFFFFFFFF, 65535, 0, 255);
        FiveTuple v6 = FiveTuple.ipv6(-1, -1, -1, -1, 65535, 65535, 255);
        SpaceSaving flows = SpaceSaving.fromByteArray(spaceSaving(KeyKind.fiveTuples(), tupleEntry(v4, 2),
                tupleEntry(v6, 2)));
        assertThat(flows.topK(2)).extracting(HeavyHitter::item).containsExactlyInAnyOrder(v4, v6);
    }

    @Test
    void byteStringKeyWhoseLengthWordHasHighBitsIsRejected() {
        // (int) 0x1_0000_0002 == 2: the same "ab" as entry 0, but a different stored key, so it was monitored twice
        KeyKind kind = KeyKind.bytes(16);
        long[] twin = bytesEntry(kind, "ab", 3, 0);
        twin[0] = (1L << 32) | 2;
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(spaceSaving(kind, bytesEntry(kind, "ab", 3, 0), twin)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: entry 1 has key length 4294967298, not in [0, maxBytes=16]");
        long[] negative = bytesEntry(kind, "ab", 3, 0);
        negative[0] = -1;
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(spaceSaving(kind, negative)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entry 0 has key length -1");
    }

    @Test
    void byteStringKeyWithNonZeroPaddingIsRejected() {
        KeyKind kind = KeyKind.bytes(16);
        for (int word = 1; word <= 2; word++) {
            long[] padded = bytesEntry(kind, "ab", 3, 0);
            padded[word] |= 0x7FL << 40; // a byte past the length (in the key's word, or the unused next one)
            assertThatThrownBy(() -> SpaceSaving.fromByteArray(spaceSaving(kind, bytesEntry(kind, "ab", 3, 0),
                    padded))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("image corrupt: entry 1 has a non-canonical BYTES(16) key (non-zero bytes past its length)");
        }
    }

    @Test
    void fiveTupleKeyWithUnusedBitsOrABadVersionIsRejected() {
        FiveTuple v4 = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 443, 6);
        FiveTuple v6 = FiveTuple.ipv6(0x20010DB800000000L, 1, 0x20010DB800000000L, 2, 5353, 53, 17);
        long[][] bad = new long[5][];
        bad[0] = tupleEntry(v4, 2);
        bad[0][0] = 1;                 // IPv4: source high word unused
        bad[1] = tupleEntry(v4, 2);
        bad[1][3] |= 1L << 40;         // IPv4: high half of the destination word unused
        bad[2] = tupleEntry(v4, 2);
        bad[2][2] = -1;                // IPv4: destination high word unused
        bad[3] = tupleEntry(v4, 2);
        bad[3][4] |= 1L << 50;         // bits above the source port
        bad[4] = tupleEntry(v6, 2);
        bad[4][4] |= 1L << 63;
        for (long[] entry : bad) {
            assertThatThrownBy(() -> SpaceSaving.fromByteArray(spaceSaving(KeyKind.fiveTuples(), tupleEntry(v4, 2),
                    tupleEntry(v6, 2), entry))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("image corrupt: entry 2 has a non-canonical FIVE_TUPLE key (unused address or port bits set)");
        }
        for (int version : new int[] {0, 5, 7, 0xFF}) {
            long[] entry = tupleEntry(v4, 2);
            entry[4] = entry[4] & ~0xFFL | version;
            assertThatThrownBy(() -> SpaceSaving.fromByteArray(spaceSaving(KeyKind.fiveTuples(), entry)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("image corrupt: entry 0 has IP version byte " + version + " in its 5-tuple key, not 4 or 6");
        }
    }

    @Test
    void countMinHeapRejectsNonCanonicalKeysToo() {
        KeyKind kind = KeyKind.bytes(8);
        CountMinSketch sketch = CountMinSketch.withShape(101, 3, SEED, RowIndexing.FULL_WIDTH, true);
        byte[] ab = "ab".getBytes(StandardCharsets.UTF_8);
        sketch.update(ab, 0, 2, 5);
        long[] twin = bytesEntry(kind, "ab", 5, 0);
        twin[0] = (1L << 40) | 2;
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(countMinHeap(kind, 0, sketch,
                bytesEntry(kind, "ab", 5, 0), twin))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: candidate 1 has key length 1099511627778, not in [0, maxBytes=8]");
        long[] padded = bytesEntry(kind, "ab", 5, 0);
        padded[1] |= 1L << 62;
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(countMinHeap(kind, 0, sketch, padded)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("image corrupt: candidate 0 has a non-canonical BYTES(8) key");
    }

    @Test
    void countMinHeapCandidateAboveTheSketchEstimateIsRejected() {
        KeyKind kind = KeyKind.longs();
        CountMinSketch sketch = CountMinSketch.withShape(101, 3, SEED, RowIndexing.FULL_WIDTH, true);
        sketch.update(42L, 5);
        long estimate = sketch.estimate(42L);
        CountMinHeap ok = CountMinHeap.fromByteArray(countMinHeap(kind, 0, sketch, new long[] {42, estimate, 2}));
        assertThat(ok.topK(1).get(0)).isEqualTo(new HeavyHitter(42L, estimate, estimate - 2, estimate));
        // count 6 > estimate 5: topK reported lower bound 6 > upper bound 5, and an update lowered the count
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(countMinHeap(kind, 0, sketch,
                new long[] {42, estimate + 1, 0}))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: candidate 0 has count " + (estimate + 1) + ", above the sketch's estimate "
                        + estimate + " of its item");
    }

    @Test
    void countMinHeapUnmonitoredBoundAboveTheTotalWeightIsRejected() {
        CountMinSketch sketch = CountMinSketch.withShape(101, 3, SEED, RowIndexing.FULL_WIDTH, true);
        sketch.update(42L, 5);
        assertThat(CountMinHeap.fromByteArray(countMinHeap(KeyKind.longs(), 5, sketch)).unmonitoredBound())
                .isEqualTo(5);
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(countMinHeap(KeyKind.longs(), 6, sketch)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: unmonitoredBound 6 is above the sketch's total weight 5");
    }

    /** No counter exceeds the weight counted: a count above totalWeight would report a lower bound above N. */
    @Test
    void spaceSavingCountAboveTheTotalWeightIsRejected() {
        assertThat(SpaceSaving.fromByteArray(TrackerImages.spaceSaving(KeyKind.longs(), 4, SEED, 1000,
                new long[] {7, 1000, 0})).topK(1).get(0).lowerBound()).isEqualTo(1000);
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(TrackerImages.spaceSaving(KeyKind.longs(), 4, SEED, 999,
                new long[] {7, 1000, 0}))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: entry 0 has count 1000, error 0 (expected 0 ≤ error ≤ count ≤ totalWeight"
                        + " 999)");
    }

    /** Weights past Long.MAX_VALUE saturate; the CM-heap's bounds stay ordered and its image reads back. */
    @Test
    void countMinHeapBoundsSaturateInsteadOfWrapping() {
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 2, 1009, 4, false, SEED);
        h.update(1L, 1L << 62);
        h.update(1L, 1L << 62);
        h.update(1L, 1L << 62);
        HeavyHitter top = h.topK(1).get(0);
        assertThat(top.lowerBound()).isEqualTo(Long.MAX_VALUE);
        assertThat(top.upperBound()).isEqualTo(Long.MAX_VALUE);
        assertThat(CountMinHeap.fromByteArray(h.toByteArray()).topK(1)).isEqualTo(h.topK(1));

        long x = 3L << 61; // two turned-away items of weight x: their bounds sum past Long.MAX_VALUE
        CountMinHeap a = CountMinHeap.create(KeyKind.longs(), 1, 1009, 4, false, SEED);
        CountMinHeap b = CountMinHeap.create(KeyKind.longs(), 1, 1009, 4, false, SEED);
        for (CountMinHeap t : new CountMinHeap[] {a, b}) {
            t.update(1L, x);
            t.update(2L, x);
        }
        a.merge(b);
        assertThat(a.unmonitoredBound()).isEqualTo(Long.MAX_VALUE);
        assertThat(a.isComplete(0.8)).isFalse();
    }
}
