package io.linerate.flink.dedup;

import io.linerate.flink.serializers.ImageSerializer;
import io.linerate.sketches.bloom.BlockedBloomFilter;

import java.io.Serializable;
import java.time.Duration;

/**
 * The sizes a {@link Deduplicator} derives from its horizon, generation count, expected rate and target
 * false-positive probability, fixed when the job is built.
 *
 * <p>With horizon H and g generations:
 * <ul>
 *   <li>span S = ⌈H / (g − 1)⌉ ms: generation e holds the items inserted while the key's clock was in
 *       [e·S, (e+1)·S), and a key keeps the g generations e − g + 1 … e, so an item inserted at clock T is
 *       remembered until the clock reaches (⌊T/S⌋ + g)·S &gt; T + (g − 1)·S ≥ T + H (and at most T + g·S);</li>
 *   <li>items per generation n = ⌈rate · S⌉ (rate in distinct items per second per key, holding over every span S:
 *       for S below a second, or not a whole number of seconds, a limit per second alone does not bound a span's
 *       items by rate · S): a generation receives
 *       at most one insertion per distinct item during its span (a repeat already in the current generation is
 *       not written; a repeat found only in an older one is refreshed, once), so its load is the number of
 *       distinct items of the span, at most rate · S, however many records repeat them;</li>
 *   <li>per-generation false-positive probability p<sub>g</sub> = 1 − (1 − p)<sup>1/g</sup>: a unique item is
 *       queried against at most g generations, each with at most n items, so the probability it is flagged is
 *       at most 1 − Π<sub>i=1..g</sub>(1 − p<sub>g</sub>) = p;</li>
 *   <li>each generation is a {@link BlockedBloomFilter} sized by its exact Poisson-load model for n items at
 *       p<sub>g</sub> (512-bit blocks: one cache line per query, g per record).</li>
 * </ul>
 */
