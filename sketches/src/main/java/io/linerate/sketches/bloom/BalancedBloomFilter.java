package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.Arrays;

/**
 * The Balanced Bloom filter of Kanizo, Hay &amp; Keslassy, "Access-Efficient Balanced Bloom Filters"
 * (research notes part 1): memory blocks of B bits, each a local Bloom filter with a load counter, split
 * into d subtables (a multi-level hash table, §7). An element goes to the first of its d blocks whose load
 * is below the threshold h, or exactly h and a coin with probability p says yes; failing all d, or once the
 * insertions have used the average access budget a·n, it goes to a small overflow list. With a = 1.2 and
 * d = 3 at most 3 blocks are read per operation, 1.2 per insertion on average, about 0.5% of elements
 * overflow, and the false-positive rate is up to two orders of magnitude below a single-choice blocked
 * filter of the same memory (§10).
 *
 * <p>A query reads blocks in the same order and stops at the first block that holds all its bits (yes) or
 * whose load is below h (no: the element would have been stored there, loads only grow). The overflow
 * list is checked first and unconditionally — an element sent there by the budget may have a first block
 * below h (notes §1.14 pitfall 5) — so there are no false negatives.
 *
 * <p>Bounded memory beyond the design capacity: when the overflow list is full, an element that finds no
 * block is forced into the first of its blocks whose load is below h, or if all are at h or above into one
 * of them chosen by its hash — a block the query reaches, so still no false negatives; the false-positive
 * rate then degrades gracefully ({@link #forcedPlacements()} counts these).
 *
 * <p>Each block's first {@code b} bits hold its load counter; the local filter uses the other L = B − b bits,
 * at positions from independent 16-bit fields of h2 ({@link BlockProbes}). Block j's address is h1 + j·h2
 * reduced into subtable j. A put first checks whether the element is already present along its path, so
 * repeats cost neither capacity nor access budget.
 *
 * <p>{@link #union} is not supported: where an element lands depends on the order of insertion.
 */
public final class BalancedBloomFilter implements BloomFilter {

    static final int IMAGE_VERSION = 1;

    private final ItemHasher hasher;
    private final BalancedParameters params;
    private final int blockBits;
    private final int wordsPerBlock;
    private final int localBits;
    private final int counterBits;
    private final long counterMask;
    private final int k;
    private final int h;
    private final long coinThreshold; // unsigned: coin wins if coin < threshold
    private final int d;
    private final long[] subtableSize;
    private final long[] subtableStart;
    private final long totalBlocks;
    private final long[] words;
    private final int[] positions;
    private final OverflowList overflow;
    private long accessesUsed;
    private long forcedPlacements;
    private long bitCount;

    private BalancedBloomFilter(ItemHasher hasher, BalancedParameters params, long[] words) {
        this.hasher = hasher;
        this.params = params;
        this.blockBits = params.blockBits();
        this.wordsPerBlock = blockBits / 64;
        this.counterBits = params.counterBits();
        this.counterMask = (1L << counterBits) - 1;
        this.localBits = blockBits - counterBits;
        this.k = params.hashCount();
        this.h = params.threshold();
        double p = params.coinProbability();
        this.coinThreshold = p >= 1 ? -1L : (long) (p * 0x1p63) << 1; // p·2^64 as an unsigned long
        this.subtableSize = params.subtableBlocks();
        this.d = subtableSize.length;
        this.subtableStart = new long[d];
        long start = 0;
        for (int j = 0; j < d; j++) {
            subtableStart[j] = start;
            start += subtableSize[j];
        }
        this.totalBlocks = start;
        this.positions = new int[k];
        this.words = words != null ? words : new long[Math.toIntExact(totalBlocks * wordsPerBlock)];
        this.overflow = new OverflowList(params.overflowCapacity());
    }

    /** An independent copy of {@code other}: its blocks, overflow list, access budget used and fill. */
    private BalancedBloomFilter(BalancedBloomFilter other) {
        this.hasher = other.hasher;
        this.params = other.params;
        this.blockBits = other.blockBits;
        this.wordsPerBlock = other.wordsPerBlock;
        this.counterBits = other.counterBits;
        this.counterMask = other.counterMask;
        this.localBits = other.localBits;
        this.k = other.k;
        this.h = other.h;
        this.coinThreshold = other.coinThreshold;
        this.subtableSize = other.subtableSize; // never written after construction, as subtableStart
        this.d = other.d;
        this.subtableStart = other.subtableStart;
        this.totalBlocks = other.totalBlocks;
        this.positions = new int[k];
        this.words = Arrays.copyOf(other.words, other.words.length);
        this.overflow = other.overflow.copy();
        this.accessesUsed = other.accessesUsed;
        this.forcedPlacements = other.forcedPlacements;
        this.bitCount = other.bitCount;
    }

