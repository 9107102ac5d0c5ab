package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Trackers read from an image allocate counters for the image's entries only and grow to their capacity as new
 * items arrive ({@link MonitoredItems}): a hostile image declaring 2²⁶ counters reads with a small allocation, and
 * a read tracker is indistinguishable from the tracker that wrote the image (same answers, same images byte for
 * byte) while it grows, once it is full and evicting, and through merges.
 */
class TrackerGrowthTest {

    private static final int CAPACITY = 300;
    private static final List<KeyKind> KINDS = List.of(KeyKind.longs(), KeyKind.fiveTuples(), KeyKind.bytes(24));

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** Feeds the item that {@code key} stands for in {@code kind}: the long, a 5-tuple or a byte string of it. */
    static void feed(HeavyHitters t, KeyKind kind, long key, long weight) {
        switch (kind.type()) {
            case LONG:
                t.update(key, weight);
                break;
            case FIVE_TUPLE:
                t.update((key & 1) == 0 ? FiveTuple.ipv4((int) key, (int) (key >>> 32), (int) (key >>> 16) & 0xFFFF,
                        443, 6) : FiveTuple.ipv6(key, ~key, key * 31, 7, (int) key & 0xFFFF, 53, 17), weight);
                break;
            default: { // the key's 8 bytes, then up to 16 more: one string per key
                byte[] b = new byte[8 + (int) Long.remainderUnsigned(key, 17)];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) (key >>> ((i & 7) * 8) ^ (i >>> 3));
                }
                t.update(b, 0, b.length, weight);
            }
        }
    }

    static HeavyHitters create(boolean spaceSaving, KeyKind kind, int capacity, long seed) {
        return spaceSaving ? SpaceSaving.withCapacity(kind, capacity, seed)
                : CountMinHeap.create(kind, capacity, 211, 3, true, seed);
    }

    static HeavyHitters read(HeavyHitters t, byte[] image) {
        return t instanceof SpaceSaving ? SpaceSaving.fromByteArray(image) : CountMinHeap.fromByteArray(image);
    }

    private static long capacityBytes(KeyKind kind, int capacity) {
        return SpaceSaving.bytesFor(kind, capacity);
    }

    /** Zipf 1.1 over 5,000 keys for even seeds, uniform over 2,000 keys for odd ones; weights 1–5. */
    private static LongSupplier[] stream(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ZipfStream zipf = new ZipfStream(5_000, 1.1, seed);
        LongSupplier key = seed % 2 == 0 ? () -> zipf.key(zipf.nextRank())
                : () -> random.nextInt(2_000) * 0x9E3779B97F4A7C15L + seed;
        LongSupplier weight = () -> 1 + random.nextInt(5);
        return new LongSupplier[] {key, weight};
    }

    /** The reported items in order, byte-string items by content. */
    private static List<String> render(List<HeavyHitter> hitters) {
        return hitters.stream().map(h -> (h.item() instanceof byte[] b ? Arrays.toString(b) : h.item()) + " "
                + h.estimate() + " " + h.lowerBound() + " " + h.upperBound()).toList();
    }

    private static void assertSame(HeavyHitters read, HeavyHitters original, String what) {
        assertThat(read.toByteArray()).as(what + ": image").isEqualTo(original.toByteArray());
        assertThat(render(read.topK(CAPACITY))).as(what + ": topK").isEqualTo(render(original.topK(CAPACITY)));
        assertThat(render(read.heavyHitters(0.01))).as(what + ": heavyHitters")
                .isEqualTo(render(original.heavyHitters(0.01)));
        assertThat(read.totalWeight()).as(what + ": N").isEqualTo(original.totalWeight());
    }

    /**
     * For several seeds, both stream shapes, every key kind and both trackers: a tracker read from the image of a
     * partly filled one and fed the rest of the stream (growing past its initial slots, reaching its capacity, then
     * evicting) answers and writes exactly what the original fed the same stream writes — after every update's
     * estimate, at checkpoints along the way, and after a second round trip in the middle.
     */
    @Test
    void aReadTrackerGrowsIntoExactlyTheOriginal() {
        for (long seed = 1; seed <= 4; seed++) {
            for (KeyKind kind : KINDS) {
                for (boolean spaceSaving : new boolean[] {true, false}) {
                    for (int cut : new int[] {0, 40, 150}) {
                        String what = (spaceSaving ? "SpaceSaving " : "CountMinHeap ") + kind + " seed " + seed
                                + " cut " + cut;
                        LongSupplier[] s = stream(seed);
                        HeavyHitters original = create(spaceSaving, kind, CAPACITY, seed);
                        for (int i = 0; i < cut; i++) {
                            feed(original, kind, s[0].getAsLong(), s[1].getAsLong());
                        }
                        HeavyHitters read = read(original, original.toByteArray());
                        assertSame(read, original, what + " right after the read");
                        assertThat(read.memoryBytes()).as(what + ": allocated for the image, not the capacity")
                                .isLessThan(original.memoryBytes());
                        long memory = read.memoryBytes();
                        for (int i = 0; i < 6_000; i++) {
                            long key = s[0].getAsLong();
                            long weight = s[1].getAsLong();
                            feed(original, kind, key, weight);
                            feed(read, kind, key, weight);
                            if (read.lastEstimate() != original.lastEstimate()) {
                                assertThat(read.lastEstimate()).as(what + ", update " + i)
                                        .isEqualTo(original.lastEstimate());
                            }
                            long now = read.memoryBytes();
                            if (now < memory || now > original.memoryBytes()) {
                                assertThat(now).as(what + ": memory grows, up to the original's").isBetween(memory,
                                        original.memoryBytes());
                            }
                            memory = now;
                            if (i % 2_000 == 1_999) {
                                assertSame(read, original, what + " after " + (i + 1) + " more updates");
                            }
                            if (i == 2_500) {
                                read = read(read, read.toByteArray()); // again, now full or nearly so
                                memory = read.memoryBytes();
                            }
                        }
                        assertThat(original.topK(CAPACITY)).as(what + ": the stream filled the tracker")
                                .hasSize(CAPACITY);
                        assertThat(read.memoryBytes()).as(what + ": grown to its capacity")
                                .isEqualTo(original.memoryBytes());
                    }
                }
            }
        }
    }

    /**
     * Merges of read trackers (whose merged set is sized for its items and grows afterwards) and of a tracker
     * created new with a read one give the same trackers as merges of the originals, also after more updates;
     * a tracker created new keeps its memory through a merge.
     */
    @Test
    void mergesOfReadTrackersEqualMergesOfTheOriginals() {
        for (long seed = 1; seed <= 4; seed++) {
            for (KeyKind kind : KINDS) {
                for (boolean spaceSaving : new boolean[] {true, false}) {
                    // 60 + 60 updates: the merge holds fewer than the capacity; 400 + 400: more (some dropped)
                    for (int part : new int[] {60, 400}) {
                        String what = (spaceSaving ? "SpaceSaving " : "CountMinHeap ") + kind + " seed " + seed
                                + " part " + part;
                        LongSupplier[] s = stream(seed);
                        HeavyHitters a = create(spaceSaving, kind, CAPACITY, seed);
                        HeavyHitters b = create(spaceSaving, kind, CAPACITY, seed);
                        for (int i = 0; i < part; i++) {
                            feed(a, kind, s[0].getAsLong(), s[1].getAsLong());
                            feed(b, kind, s[0].getAsLong() + 1, s[1].getAsLong());
                        }
                        byte[] aImage = a.toByteArray();
                        byte[] bImage = b.toByteArray();
                        // read + read, and a new tracker merging both read trackers
                        HeavyHitters bothRead = read(a, aImage);
                        bothRead.merge(read(b, bImage));
                        HeavyHitters newWithRead = create(spaceSaving, kind, CAPACITY, seed);
                        newWithRead.merge(read(a, aImage));
                        newWithRead.merge(read(b, bImage));
                        // the same merges of the originals
                        HeavyHitters newWithOriginals = create(spaceSaving, kind, CAPACITY, seed);
                        long memory = newWithOriginals.memoryBytes();
                        newWithOriginals.merge(a);
                        newWithOriginals.merge(b);
                        assertThat(newWithOriginals.memoryBytes()).as(what + ": a new tracker keeps its arrays")
                                .isEqualTo(memory);
                        HeavyHitters original = a;
                        original.merge(b);
                        assertThat(original.memoryBytes()).as(what + ": a new tracker keeps its arrays")
                                .isEqualTo(memory);
                        assertSame(bothRead, original, what + " after merging read trackers");
                        assertSame(newWithRead, newWithOriginals, what + " after merging read trackers into a new one");
                        if (part == 60) {
                            assertThat(bothRead.memoryBytes()).as(what + ": merged set sized for its items")
                                    .isLessThan(original.memoryBytes());
                        }
                        for (int i = 0; i < 4_000; i++) {
                            long key = s[0].getAsLong();
                            long weight = s[1].getAsLong();
                            feed(original, kind, key, weight);
                            feed(bothRead, kind, key, weight);
                            feed(newWithRead, kind, key, weight);
                            feed(newWithOriginals, kind, key, weight);
                        }
                        assertSame(bothRead, original, what + " after merging read trackers and updates");
                        assertSame(newWithRead, newWithOriginals, what + " after merging into a new one and updates");
                        assertThat(bothRead.memoryBytes()).isEqualTo(original.memoryBytes());
                        // and once more: a grown read tracker merged with a read copy of itself
                        HeavyHitters self = read(original, original.toByteArray());
                        self.merge(read(original, original.toByteArray()));
                        original.merge(read(original, original.toByteArray()));
                        assertSame(self, original, what + " after a self merge");
                    }
                }
            }
        }
    }


    /** The image with its capacity field (at {@code at}) set to {@code capacity} and the CRC32C recomputed. */
    private static byte[] withCapacity(byte[] image, int at, int capacity) {
        byte[] out = image.clone();
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at, capacity);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(out, 0, out.length - 4);
        b.putInt(out.length - 4, (int) crc.getValue());
        return out;
    }

    /**
     * The largest capacity a tracker of {@code kind} over a 101 x 3 sketch may have ({@link CountMinHeap#checkShape},
     * which also bounds {@link SpaceSaving#checkCapacity}): {@link SpaceSaving#MAX_CAPACITY} for long keys, less for
     * wider keys, whose full image would not fit one image.
     */
    private static int largestReadableCapacity(KeyKind kind) {
        CountMinSketch.Size sketch = new CountMinSketch.Size(101, 3);
        int lo = 1;
        int hi = SpaceSaving.MAX_CAPACITY;
        while (lo < hi) {
            int mid = (int) (((long) lo + hi + 1) / 2);
            if (CountMinHeap.fullImageBytes(kind, mid, sketch) <= io.linerate.sketches.image.ImageWriter.MAX_IMAGE_BYTES) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Images of a few dozen bytes declaring the largest capacity a tracker may have (2²⁶ counters for long keys;
     * about 36 million for 5-tuples, beyond which a full tracker's image would not fit one image and the read is
     * refused), with 0 or 1 entries: each reads with an allocation of a few kilobytes (creating such a tracker
     * allocates over 2.5 GB), and the tracker then counts exactly while it grows, as any tracker that is not full
     * does: its image after 500 distinct items is that of a new tracker of capacity 1,000 fed the same, but for the
     * capacity field.
     */
    @Test
    void anImageDeclaringTheMaximumCapacityReadsWithASmallAllocation() {
        for (KeyKind kind : KINDS) {
            int huge = largestReadableCapacity(kind);
            assertThat(capacityBytes(kind, huge)).as("what creating the tracker would allocate")
                    .isGreaterThan(2_500_000_000L);
            long[] entry = new long[kind.width() + 2];
            SpaceSaving probe = SpaceSaving.withCapacity(kind, 1, 3);
            feed(probe, kind, 42, 5);
            System.arraycopy(encoded(kind, probe), 0, entry, 0, kind.width());
            entry[kind.width()] = 5;
            for (boolean oneEntry : new boolean[] {false, true}) {
                for (boolean spaceSaving : new boolean[] {true, false}) {
                    // the sketch of a CM-heap (seed 3) that counted item 42 with weight 5, or nothing
                    CountMinHeap fed = CountMinHeap.create(kind, 1, 101, 3, true, 3);
                    if (oneEntry) {
                        feed(fed, kind, 42, 5);
                    }
                    long[][] entries = oneEntry ? new long[][] {entry} : new long[0][];
                    byte[] image = spaceSaving ? TrackerImages.spaceSaving(kind, huge, 3, oneEntry ? 5 : 0, entries)
                            : TrackerImages.countMinHeap(kind, huge, 0, fed.sketch(), entries);
                    String what = (spaceSaving ? "SpaceSaving " : "CountMinHeap ") + kind
                            + (oneEntry ? ", one entry" : ", empty") + ", image of " + image.length + " bytes";
                    if (spaceSaving) {
                        SpaceSaving.fromByteArray(image); // class loading and JIT out of the measurement
                    } else {
                        CountMinHeap.fromByteArray(image);
                    }
                    long before = allocatedBytes();
                    HeavyHitters read = spaceSaving ? SpaceSaving.fromByteArray(image)
                            : CountMinHeap.fromByteArray(image);
                    long allocated = allocatedBytes() - before;
                    assertThat(allocated).as(what + ": bytes allocated by the read").isLessThan(256L << 10);
                    assertThat(read.memoryBytes()).as(what).isLessThan(256L << 10);
                    assertThat(read instanceof SpaceSaving ss ? ss.capacity() : ((CountMinHeap) read).capacity())
                            .isEqualTo(huge);

                    // the same state in a tracker of capacity 1,000, created new
                    HeavyHitters small = spaceSaving ? SpaceSaving.withCapacity(kind, 1_000, 3)
                            : CountMinHeap.create(kind, 1_000, 101, 3, true, 3);
                    Map<Long, Long> truth = new HashMap<>();
                    if (oneEntry) {
                        feed(small, kind, 42, 5);
                        truth.put(42L, 5L);
                    }
                    assertThat(withCapacity(image, spaceSaving ? 24 : 16, 1_000)).as(what + ": the image built")
                            .isEqualTo(small.toByteArray());
                    for (long key = 0; key < 500; key++) {
                        long k = key * 0x9E3779B97F4A7C15L;
                        for (int r = 0; r <= key % 3; r++) {
                            feed(read, kind, k, 2);
                            feed(small, kind, k, 2);
                            truth.merge(k, 2L, Long::sum);
                        }
                    }
                    assertThat(read.memoryBytes()).as(what + ": grown, far below the capacity's")
                            .isLessThan(capacityBytes(kind, 4_096));
                    List<HeavyHitter> top = read.topK(1_000);
                    assertThat(top).hasSize(truth.size());
                    if (spaceSaving) { // a Space-Saving tracker that is not full counts exactly
                        for (HeavyHitter h : top) {
                            assertThat(h.lowerBound()).as(what).isEqualTo(h.upperBound());
                        }
                        assertThat(((SpaceSaving) read).unmonitoredBound()).isZero();
                        assertThat(top.get(0).estimate()).isEqualTo(6);
                        assertThat(top.stream().mapToLong(HeavyHitter::estimate).sum())
                                .isEqualTo(truth.values().stream().mapToLong(Long::longValue).sum());
                    } else {
                        assertThat(((CountMinHeap) read).unmonitoredBound()).isZero();
                    }
                    assertThat(render(read.topK(1_000))).isEqualTo(render(small.topK(1_000)));
                    byte[] readImage = read.toByteArray();
                    byte[] smallImage = small.toByteArray();
                    assertThat(withCapacity(readImage, spaceSaving ? 24 : 16, 1_000)).as(what)
                            .isEqualTo(smallImage);
                }
            }
        }
    }

    /** The stored key of the only item of {@code t}. */
    private static long[] encoded(KeyKind kind, SpaceSaving t) {
        byte[] image = t.toByteArray();
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        long[] key = new long[kind.width()];
        for (int i = 0; i < key.length; i++) {
            key[i] = b.getLong(48 + 8 * i);
        }
        return key;
    }
}
