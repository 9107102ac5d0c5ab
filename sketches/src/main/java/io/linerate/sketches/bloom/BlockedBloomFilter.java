package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import java.util.Arrays;

/**
 * A cache-blocked Bloom filter (Putze, Sanders &amp; Singler 2007): h1 picks one block of B bits
 * (default 512 = one 64-byte cache line) and all k bits of the item are set inside it, so an insert or
 * a query touches one cache line whatever k is.
 *
 * <p>Inside the block the item's k bits are at independent fields of h2 ({@link BlockProbes}): block sizes
 * are powers of two, so a position is a shift and a mask. Blocks fill unevenly (Poisson), so this
 * variant needs more bits than the standard filter for the same false-positive probability; {@link
 * #create} sizes it with the exact model of {@link #falsePositiveProbability} (the Poisson load of a block and
 * the occupancy distribution of its bits), not the standard formula.
 */
public final class BlockedBloomFilter extends BitArrayFilter {

    /** One x86-64 cache line. */
    public static final int DEFAULT_BLOCK_BITS = 512;

    private static final int MIN_BLOCK_BITS = 64;
    private static final int MAX_BLOCK_BITS = 4096;

    private final int blockBits;
    private final int blockMask;
    private final int fieldsPerValue;
    private final int wordShift;
    private final int blockShift;
    private final long blocks;

    private BlockedBloomFilter(ItemHasher hasher, long blocks, int blockBits, int k, long[] words) {
        super(hasher, Math.multiplyExact(blocks, (long) blockBits), k, words);
        this.blockBits = blockBits;
        this.blockMask = blockBits - 1;
        this.blockShift = Integer.numberOfTrailingZeros(blockBits);
        this.fieldsPerValue = 64 / blockShift;
        this.wordShift = blockShift - 6;
        this.blocks = blocks;
    }

    /** Sized for {@code expectedItems} at {@code fpp} with 512-bit blocks. */
    public static BlockedBloomFilter create(long expectedItems, double fpp) {
        return create(expectedItems, fpp, ItemHasher.DEFAULT_SEED, DEFAULT_BLOCK_BITS);
    }

    public static BlockedBloomFilter create(long expectedItems, double fpp, long seed) {
        return create(expectedItems, fpp, seed, DEFAULT_BLOCK_BITS);
    }

    /**
     * The fewest blocks (and, among equal sizes, the smallest k) for which the exact model false-positive
     * probability ({@link #falsePositiveProbability}) at {@code expectedItems} is at most {@code fpp}.
     */
    public static BlockedBloomFilter create(long expectedItems, double fpp, long seed, int blockBits) {
        Size size = size(expectedItems, fpp, blockBits);
        return new BlockedBloomFilter(ItemHasher.seeded(seed), size.blocks(), blockBits, size.hashCount(), null);
    }

    /**
     * The shape {@link #create} chooses, known without allocating the filter (a sizing step, such as a job's
     * build, need not hold a filter of the full size).
     *
     * @param blocks the number of blocks
     * @param blockBits bits per block
     * @param hashCount k
     */
    public record Size(long blocks, int blockBits, int hashCount) {
        /** m, the filter's bits. */
        public long bitSize() {
            return blocks * blockBits;
        }

        /** The bytes of the filter's bit array, as {@link #memoryBytes()} of a filter of this size. */
        public long memoryBytes() {
            return (long) wordsFor(bitSize()) * Long.BYTES;
        }
    }

    /** {@link #create}'s choice of size for {@code expectedItems} at {@code fpp}, without a filter. */
    public static Size size(long expectedItems, double fpp, int blockBits) {
        Checks.expectedItems(expectedItems);
        Checks.fpp(fpp);
        checkBlockBits(blockBits);
        int maxK = Math.min(32, blockBits / 2);
        // The mean-fill model is cheap and its rate is lower than the exact one (Jensen), so its largest load bounds
        // each k's from above: a k whose bound already needs more blocks than the best exact size cannot win, and the
        // exact model is computed only for the few k near the optimum.
        double[] upper = new double[maxK + 1];
        Integer[] byLoad = new Integer[maxK];
        for (int k = 1; k <= maxK; k++) {
            int hashes = k;
            upper[k] = BloomSizing.maxItemsPerBlock(load -> meanFillFpp(load, hashes, blockBits), blockBits, fpp);
            byLoad[k - 1] = k;
        }
        Arrays.sort(byLoad, (a, b) -> a.equals(b) ? 0
                : upper[a] != upper[b] ? Double.compare(upper[b], upper[a]) : Integer.compare(a, b));
        // a double: at a tiny fpp the block count need not fit in a long (n / 1e-9 blocks at worst)
        double bestBlocks = Double.POSITIVE_INFINITY;
        double bestLambda = 0;
        int bestK = 1;
        for (int k : byLoad) {
            double atLeast = Math.ceil(expectedItems / upper[k]);
            if (atLeast > bestBlocks || (atLeast == bestBlocks && k > bestK)) {
                continue;
            }
            double[] hit = BlockOccupancy.queryHitByItems(k, blockBits, Poisson.tailBound(upper[k]));
            double lambda = BloomSizing.maxItemsPerBlock(
                    load -> BlockOccupancy.falsePositiveProbability(load, hit), upper[k], fpp);
            double blocks = Math.ceil(expectedItems / lambda);
            if (blocks < bestBlocks || (blocks == bestBlocks && k < bestK)) {
                bestBlocks = blocks;
                bestLambda = lambda;
                bestK = k;
            }
        }
        // at the floor the model missed fpp even there: the size is only a lower bound of the need, which may still
        // pass the limit (n = 1 in 64-bit blocks: 6.4·10^10 bits), so it is refused whatever the block count
        if (bestBlocks > MAX_BITS / blockBits || bestLambda <= BloomSizing.MIN_ITEMS_PER_BLOCK) {
            throw Checks.tooManyBits(expectedItems, fpp, bestBlocks * blockBits,
                    bestLambda <= BloomSizing.MIN_ITEMS_PER_BLOCK);
        }
        return new Size(Math.max(1, (long) bestBlocks), blockBits, bestK);
    }