    /**
     * An independent copy: same seed, parameters, blocks, overflow list and access budget used (so the same
     * image and the same placements of later items); array copies, no validation.
     */
    @Override
    public BalancedBloomFilter copy() {
        return new BalancedBloomFilter(this);
    }

    /**
     * The paper's setting (a = 1.2, d = 3, 512-bit blocks) with β chosen so the model FPR ≤ {@code fpp}. At
     * least 3 blocks (one per choice) and at most one element per block are used, so a filter for fewer than 3
     * items has a design capacity of 3.
     */
    public static BalancedBloomFilter create(long expectedItems, double fpp) {
        return create(expectedItems, fpp, ItemHasher.DEFAULT_SEED);
    }

    public static BalancedBloomFilter create(long expectedItems, double fpp, long seed) {
        Checks.expectedItems(expectedItems);
        Checks.fpp(fpp);
        int blockBits = 512;
        for (double beta = 4; beta <= 64; beta += 0.25) {
            long blocks = Math.max(DEFAULT_CHOICES_BLOCKS, (long) Math.ceil(expectedItems * beta / blockBits));
            if (blocks * blockBits > MAX_BITS) {
                break;
            }
            // at most one element per block: a tiny filter (n < the 3 blocks of d = 3) is sized for 3 elements
            double bitsPerElement = Math.min(blockBits, blockBits * blocks / (double) expectedItems);
            BalancedParameters params = BalancedParameters.of(blocks, blockBits, bitsPerElement,
                    BalancedParameters.DEFAULT_ACCESS_BUDGET, BalancedParameters.DEFAULT_CHOICES);
            if (modelFpp(params) <= fpp) {
                return new BalancedBloomFilter(ItemHasher.seeded(seed), params, null);
            }
        }
        throw new IllegalArgumentException("expectedItems=" + expectedItems + " at fpp=" + fpp
                + " needs more than 64 bits per element or more than " + MAX_BITS + " bits");
    }

    private static final int DEFAULT_CHOICES_BLOCKS = 3;

    /**
     * {@code bits} rounded up to whole 512-bit blocks, and to at least 3 blocks (one per choice of d = 3), so a
     * request for fewer than 1,536 bits gets 1,536 ({@link #bitSize()} says what was built); k bits per element,
     * a = 1.2; the design capacity follows from β = k / ln 2 (the bits per element at which k is optimal).
     */
    public static BalancedBloomFilter withBits(long bits, int hashCount, long seed) {
        Checks.bits(bits);
        Checks.hashCount(hashCount);
        long blocks = Math.max(DEFAULT_CHOICES_BLOCKS, (bits + 511) / 512);
        BalancedParameters params = BalancedParameters.of(blocks, 512, Math.min(512, hashCount / StrictMath.log(2)),
                BalancedParameters.DEFAULT_ACCESS_BUDGET, BalancedParameters.DEFAULT_CHOICES);
        return new BalancedBloomFilter(ItemHasher.seeded(seed), params, null);
    }

    /** A filter of the given shape, e.g. {@code BalancedParameters.of(1024, 256, 40, 1.2, 3)} (§10). */
    public static BalancedBloomFilter create(BalancedParameters params, long seed) {
        return new BalancedBloomFilter(ItemHasher.seeded(seed), params, null);
    }

