package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.Arrays;

/**
 * A Count-Min sketch laid out for the cache, in the manner of Caffeine's {@code FrequencySketch}: B blocks of 16
 * 32-bit counters (64 bytes each). Each 32-bit half of an item's one 64-bit hash h1 is mapped by multiply-shift onto
 * [0, 64·B): the quotient by 64 is a block, the remainder's two octal digits pick one counter in each half of 8 of
 * that block. Two lines, the two halves, so four counters in two different blocks (when both halves pick the same
 * block, the second line takes the next one): an update or a query touches two 64-byte runs of memory and computes
 * two multiply-shifts instead of d row indexes. Java does not align arrays to cache lines (the array's header is 16
 * bytes): every block starts at the same offset in a line, usually not 0, and then every block straddles two lines: up
 * to four lines per item, in two pairs of neighbours. Update adds the
 * weight to the four counters; the estimate is the smallest of them, never below the true weight. The layout needs
 * h1 only ({@link ItemHasher#h2} would add no bits), so the hash-level methods are {@link #updateHash} and
 * {@link #estimateHash}.
 *
 * <p><b>Guarantee.</b> For an item x let M<sub>L</sub> be the weight of the other items that chose x's block of line
 * L (E[M<sub>L</sub>] ≤ 2N/B). Given the block choices, and taking the two halves of h1 as independent uniform
 * hashes, each of x's four counters receives each such item with probability 1/8, independently across the four
 * counters (they depend on different digits or halves of the other items' hashes), so by Markov's inequality per
 * counter Pr(all four exceed x's weight by more than εN | blocks) ≤ (M<sub>1</sub>M<sub>2</sub>)²/(8εN)⁴,
 * and with Markov on M<sub>1</sub> and M<sub>2</sub> at t = c·8εN:
 * Pr(â &gt; a + εN) ≤ 1/(2Bεc) + c⁴, minimised at c = (8Bε)<sup>−1/5</sup>, which gives
 * {@link #failureProbability(double) 5·(8Bε)<sup>−4/5</sup>}. That bound is much weaker than
 * {@link CountMinSketch}'s (2/(εw))<sup>d</sup> for the same memory: a block confines an item's counters, so an
 * item sharing a block with a heavy one is exposed to it in four counters instead of d independent rows. Measured on
 * a skewed stream the typical (median, mean) errors are a quarter of the row-major sketch's at the same memory,
 * because 32-bit counters give twice as many, while the largest error was 2.7 times as large
 * (docs/BENCHMARKS.md). Size a {@link CountMinSketch} when an (ε, δ) guarantee is what counts
 * ({@link CountMinSketch#fromErrors}); use this one when speed and typical error at a memory budget do.
 *
 * <p><b>Counters</b> are unsigned 32-bit and saturate at {@link #MAX_COUNTER} instead of wrapping; weights must be
 * ≥ 0. An update's four counters are distinct, so no counter exceeds the total weight N: while N stays below
 * {@link #MAX_COUNTER} the update adds without checks, and no counter can saturate. Beyond it, a counter that reached
 * {@link #MAX_COUNTER} stands for "at least that much", and an estimate whose smallest counter is saturated is
 * reported as N, which bounds every item's weight: estimates stay upper bounds, with an error of up to N for those
 * items ({@link #mayBeSaturated()}). For weights summing beyond 2<sup>32</sup> − 1 per sketch (bytes of a fast link
 * over a long window) prefer {@link CountMinSketch}'s 64-bit counters. No conservative update.
 *
 * <p>Layout: {@code int[16·B]}, block b at [16b, 16b + 16). Versioned byte image (family
 * {@link Family#BLOCKED_COUNT_MIN}) validated before allocation. Not thread-safe.
 */
public final class BlockedCountMinSketch {

    static final int IMAGE_VERSION = 1;
    /** Counters per block: 16 of 32 bits, 64 bytes. */
    public static final int BLOCK_COUNTERS = 16;
    /** Bytes per block. */
    public static final int BLOCK_BYTES = BLOCK_COUNTERS * Integer.BYTES;
    /** Fewest blocks: an item's two blocks must differ. */
    public static final int MIN_BLOCKS = 2;
    /** Most blocks: 2<sup>24</sup> (2<sup>28</sup> counters, 1 GiB). */
    public static final int MAX_BLOCKS = 1 << 24;
    /** The largest counter value (unsigned 32-bit); a counter there is saturated. */
    public static final long MAX_COUNTER = 0xFFFF_FFFFL;