    /** {@code bits} rounded up to whole blocks of {@code blockBits}, {@code hashCount} bits per item. */
    public static BlockedBloomFilter withBits(long bits, int hashCount, long seed, int blockBits) {
        Checks.bits(bits);
        checkBlockBits(blockBits);
        Checks.hashCount(hashCount);
        if (hashCount > blockBits) {
            throw new IllegalArgumentException("hashCount must be at most blockBits=" + blockBits + ", got "
                    + hashCount);
        }
        long blocks = (bits + blockBits - 1) / blockBits;
        return new BlockedBloomFilter(ItemHasher.seeded(seed), blocks, blockBits, hashCount, null);
    }

    /**
     * An independent copy: same seed, shape and bits (so the same image); an array copy whose set bits are counted
     * again, no other validation.
     */
    @Override
    public BlockedBloomFilter copy() {
        return new BlockedBloomFilter(hasher, blocks, blockBits, k, Arrays.copyOf(words, words.length));
    }

    static BlockedBloomFilter fromImage(Image image) {
        long b = image.shape();
        if (b < MIN_BLOCK_BITS || b > MAX_BLOCK_BITS || Long.bitCount(b) != 1 || image.bits() % b != 0
                || image.k() > b) {
            throw new IllegalArgumentException("image corrupt: blockBits " + b + " must be a power of two in ["
                    + MIN_BLOCK_BITS + ", " + MAX_BLOCK_BITS + "] dividing bitSize " + image.bits()
                    + " and at least hashCount " + image.k());
        }
        return new BlockedBloomFilter(image.hasher(), image.bits() / b, (int) b, image.k(), image.words());
    }

    private static void checkBlockBits(int blockBits) {
        if (blockBits < MIN_BLOCK_BITS || blockBits > MAX_BLOCK_BITS || Integer.bitCount(blockBits) != 1) {
            throw new IllegalArgumentException("blockBits must be a power of two in [" + MIN_BLOCK_BITS + ", "
                    + MAX_BLOCK_BITS + "], got " + blockBits);
        }
    }

    public int blockBits() {
        return blockBits;
    }

    public long blocks() {
        return blocks;
    }

    /** The block's first word; a block of more than 512 bits spans several lines, of which this touches the first. */
    @Override
    int lineWord(long h1) {
        return (int) DoubleHashing.reduce(h1, blocks) << wordShift;
    }

    @Override
    public boolean put(long h1, long h2) {
        int base = (int) DoubleHashing.reduce(h1, blocks) << wordShift;
        long v = h2;
        long added = 0;
        if (k <= fieldsPerValue) {
            for (int i = 0; i < k; i++) {
                int bit = (int) v & blockMask;
                int w = base + (bit >>> 6);
                long old = words[w];
                added += (~old >>> bit) & 1;
                words[w] = old | (1L << bit);
                v >>>= blockShift;
            }
            bitCount += added;
            return added != 0;
        }
        long state = h2;
        for (int i = 0, left = fieldsPerValue; i < k; i++, left--) {
            if (left == 0) {
                state = BlockProbes.remix(state);
                v = state;
                left = fieldsPerValue;
            }
            int bit = (int) v & blockMask;
            int w = base + (bit >>> 6);
            long old = words[w];
            added += (~old >>> bit) & 1; // shifts use the low 6 bits: bit mod 64
            words[w] = old | (1L << bit);
            v >>>= blockShift;
        }
        bitCount += added;
        return added != 0;
    }