public final class DedupSizing implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Fixed bytes of a serialized ring besides its filters: seed, epoch, clock, timer, count, per slot a flag. */
    private static final long RING_HEADER_BYTES = 8 + 8 + 8 + 8 + 4;
    private static final long FILTER_IMAGE_OVERHEAD = 4 + 8 + 8 + 8 + 4 + 8 + 4; // length, preamble, fields, CRC

    private final long horizonMillis;
    private final int generations;
    private final long spanMillis;
    private final double expectedRate;
    private final double fpp;
    private final long itemsPerGeneration;
    private final double fppPerGeneration;
    private final long bitsPerGeneration;
    private final int hashCount;
    private final int blockBits;
    private final long seed;

    private DedupSizing(long horizonMillis, int generations, long spanMillis, double expectedRate, double fpp,
                        long itemsPerGeneration, double fppPerGeneration, long bitsPerGeneration, int hashCount,
                        int blockBits, long seed) {
        this.horizonMillis = horizonMillis;
        this.generations = generations;
        this.spanMillis = spanMillis;
        this.expectedRate = expectedRate;
        this.fpp = fpp;
        this.itemsPerGeneration = itemsPerGeneration;
        this.fppPerGeneration = fppPerGeneration;
        this.bitsPerGeneration = bitsPerGeneration;
        this.hashCount = hashCount;
        this.blockBits = blockBits;
        this.seed = seed;
    }

    /**
     * Derives the sizes; the arguments are checked by the builder, the limits of the result here.
     *
     * @throws IllegalArgumentException naming the parameters if a generation or a key's state is too large
     */
    static DedupSizing derive(Duration horizon, int generations, double expectedRate, double fpp, long seed,
                              long memoryBudget) {
        long horizonMillis = horizon.toMillis();
        long span = ceilDiv(horizonMillis, generations - 1);
        double items = Math.ceil(expectedRate * span / 1000.0);
        String given = "horizon=" + horizon + ", generations=" + generations + ", expectedRate=" + expectedRate
                + ", fpp=" + fpp;
        if (items > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("expectedRate times the generation span (" + span + " ms) is "
                    + items + " items per generation, above the limit of " + Integer.MAX_VALUE + " (" + given + ")");
        }
        long n = Math.max(1, (long) items);
        double pg = -StrictMath.expm1(StrictMath.log1p(-fpp) / generations);
        // the standard filter's m = -n ln p / ln²2 is a lower bound on the blocked filter's size: check the
        // limits on it before allocating a prototype
        double lowerBoundBytes = generations * (-n * StrictMath.log(pg) / (StrictMath.log(2) * StrictMath.log(2))) / 8;
        // a budget tightens the state limit (one state value, a byte array), never lifts it
        long limit = memoryBudget > 0 ? Math.min(memoryBudget, ImageSerializer.MAX_IMAGE_BYTES)
                : ImageSerializer.MAX_IMAGE_BYTES;
        String limitName = memoryBudget > 0 && memoryBudget < ImageSerializer.MAX_IMAGE_BYTES
                ? "memoryBudget of " + memoryBudget + " bytes per key"
                : "the state limit of " + ImageSerializer.MAX_IMAGE_BYTES + " bytes per key (one state value)";
        if (lowerBoundBytes > limit) {
            throw new IllegalArgumentException(limitName + " is too small: " + given + " need at least "
                    + (long) lowerBoundBytes + " bytes per key");
        }
        // the size alone: a prototype filter would allocate a generation's bits (up to GBs) at build time
        BlockedBloomFilter.Size prototype;
        try {
            prototype = BlockedBloomFilter.size(n, pg, BlockedBloomFilter.DEFAULT_BLOCK_BITS);
        } catch (IllegalArgumentException e) {
            // the blocked filter (k ≤ 32 bits in a 512-bit block) can need far more than the lower bound above for
            // a tiny fpp: say so with the builder's parameters and limit, not the filter's per-generation figures
            throw new IllegalArgumentException(limitName + " is too small: " + given + " need a filter larger than"
                    + " any a state value can hold (" + e.getMessage() + ")", e);
        }
        DedupSizing sizing = new DedupSizing(horizonMillis, generations, span, expectedRate, fpp, n, pg,
                prototype.bitSize(), prototype.hashCount(), prototype.blockBits(), seed);
        if (sizing.stateBytesPerKey() > limit) {
            throw new IllegalArgumentException(limitName + " is too small: " + given + " need "
                    + sizing.stateBytesPerKey() + " bytes per key (" + generations + " filters of "
                    + prototype.memoryBytes() + " bytes)");
        }
        return sizing;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** A new, empty generation filter. */
    BlockedBloomFilter newGeneration() {
        return BlockedBloomFilter.withBits(bitsPerGeneration, hashCount, seed, blockBits);
    }

    /** The epoch (generation number) whose span holds clock time {@code time}: ⌊time / S⌋. */
    long epochOf(long time) {
        return Math.floorDiv(time, spanMillis);
    }

    /**
     * Whether {@code epoch} is the last one a clock can reach: the next would start beyond Long.MAX_VALUE, so no
     * rotation follows it.
     */
    boolean isLastEpoch(long epoch) {
        return epoch >= epochOf(Long.MAX_VALUE);
    }

    /** Start of the epoch after {@code epoch}, where its rotation is due; not for the last ({@link #isLastEpoch}). */
    long rotationAfter(long epoch) {
        if (isLastEpoch(epoch)) {
            throw new IllegalArgumentException("epoch " + epoch + " is the last: no rotation follows it");
        }
        return (epoch + 1) * spanMillis; // at most epochOf(Long.MAX_VALUE) · S ≤ Long.MAX_VALUE
    }

    /** The shape of the rings an operator of this sizing keeps, in event or processing time. */
    RingShape shape(boolean eventTime) {
        return new RingShape(generations, spanMillis, bitsPerGeneration, hashCount, blockBits, seed,
                RingShape.Time.of(eventTime));
    }

    /** H in milliseconds. */
    public long horizonMillis() {
        return horizonMillis;
    }

    /** g: generations a key keeps. */
    public int generations() {
        return generations;
    }

    /** S = ⌈H / (g − 1)⌉ ms: the time one generation covers, and the rotation period. */
    public long spanMillis() {
        return spanMillis;
    }

    /** Distinct items per second per key the generations are sized for. */
    public double expectedRate() {
        return expectedRate;
    }

    /** p: the target probability that a unique item is flagged. */
    public double fpp() {
        return fpp;
    }

    /** n = ⌈rate · S⌉: distinct items a generation is sized for; more makes it over capacity. */
    public long itemsPerGeneration() {
        return itemsPerGeneration;
    }

    /** p<sub>g</sub> = 1 − (1 − p)<sup>1/g</sup>. */
    public double fppPerGeneration() {
        return fppPerGeneration;
    }

    /** Bits of each generation's blocked Bloom filter. */
    public long bitsPerGeneration() {
        return bitsPerGeneration;
    }

    /** k: bits each item sets in its block of a generation's filter. */
    public int hashCount() {
        return hashCount;
    }

    /** Bits per block of the filters (one cache line). */
    public int blockBits() {
        return blockBits;
    }

    /** The hash seed of every generation. */
    public long seed() {
        return seed;
    }

    /** Serialized bytes of a key whose g generations are all allocated: the most one key holds. */
    public long stateBytesPerKey() {
        return RING_HEADER_BYTES + generations * (9 + FILTER_IMAGE_OVERHEAD + bitsPerGeneration / 8);
    }

    @Override
    public String toString() {
        return "DedupSizing{horizon=" + horizonMillis + " ms, generations=" + generations + ", span=" + spanMillis
                + " ms, itemsPerGeneration=" + itemsPerGeneration + ", fppPerGeneration=" + fppPerGeneration
                + ", bitsPerGeneration=" + bitsPerGeneration + ", hashCount=" + hashCount + ", stateBytesPerKey="
                + stateBytesPerKey() + "}";
    }
}