    private final ItemHasher hasher;
    private final int blocks;
    private final long slots; // 64·blocks: the range a line's multiply-shift maps onto
    private final int[] counts;
    private long totalWeight;

    private BlockedCountMinSketch(ItemHasher hasher, int blocks, int[] counts) {
        if (blocks < MIN_BLOCKS || blocks > MAX_BLOCKS) {
            throw new IllegalArgumentException("blocks must be in [" + MIN_BLOCKS + ", " + MAX_BLOCKS + "], got "
                    + blocks);
        }
        this.hasher = hasher;
        this.blocks = blocks;
        this.slots = 64L * blocks;
        this.counts = counts != null ? counts : new int[blocks * BLOCK_COUNTERS];
    }

    /** Exactly {@code blocks} blocks of 16 counters (64 bytes each). */
    public static BlockedCountMinSketch withBlocks(int blocks, long seed) {
        return new BlockedCountMinSketch(ItemHasher.seeded(seed), blocks, null);
    }

    /** As many 64-byte blocks as fit in {@code bytes}: ⌊bytes / 64⌋, in [{@value #MIN_BLOCKS}, 2<sup>24</sup>]. */
    public static BlockedCountMinSketch withMemory(long bytes, long seed) {
        long b = bytes / BLOCK_BYTES;
        if (b < MIN_BLOCKS || b > MAX_BLOCKS) {
            throw new IllegalArgumentException("bytes must hold [" + MIN_BLOCKS + ", " + MAX_BLOCKS + "] blocks of "
                    + BLOCK_BYTES + " bytes, that is [" + (long) MIN_BLOCKS * BLOCK_BYTES + ", "
                    + (long) MAX_BLOCKS * BLOCK_BYTES + "] bytes, got " + bytes);
        }
        return withBlocks((int) b, seed);
    }

    /** A line's slot: a 32-bit half of h1 mapped onto [0, 64·B) by multiply-shift (its block is slot / 64). */
    private int slot(long half) {
        return (int) ((half * slots) >>> 32);
    }

    /** The first counter of a slot's block. */
    private static int blockStart(int slot) {
        return (slot >>> 6) * BLOCK_COUNTERS;
    }

    /** The second line's block: its own, or the next one when it is the first's (so the four counters are distinct). */
    private int secondBlock(int slot, int first) {
        int b = blockStart(slot);
        if (b != first) {
            return b;
        }
        int next = first + BLOCK_COUNTERS;
        return next == counts.length ? 0 : next;
    }

    /** Adds {@code weight} (≥ 0) to the item whose hash is {@code h1} (from this sketch's {@link #hasher()}). */
    public void updateHash(long h1, long weight) {
        if (weight < 0) {
            throw new IllegalArgumentException("weight must be ≥ 0, got " + weight);
        }
        int[] c = counts;
        int s1 = slot(h1 >>> 32);
        int s2 = slot(h1 & 0xFFFF_FFFFL);
        int b1 = blockStart(s1);
        int b2 = secondBlock(s2, b1);
        int i0 = b1 + (s1 & 7);
        int i1 = b1 + 8 + ((s1 >>> 3) & 7);
        int i2 = b2 + (s2 & 7);
        int i3 = b2 + 8 + ((s2 >>> 3) & 7);
        long total = totalWeight;
        if (weight <= MAX_COUNTER - total) {
            // the hot path: every counter is ≤ N and N + weight ≤ MAX_COUNTER, so 32-bit adds cannot wrap
            int w = (int) weight;
            c[i0] += w;
            c[i1] += w;
            c[i2] += w;
            c[i3] += w;
            totalWeight = total + weight;
            return;
        }
        long w = Math.min(weight, MAX_COUNTER);
        c[i0] = saturated(c[i0], w);
        c[i1] = saturated(c[i1], w);
        c[i2] = saturated(c[i2], w);
        c[i3] = saturated(c[i3], w);
        totalWeight = total > Long.MAX_VALUE - weight ? Long.MAX_VALUE : total + weight;
    }

