package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The trackers at their edges: φ·N thresholds at totals beyond 2^53, images that no writer produces. */
class TrackerThresholdAndImageEdgesTest {

    /** The exact real-number product φ·N (φ's double value times N), for the test's own checks. */
    private static BigDecimal exactPhiN(double phi, long n) {
        return new BigDecimal(phi).multiply(BigDecimal.valueOf(n));
    }

    /**
     * Space-Saving with 2 counters, φ > 1/2: an item of weight c ≥ φN is monitored with count c, yet heavyHitters(φ)
     * left it out, because the threshold φ·N was computed in doubles (N rounded up to a double, the product rounded
     * again) and compared with c rounded down to a double. N ≈ 1.8·10^16 (above 2^53).
     */
    @Test
    void spaceSavingHeavyHittersKeepsAnItemOfWeightPhiNAtTotalsAbove2To53() {
        long n = 18014398509743127L;
        double phi = 0.505297573884809;
        long c = 9102631861967321L;
        assertThat(BigDecimal.valueOf(c).compareTo(exactPhiN(phi, n))).as("c ≥ φN").isGreaterThanOrEqualTo(0);
        assertThat(phi).isGreaterThan(1.0 / 2);
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 2, 1);
        ss.update(1L, c);
        ss.update(2L, n - c);
        assertThat(ss.totalWeight()).isEqualTo(n);
        assertThat(ss.topK(2)).extracting(HeavyHitter::item).contains(1L);
        assertThat(ss.heavyHitters(phi)).extracting(HeavyHitter::item).as("weight %d ≥ φN", c).contains(1L);
    }

    /**
     * CM-heap with one candidate: item 1 (weight b) is displaced by item 2, so unmonitoredBound = b exactly and item 1
     * is outside the set. b ≥ φN exactly, so heavyHitters(φ) misses an item of weight ≥ φN and the answer is not
     * complete; isComplete(φ) said it was (φ·N in doubles rounds above b).
     */
    /**
     * φ is the decimal the caller wrote: 0.05 of 2000 is 100, so an item of weight 100 is a heavy hitter. (At the
     * binary value of the double 0.05, 0.05000000000000000277…, the exact threshold would be 101.)
     */
    @Test
    void phiIsTakenAtItsDecimalValue() {
        assertThat(HeavyHitters.ceilPhiN(0.05, 2000)).isEqualTo(100);
        assertThat(HeavyHitters.ceilPhiN(0.1, 30)).isEqualTo(3); // 0.1 * 30 is 3.0000000000000004 in doubles
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 64, 1);
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 64, 1009, 4, true, 1);
        for (HeavyHitters t : new HeavyHitters[] {ss, h}) {
            t.update(7L, 3);
            for (long i = 100; i < 127; i++) {
                t.update(i, 1);
            }
            assertThat(t.totalWeight()).isEqualTo(30);
            assertThat(t.heavyHitters(0.1)).as("%s", t.getClass().getSimpleName()).extracting(HeavyHitter::item)
                    .contains(7L);
        }
    }

    @Test
    void countMinHeapIsCompleteIsNotClaimedWhenAnItemOutsideWeighsPhiN() {
        long n = 18014398509962958L;
        double phi = 0.39982993677476497;
        long b = 7202695817273910L;
        assertThat(BigDecimal.valueOf(b).compareTo(exactPhiN(phi, n))).as("b ≥ φN").isGreaterThanOrEqualTo(0);
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 1, 1009, 4, true, 1);
        h.update(1L, b);
        h.update(2L, n - b);
        assertThat(h.unmonitoredBound()).isEqualTo(b);
        assertThat(h.heavyHitters(phi)).extracting(HeavyHitter::item).doesNotContain(1L);
        assertThat(h.isComplete(phi)).as("item 1 of weight %d ≥ φN is missed", b).isFalse();
    }

    /** The CM-heap's heavyHitters(φ) has the same double threshold as Space-Saving's. */
    @Test
    void countMinHeapHeavyHittersKeepsACandidateOfWeightPhiNAtTotalsAbove2To53() {
        long n = 18014398509743127L;
        double phi = 0.505297573884809;
        long c = 9102631861967321L;
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 2, 1009, 4, true, 1);
        h.update(1L, c);
        h.update(2L, n - c);
        assertThat(h.topK(2)).extracting(HeavyHitter::upperBound).contains(c);
        assertThat(h.heavyHitters(phi)).extracting(HeavyHitter::item).as("weight %d ≥ φN", c).contains(1L);
    }

    /**
     * An image declaring a capacity that {@link SpaceSaving#checkCapacity} refuses (5-tuple keys, 2^26 counters: a
     * full image of about 4 GB) was read: the tracker ran, and would fail every checkpoint once it monitored about 36
     * million items. withCapacity refuses the same capacity.
     */
    @Test
    void spaceSavingImageDeclaringACapacityNoTrackerCanHaveIsRefused() {
        KeyKind tuples = KeyKind.fiveTuples();
        int capacity = SpaceSaving.MAX_CAPACITY;
        assertThatThrownBy(() -> SpaceSaving.checkCapacity(tuples, capacity)).isInstanceOf(IllegalArgumentException.class);
        byte[] image = TrackerImages.spaceSaving(tuples, capacity, 1, 0);
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity " + capacity);
    }

    /** The same for a CM-heap: its capacity with its sketch must pass checkShape, as create and over require. */
    @Test
    void countMinHeapImageDeclaringACapacityNoTrackerCanHaveIsRefused() {
        KeyKind tuples = KeyKind.fiveTuples();
        int capacity = SpaceSaving.MAX_CAPACITY;
        CountMinSketch sketch = CountMinSketch.withShape(101, 3, 1, RowIndexing.MIXED_32, true);
        assertThatThrownBy(() -> CountMinHeap.checkShape(tuples, capacity, new CountMinSketch.Size(101, 3)))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] image = TrackerImages.countMinHeap(tuples, capacity, 0, sketch);
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity " + capacity);
    }

    /**
     * The index is documented as the smallest power of two that keeps it at most 70% full; when ⌈capacity/0.7⌉ is
     * itself a power of two (capacity 1, 5, 11, 22, 89, 179, 358, 1433, 2867, ...: at most one per power of two) it
     * was twice that (1433 slots got 4096 index entries for 2048 at 69.97%), and memoryBytes with it.
     */
    @Test
    void theIndexIsTheSmallestPowerOfTwoAtMostSeventyPercentFull() {
        for (int capacity = 1; capacity <= 1 << 20; capacity++) {
            int t = MonitoredItems.tableSize(capacity);
            assertThat(Integer.bitCount(t)).isEqualTo(1);
            assertThat((double) capacity / t).as("capacity %d, table %d", capacity, t)
                    .isLessThanOrEqualTo(MonitoredItems.MAX_LOAD);
            if (t > 2) {
                assertThat((double) capacity / (t / 2)).as("capacity %d: table %d, half of it would do", capacity, t)
                        .isGreaterThan(MonitoredItems.MAX_LOAD);
            }
        }
    }

    /**
     * The maxBytes field of a tracker image is 8 for long keys and 40 for 5-tuples, as every writer writes it; any
     * other value was read without a word (the field ignored) and written back as 8 or 40, so the image read and the
     * image written differed: an inconsistent field accepted, unlike the non-canonical keys the readers refuse.
     */
    @Test
    void trackerImagesWithAMaxBytesFieldThatIsNotTheKeyKindsAreRefused() {
        long[] entry = {42L, 5, 0};
        byte[] longsAs1 = TrackerImages.spaceSaving(KeyKind.longs(), 16, 1, 5, entry);
        java.nio.ByteBuffer.wrap(longsAs1).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(20, 1); // maxBytes
        byte[] image = fixCrc(longsAs1);
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes");
        CountMinHeap fed = CountMinHeap.create(KeyKind.fiveTuples(), 4, 101, 3, true, 1);
        byte[] heap = fed.toByteArray();
        java.nio.ByteBuffer.wrap(heap).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(12, 1024); // maxBytes
        byte[] heapImage = fixCrc(heap);
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(heapImage)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes");
    }

    private static byte[] fixCrc(byte[] image) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(image, 0, image.length - 4);
        java.nio.ByteBuffer.wrap(image).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(image.length - 4,
                (int) crc.getValue());
        return image;
    }
}