    /**
     * Model false-positive rate of a filter at design load (notes §1.9): E(P)·Σ<sub>i</sub>
     * P<sub>LB</sub>(i)·(1 − e<sup>−k·i/L</sup>)<sup>k</sup>, E(P) = Σ<sub>j&lt;d</sub> q<sup>j</sup> the expected
     * blocks a non-member reads, q = P<sub>LB</sub>(h) + P<sub>LB</sub>(h+1). In {@link StrictMath}: it chooses the
     * shape in {@link #create(long, double, long)}, which must come out the same on every JVM.
     */
    public static double modelFpp(BalancedParameters params) {
        double[] pLb = params.loadDistribution();
        if (pLb.length == 0) {
            return Double.NaN;
        }
        int local = params.blockBits() - params.counterBits();
        double perBlock = 0;
        for (int i = 0; i < pLb.length; i++) {
            perBlock += pLb[i] * StrictMath.pow(-StrictMath.expm1(-(double) params.hashCount() * i / local),
                    params.hashCount());
        }
        int k0 = pLb.length - 2;
        double q = pLb[k0] + pLb[k0 + 1];
        double reads = 0;
        for (int j = 0; j < params.choices(); j++) {
            reads += StrictMath.pow(q, j);
        }
        return reads * perBlock;
    }

    public BalancedParameters parameters() {
        return params;
    }

    /** Global index of block choice j (package-private for tests that aim items at blocks). */
    long blockAddress(long h1, long h2, int j) {
        return subtableStart[j] + DoubleHashing.reduce(h1 + j * h2, subtableSize[j]);
    }

    private long counter(long block) {
        return words[(int) (block * wordsPerBlock)] & counterMask;
    }

    private boolean coinWins(long h1, int j) {
        return Long.compareUnsigned(ItemHasher.h2(h1 ^ (0x632BE59BD9B4E019L * (j + 1))), coinThreshold) < 0;
    }