    private static int saturated(int counter, long weight) {
        return (int) Math.min(Integer.toUnsignedLong(counter) + weight, MAX_COUNTER);
    }

    public void update(long item, long weight) {
        updateHash(hasher.hash(item), weight);
    }

    public void update(FiveTuple item, long weight) {
        updateHash(hasher.hash(item), weight);
    }

    public void update(byte[] bytes, int offset, int length, long weight) {
        updateHash(hasher.hash(bytes, offset, length), weight);
    }

    public void update(CharSequence item, long weight) {
        updateHash(hasher.hash(item), weight);
    }

    /**
     * The point estimate of the item whose hash is {@code h1}: the smallest of its four counters, never below its true
     * weight; N if that counter is saturated (see the class comment).
     */
    public long estimateHash(long h1) {
        int[] c = counts;
        int s1 = slot(h1 >>> 32);
        int s2 = slot(h1 & 0xFFFF_FFFFL);
        int b1 = blockStart(s1);
        int b2 = secondBlock(s2, b1);
        if (totalWeight <= Integer.MAX_VALUE) { // every counter ≤ N fits in 31 bits: a signed minimum will do
            return Math.min(Math.min(c[b1 + (s1 & 7)], c[b1 + 8 + ((s1 >>> 3) & 7)]),
                    Math.min(c[b2 + (s2 & 7)], c[b2 + 8 + ((s2 >>> 3) & 7)]));
        }
        // unsigned minimum: flipping the sign bit orders unsigned values as signed ones
        int flip = Integer.MIN_VALUE;
        int m = Math.min(Math.min(c[b1 + (s1 & 7)] ^ flip, c[b1 + 8 + ((s1 >>> 3) & 7)] ^ flip),
                Math.min(c[b2 + (s2 & 7)] ^ flip, c[b2 + 8 + ((s2 >>> 3) & 7)] ^ flip));
        long min = Integer.toUnsignedLong(m ^ flip);
        return min == MAX_COUNTER ? Math.max(min, totalWeight) : min;
    }

    public long estimate(long item) {
        return estimateHash(hasher.hash(item));
    }

    public long estimate(FiveTuple item) {
        return estimateHash(hasher.hash(item));
    }

    public long estimate(byte[] bytes, int offset, int length) {
        return estimateHash(hasher.hash(bytes, offset, length));
    }

    public long estimate(CharSequence item) {
        return estimateHash(hasher.hash(item));
    }

    /**
     * The bound on Pr(â &gt; a + ε·N) of the class comment, 5·(8Bε)<sup>−4/5</sup> (at most 1), valid while no
     * counter is saturated.
     */
    public double failureProbability(double epsilon) {
        if (!(epsilon > 0)) {
            throw new IllegalArgumentException("epsilon must be > 0, got " + epsilon);
        }
        return Math.min(1, 5 * Math.pow(8.0 * blocks * epsilon, -0.8));
    }

    /** Whether N has reached {@link #MAX_COUNTER}, so that counters may be saturated (see the class comment). */
    public boolean mayBeSaturated() {
        return totalWeight >= MAX_COUNTER;
    }

    /** Adds {@code other}'s counters to this sketch's (saturating); both must have the same blocks and seed. */
    public void merge(BlockedCountMinSketch other) {
        if (other.blocks != blocks) {
            throw new IllegalArgumentException("cannot merge blocked Count-Min sketches of different size: " + blocks
                    + " vs " + other.blocks + " blocks");
        }
        if (other.hasher.seed() != hasher.seed()) {
            throw new IllegalArgumentException("cannot merge blocked Count-Min sketches with different seeds: "
                    + hasher.seed() + " vs " + other.hasher.seed());
        }
        for (int i = 0; i < counts.length; i++) {
            counts[i] = saturated(counts[i], Integer.toUnsignedLong(other.counts[i]));
        }
        long a = totalWeight;
        long b = other.totalWeight;
        totalWeight = a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }

    public ItemHasher hasher() {
        return hasher;
    }

    /** Blocks of 16 counters. */
    public int blocks() {
        return blocks;
    }

    /** N, the sum of all weights added (saturating at {@link Long#MAX_VALUE}). */
    public long totalWeight() {
        return totalWeight;
    }