    /**
     * Tests all k bits without an early exit: they share one cache line, so an exit would save no memory
     * access, and its unpredictable branch (half the queries of a dedup stream are absent) would throw
     * away the next query's memory access that the CPU had already started.
     */
    @Override
    public boolean mightContain(long h1, long h2) {
        int base = (int) DoubleHashing.reduce(h1, blocks) << wordShift;
        long v = h2;
        long all = 1;
        if (k <= fieldsPerValue) { // the usual case (k ≤ 7 for 512-bit blocks): one value, a plain counted loop
            for (int i = 0; i < k; i++) {
                int bit = (int) v & blockMask;
                all &= words[base + (bit >>> 6)] >>> bit;
                v >>>= blockShift;
            }
            return (all & 1) != 0;
        }
        long state = h2;
        for (int i = 0, left = fieldsPerValue; i < k; i++, left--) {
            if (left == 0) {
                state = BlockProbes.remix(state);
                v = state;
                left = fieldsPerValue;
            }
            int bit = (int) v & blockMask;
            all &= words[base + (bit >>> 6)] >>> bit;
            v >>>= blockShift;
        }
        return (all & 1) != 0;
    }

    /**
     * Σ over blocks of ln(1 − X<sub>b</sub>/L) / (k·ln(1 − 1/L)): the Swamidass–Baldi estimate applied per
     * block, since blocks fill unevenly and the whole-filter formula underestimates.
     */
    @Override
    public double approximateElementCount() {
        int wordsPerBlock = blockBits >>> 6;
        double perItem = k * Math.log1p(-1.0 / blockBits);
        double sum = 0;
        for (int b = 0; b < words.length; b += wordsPerBlock) {
            int set = 0;
            for (int w = b; w < b + wordsPerBlock; w++) {
                set += Long.bitCount(words[w]);
            }
            if (set >= blockBits) {
                return Double.POSITIVE_INFINITY;
            }
            sum += Math.log1p(-(double) set / blockBits) / perItem;
        }
        return sum;
    }

    /**
     * For the current state: the mean over blocks of (X<sub>b</sub>/L)<sup>k</sup>, the chance that k
     * positions of a uniformly chosen block all hit its X<sub>b</sub> set bits.
     */
    @Override
    public double expectedFpp() {
        int wordsPerBlock = blockBits >>> 6;
        double sum = 0;
        for (int b = 0; b < words.length; b += wordsPerBlock) {
            int set = 0;
            for (int w = b; w < b + wordsPerBlock; w++) {
                set += Long.bitCount(words[w]);
            }
            sum += Math.pow((double) set / blockBits, k);
        }
        return sum / blocks;
    }

    /**
     * Model false-positive probability with λ items per block on average, exact for this layout: Σ<sub>i</sub>
     * Poisson(λ; i)·E[(X<sub>i</sub>/B)<sup>k</sup>], the block's load i being Poisson and X<sub>i</sub> the set
     * bits of a block whose i items set k uniformly drawn bits of B each ({@link BlockOccupancy}). Computed in
     * O(k·(λ + 12√λ)·B) time.
     */
    public static double falsePositiveProbability(double itemsPerBlock, int k, int blockBits) {
        // beyond blockBits items per block the rate is 1 for any use, and the cost grows with the load
        if (!(itemsPerBlock >= 0 && itemsPerBlock <= blockBits) || k < 1 || k > blockBits) {
            throw new IllegalArgumentException("itemsPerBlock must be in [0, blockBits] and k in [1, blockBits], got "
                    + itemsPerBlock + ", " + k + ", " + blockBits);
        }
        double[] hit = BlockOccupancy.queryHitByItems(k, blockBits, Poisson.tailBound(itemsPerBlock));
        return BlockOccupancy.falsePositiveProbability(itemsPerBlock, hit);
    }

    /**
     * The mean-fill approximation Σ<sub>i</sub> Poisson(λ; i)·(1 − (1 − 1/B)<sup>k·i</sup>)<sup>k</sup>, which
     * scores a block of i items as exactly as full as the mean: a lower bound of the exact rate (Jensen), used to
     * bound the search of {@link #create}.
     */
    static double meanFillFpp(double itemsPerBlock, int k, int blockBits) {
        int max = Poisson.tailBound(itemsPerBlock);
        double[] pmf = Poisson.pmf(itemsPerBlock, max);
        double clear = StrictMath.pow(1.0 - 1.0 / blockBits, k);
        double clearPower = 1; // clear^i
        double sum = 0;
        for (int i = 0; i <= max; i++) {
            sum += pmf[i] * StrictMath.pow(1.0 - clearPower, k);
            clearPower *= clear;
        }
        return sum;
    }

    @Override
    Family family() {
        return Family.BLOCKED_BLOOM;
    }

    @Override
    String shapeParameterName() {
        return "blockBits";
    }

    @Override
    long shapeParameter() {
        return blockBits;
    }
}