    private boolean blockHolds(long block, int[] positions) {
        int base = (int) (block * wordsPerBlock);
        for (int g : positions) {
            int bit = g + counterBits;
            if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** {@link #blockHolds(long, int[])} with the positions generated as it goes: no shared scratch. */
    private boolean blockHolds(long block, long h2) {
        int base = (int) (block * wordsPerBlock);
        long state = h2;
        long v = h2;
        int left = 4;
        for (int i = 0; i < k; i++) {
            if (left == 0) {
                state = BlockProbes.remix(state);
                v = state;
                left = 4;
            }
            int bit = DoubleHashing.reduce16((int) v, localBits) + counterBits;
            if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
            v >>>= 16;
            left--;
        }
        return true;
    }

    private void store(long block, int[] positions) {
        int base = (int) (block * wordsPerBlock);
        for (int g : positions) {
            int bit = g + counterBits;
            long old = words[base + (bit >>> 6)];
            long now = old | (1L << bit);
            if (now != old) {
                words[base + (bit >>> 6)] = now;
                bitCount++;
            }
        }
        if ((words[base] & counterMask) < counterMask) {
            words[base]++; // the counter sits in the low bits of the block's first word
        }
    }

    /**
     * Inserts along the element's path. The access budget is charged only for elements that are stored (in
     * a block or in the overflow list): an element found present costs its lookup and nothing of the
     * budget, so a stream of repeats cannot use it up. Once the budget is spent, the path is still read to
     * find repeats, as a query would, before a new element goes to the overflow list.
     */
    @Override
    public boolean put(long h1, long h2) {
        if (overflow.contains(h1, h2)) {
            return false;
        }
        BlockProbes.positions(h2, localBits, positions);
        long budget = params.accessBudget();
        int charged = 0;
        for (int j = 0; j < d; j++) {
            long block = blockAddress(h1, h2, j);
            if (blockHolds(block, positions)) {
                return false;
            }
            long c = counter(block);
            if (j + 1 <= budget - accessesUsed) { // accessesUsed ≤ budget: no overflow, even without a budget (MAX)
                charged = j + 1;
                if (c < h || (c == h && coinWins(h1, j))) {
                    store(block, positions);
                    accessesUsed += charged;
                    return true;
                }
            }
            if (c < h) {
                break; // a query stops here: the element is new, and only the budget kept it out
            }
        }
        accessesUsed += charged;
        if (!overflow.isFull()) {
            overflow.add(h1, h2);
            return true;
        }
        forcePlace(h1, h2);
        return true;
    }

    /** Overflow list full: a block the query will reach (the first below h, else one of the d by hash). */
    private void forcePlace(long h1, long h2) {
        if (forcedPlacements < Long.MAX_VALUE) { // saturates: an image holds a count in [0, Long.MAX_VALUE]
            forcedPlacements++;
        }
        for (int j = 0; j < d; j++) {
            long block = blockAddress(h1, h2, j);
            if (blockHolds(block, positions)) {
                return;
            }
            if (counter(block) < h) {
                store(block, positions);
                return;
            }
        }
        store(blockAddress(h1, h2, (int) DoubleHashing.reduce(ItemHasher.h2(h2), d)), positions);
    }

    @Override
    public boolean mightContain(long h1, long h2) {
        if (overflow.contains(h1, h2)) {
            return true;
        }
        for (int j = 0; j < d; j++) {
            long block = blockAddress(h1, h2, j);
            if (blockHolds(block, h2)) {
                return true;
            }
            if (counter(block) < h) {
                return false;
            }
        }
        return false;
    }

    /** Block accesses used by insertions so far (overflow-list lookups are not counted, as in the paper). */
    public long insertAccesses() {
        return accessesUsed;
    }

    /** Elements held in the overflow list. */
    public int overflowSize() {
        return overflow.size();
    }

    /**
     * Elements forced into a block because the overflow list was full (only past the design capacity); saturates at
     * {@code Long.MAX_VALUE}.
     */
    public long forcedPlacements() {
        return forcedPlacements;
    }

    /**
     * Elements stored: the blocks' counters plus the overflow list. Exact up to the design capacity; a counter
     * holds at most h + 1 (its bits), so once forced placements ({@link #forcedPlacements()}) fill a block past
     * that, this is a lower bound ({@link #approximateElementCount()} estimates such blocks from their fill).
     */
    public long storedElements() {
        long sum = overflow.size();
        for (long b = 0; b < totalBlocks; b++) {
            sum += counter(b);
        }
        return sum;
    }

    /** The load counter of each block, subtable after subtable. */
    public long[] blockLoads() {
        long[] loads = new long[(int) totalBlocks];
        for (int b = 0; b < loads.length; b++) {
            loads[b] = counter(b);
        }
        return loads;
    }

    /** The number of element bits set in each block (the counter bits excluded). */
    public int[] blockFill() {
        int[] fill = new int[(int) totalBlocks];
        for (int b = 0; b < fill.length; b++) {
            fill[b] = elementBitsSet(b);
        }
        return fill;
    }

    /** Element bits set in {@code block}, its counter bits excluded. */
    private int elementBitsSet(long block) {
        int base = (int) (block * wordsPerBlock);
        int set = Long.bitCount(words[base] & ~counterMask);
        for (int w = 1; w < wordsPerBlock; w++) {
            set += Long.bitCount(words[base + w]);
        }
        return set;
    }

    /**
     * Elements stored: exact ({@link #storedElements()}) while nothing was forced into a block; after forced
     * placements, a block whose counter is at its maximum
     * counts for the larger of its counter and the estimate from its fill, −(L/k)·ln(1 − X/L) for X of its L
     * element bits set (infinite when all are set).
     */
    @Override
    public double approximateElementCount() {
        if (forcedPlacements == 0) {
            // no block went past h + 1: every counter is exact, even one at its maximum (when 2^b − 1 = h + 1 a
            // full counter is an ordinary load, which the fill estimate below overstated)
            return storedElements();
        }
        double sum = overflow.size();
        for (long b = 0; b < totalBlocks; b++) {
            long c = counter(b);
            if (c == counterMask) {
                double set = elementBitsSet(b);
                sum += Math.max(c, -((double) localBits / k) * Math.log1p(-set / localBits));
            } else {
                sum += c;
            }
        }
        return sum;
    }

    /**
     * The false-positive rate of the current state, computed as the paper's §10 does from each block's set
     * bits: with f<sub>b</sub> = (X<sub>b</sub>/L)<sup>k</sup>, A<sub>j</sub> the mean of f<sub>b</sub> over
     * subtable j and C<sub>j</sub> the mean of [load<sub>b</sub> ≥ h]·(1 − f<sub>b</sub>), the rate is
     * A<sub>1</sub> + C<sub>1</sub>A<sub>2</sub> + C<sub>1</sub>C<sub>2</sub>A<sub>3</sub> + …
     */
    @Override
    public double expectedFpp() {
        int[] fill = blockFill();
        double reach = 1;
        double fpp = 0;
        for (int j = 0; j < d; j++) {
            double a = 0;
            double c = 0;
            for (long b = subtableStart[j]; b < subtableStart[j] + subtableSize[j]; b++) {
                double f = Math.pow((double) fill[(int) b] / localBits, k);
                a += f;
                c += counter(b) >= h ? 1 - f : 0;
            }
            fpp += reach * a / subtableSize[j];
            reach *= c / subtableSize[j];
        }
        return fpp;
    }

    @Override
    public ItemHasher hasher() {
        return hasher;
    }

    @Override
    public long bitSize() {
        return totalBlocks * blockBits;
    }

    @Override
    public int hashCount() {
        return k;
    }

    @Override
    public long bitCount() {
        return bitCount;
    }

    @Override
    public long memoryBytes() {
        return (long) words.length * Long.BYTES + overflow.memoryBytes();
    }

    @Override
    public void union(BloomFilter other) {
        throw new UnsupportedOperationException("a BalancedBloomFilter cannot be unioned: where an element is "
                + "stored depends on the order of insertion; union StandardBloomFilter or BlockedBloomFilter instead");
    }

    @Override
    public byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    @Override
    public void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    private byte[] image(ImageWriter.Sink sink) {
        long[] entries = overflow.entries();
        long fields = 8 + 4 + 4 + 8L * d + 4 + 4 + 8 + 8 + 8 + 4 + 8 + 8 + 4 + 8L * entries.length + 8L * words.length;
        ImageWriter out = new ImageWriter(Family.BALANCED_BLOOM, IMAGE_VERSION, fields, sink)
                .putLong(hasher.seed())
                .putInt(blockBits)
                .putInt(d);
        for (long s : subtableSize) {
            out.putLong(s);
        }
        out.putInt(k).putInt(h).putDouble(params.coinProbability()).putLong(params.designCapacity())
                .putLong(params.accessBudget()).putInt(params.overflowCapacity())
                .putLong(accessesUsed).putLong(forcedPlacements)
                .putInt(overflow.size()).putLongs(entries, 0, entries.length)
                .putLongs(words, 0, words.length);
        return out.finish();
    }

    static BalancedBloomFilter fromImage(ImageReader in) {
        ItemHasher hasher = ItemHasher.seeded(in.getLong("seed"));
        int blockBits = in.getInt("blockBits", 64, 4096);
        int d = in.getInt("choices", 1, 8);
        long[] sizes = new long[d];
        for (int j = 0; j < d; j++) {
            sizes[j] = in.getLong("subtableBlocks", 1, BalancedParameters.MAX_BLOCKS);
        }
        int k = in.getInt("hashCount", 1, MAX_HASH_COUNT);
        int h = in.getInt("threshold", 0, 65534);
        double p = in.getDouble("coinProbability");
        long n = in.getLong("designCapacity", 1, Long.MAX_VALUE);
        long budget = in.getLong("accessBudget", 0, Long.MAX_VALUE);
        int overflowCapacity = in.getInt("overflowCapacity", 0, BalancedParameters.MAX_OVERFLOW_CAPACITY);
        BalancedParameters params = BalancedParameters.explicit(blockBits, sizes, k, h, p, n, budget,
                overflowCapacity);
        long used = in.getLong("accessesUsed", 0, budget); // a put charges accesses only within the budget
        long forced = in.getLong("forcedPlacements", 0, Long.MAX_VALUE);
        int overflowSize = in.getInt("overflowSize", 0, overflowCapacity);
        long[] entries = in.getLongs("overflowEntries", 2L * overflowSize);
        long[] words = in.getLongs("words", params.blocks() * (blockBits / 64));
        in.finish();
        BalancedBloomFilter f = new BalancedBloomFilter(hasher, params, words);
        for (int i = 0; i < entries.length; i += 2) {
            if (f.overflow.contains(entries[i], entries[i + 1])) { // a writer never lists an item twice
                throw new IllegalArgumentException("image corrupt: overflow entry " + i / 2 + " repeats an item");
            }
            f.overflow.add(entries[i], entries[i + 1]);
        }
        f.accessesUsed = used;
        f.forcedPlacements = forced;
        f.bitCount = 0;
        for (int fill : f.blockFill()) {
            f.bitCount += fill;
        }
        return f;
    }

    @Override
    public String toString() {
        return "BalancedBloomFilter[" + params + ", overflow=" + overflow.size() + ", accesses=" + accessesUsed + "]";
    }
}