    /** Bytes of the counter array: 64 per block. */
    public long memoryBytes() {
        return (long) counts.length * Integer.BYTES;
    }

    /** Counter {@code index} = block·16 + position (its block is index / 16), unsigned, for inspection and tests. */
    public long counter(int index) {
        return Integer.toUnsignedLong(counts[index]);
    }

    /** The four counter indexes of the item whose hash is {@code h1} (block·16 + position), for tests. */
    int[] counterIndexes(long h1) {
        int s1 = slot(h1 >>> 32);
        int s2 = slot(h1 & 0xFFFF_FFFFL);
        int b1 = blockStart(s1);
        int b2 = secondBlock(s2, b1);
        return new int[] {b1 + (s1 & 7), b1 + 8 + ((s1 >>> 3) & 7), b2 + (s2 & 7), b2 + 8 + ((s2 >>> 3) & 7)};
    }

    /** An independent copy (one array copy): same seed, blocks, counters and total weight, so the same image. */
    public BlockedCountMinSketch copy() {
        BlockedCountMinSketch c = new BlockedCountMinSketch(hasher, blocks, Arrays.copyOf(counts, counts.length));
        c.totalWeight = totalWeight;
        return c;
    }

    public byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    public void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    private long fieldBytes() {
        return 8 + 4 + 8 + 4L * counts.length;
    }

    private byte[] image(ImageWriter.Sink sink) {
        return new ImageWriter(Family.BLOCKED_COUNT_MIN, IMAGE_VERSION, fieldBytes(), sink)
                .putLong(hasher.seed())
                .putInt(blocks)
                .putLong(totalWeight)
                .putInts(counts, 0, counts.length)
                .finish();
    }

    /** Reads an image; validates every field and size before allocating. */
    public static BlockedCountMinSketch fromByteArray(byte[] image) {
        return read(ImageReader.open(image, Family.BLOCKED_COUNT_MIN, IMAGE_VERSION));
    }

    /**
     * Reads an image of {@code length} bytes from {@code source} through a small buffer, with the validation and
     * messages of {@link #fromByteArray}; takes exactly {@code length} bytes from the source either way.
     *
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static BlockedCountMinSketch readImage(ImageReader.Source source, int length) {
        return ImageReader.read(source, length, Family.BLOCKED_COUNT_MIN, IMAGE_VERSION, BlockedCountMinSketch::read);
    }

    private static BlockedCountMinSketch read(ImageReader in) {
        ItemHasher hasher = ItemHasher.seeded(in.getLong("seed"));
        int blocks = in.getInt("blocks", MIN_BLOCKS, MAX_BLOCKS);
        long total = in.getLong("totalWeight", 0, Long.MAX_VALUE);
        int[] counts = in.getInts("counts", blocks * BLOCK_COUNTERS);
        in.finish();
        long limit = Math.min(total, MAX_COUNTER);
        long[] halves = new long[2]; // the counters of the blocks' first halves of 8, and of their second halves
        for (int i = 0; i < counts.length; i++) {
            long c = Integer.toUnsignedLong(counts[i]);
            // a counter above N would let the update's unchecked adds wrap (see the class comment)
            if (c > limit) {
                throw new IllegalArgumentException("image corrupt: counter " + i + " (block " + i / BLOCK_COUNTERS
                        + ") is " + c + ", above totalWeight = " + total);
            }
            halves[(i >>> 3) & 1] += c; // at most 2^24 blocks of 8 counters below 2^32 each: no overflow
        }
        // Below MAX_COUNTER nothing has saturated, and every update (and merge) added its weight to two counters of
        // each kind of half: both sums are exactly 2N. Counters that lost weight would give estimates below the truth.
        if (total <= MAX_COUNTER && (halves[0] != 2 * total || halves[1] != 2 * total)) {
            throw new IllegalArgumentException("image corrupt: the counters of the blocks' first halves sum to "
                    + halves[0] + " and of their second halves to " + halves[1] + ", each must be 2 × totalWeight = "
                    + 2 * total);
        }
        BlockedCountMinSketch s = new BlockedCountMinSketch(hasher, blocks, counts);
        s.totalWeight = total;
        return s;
    }

    @Override
    public String toString() {
        return "BlockedCountMinSketch[" + blocks + " blocks, N=" + totalWeight + "]";
    }
}
