package io.linerate.flink.dedup;

import io.linerate.sketches.bloom.BlockedBloomFilter;

/**
 * A key's deduplication state: a ring of g Bloom-filter generations plus the rotation bookkeeping, held as one
 * keyed {@code ValueState} (serialized by {@link GenerationRingSerializer}).
 *
 * <p>Slot {@code e mod g} holds generation e, the items whose records were stamped in epoch e (time
 * [e·S, (e+1)·S)); in processing time, and for records in order, that is the epoch the key's clock was in. The ring
 * keeps epochs {@code epoch − g + 1 … epoch}; an empty generation is {@code null} (no bits allocated), so an idle
 * key costs a few bytes. A query tests every kept generation; an insert goes to the generation of the record's own
 * time, within the ring. Advancing the ring to a later epoch drops the generations that fall out.
 *
 * <p>Not thread-safe: it belongs to one key of one operator instance.
 */
public final class GenerationRing {

    /** {@link #timerAt()} when no rotation timer is registered. */
    public static final long NO_TIMER = Long.MIN_VALUE;

    /** {@link #testAndPut} result bit: the item was probably seen before. */
    static final int SEEN = 1;
    /** {@link #testAndPut} result bit: the ring changed. */
    static final int CHANGED = 2;
    /**
     * {@link #testAndPut} result bit: an older generation (closed, so not judged by {@link #advanceTo}) just took
     * its (capacity + 1)-th distinct item, with an out-of-order or late record.
     */
    static final int OVER_CAPACITY = 4;

    private final long seed;
    private final BlockedBloomFilter[] generations;
    private final long[] inserted;
    private long epoch;
    private long clock;
    private long timerAt;

    GenerationRing(int generations, long seed, long epoch, long clock) {
        this(seed, new BlockedBloomFilter[generations], new long[generations], epoch, clock, NO_TIMER);
    }

    GenerationRing(long seed, BlockedBloomFilter[] generations, long[] inserted, long epoch, long clock,
                   long timerAt) {
        this.seed = seed;
        this.generations = generations;
        this.inserted = inserted;
        this.epoch = epoch;
        this.clock = clock;
        this.timerAt = timerAt;
    }

    /** {@link #testAndPut(long, long, DedupSizing, long)} into the current generation (processing time). */
    int testAndPut(long h1, long h2, DedupSizing sizing) {
        return testAndPut(h1, h2, sizing, epoch);
    }

    /**
     * Tests the item (h1, h2) and makes sure the generation of its own time answers "present" for it from now on.
     * That generation is {@code timeEpoch}'s, the epoch of the record's timestamp (the current one unless the
     * record is behind its key's clock), kept within the ring: the current one for a later epoch, the oldest kept
     * one for an earlier one (a record so far behind is late).
     * <ol>
     *   <li>If that generation probably holds it ({@code mightContain}), it is a duplicate and nothing is
     *       written: the generation already answers "present" for it, and a filter's bits are only
     *       cleared when its whole generation is dropped, so an insert would change nothing (every bit it would
     *       set is set) and the item is remembered exactly as long as if it had been inserted. This is also the
     *       case of a false positive in that generation: the answer is "present" all the same, so
     *       the no-false-negative guarantee does not depend on it. One cache line, no write.</li>
     *   <li>Otherwise the other generations are tested, and the item is inserted into that one (creating
     *       it with {@code sizing} if it is empty): a repeat found only in an older generation is refreshed.</li>
     * </ol>
     * Hence a generation receives at most one insertion per distinct item whose timestamp falls in its span: its
     * load is the number of distinct items of the span, whatever the number of records, and out-of-order records
     * of a span that has closed load their own generation, not the current one.
     *
     * @return {@link #SEEN} if some generation probably holds the item, or-ed with {@link #CHANGED} if the
     *     ring changed
     */
    int testAndPut(long h1, long h2, DedupSizing sizing, long timeEpoch) {
        int g = generations.length;
        int current = slot(epoch);
        int target;
        if (timeEpoch >= epoch) {
            target = current;
        } else {
            long behind = epoch - timeEpoch; // negative only if it overflowed: then far more than g
            target = behind > 0 && behind < g ? slot(timeEpoch) : (current + 1) % g; // the oldest kept: epoch − g + 1
        }
        BlockedBloomFilter f = generations[target];
        if (f != null && f.mightContain(h1, h2)) {
            return SEEN;
        }
        boolean seen = false;
        for (int i = 0; i < g; i++) {
            BlockedBloomFilter other = generations[i];
            if (i != target && other != null) {
                seen |= other.mightContain(h1, h2);
            }
        }
        if (f == null) {
            f = sizing.newGeneration();
            generations[target] = f;
        }
        f.put(h1, h2); // sets at least one bit: the filter did not answer "present"
        inserted[target]++;
        // a generation that closed within capacity can still grow (stragglers of its span, late records in the
        // oldest): count it when it goes over, once; the current one is judged when it closes (advanceTo)
        int over = target != current
                && inserted[target] == capacityOf(f, sizing.itemsPerGeneration(), sizing.bitsPerGeneration()) + 1
                ? OVER_CAPACITY : 0;
        return (seen ? SEEN : 0) | CHANGED | over;
    }

    /**
     * The distinct items the current generation was sized for: {@code capacity} for a filter of {@code bits}, in
     * proportion for one of another size (restored from a configuration of another rate or fpp; exact when only the
     * rate changed, the bits per item being the same).
     */
    long currentCapacity(long capacity, long bits) {
        return capacityOf(generations[slot(epoch)], capacity, bits);
    }

    private static long capacityOf(BlockedBloomFilter f, long capacity, long bits) {
        if (f == null || f.bitSize() == bits) {
            return capacity;
        }
        return (long) Math.ceil((double) capacity * f.bitSize() / bits);
    }

    /**
     * 1 if the current generation holds more than {@code capacity} distinct items, else 0: what {@link #advanceTo}
     * would count for it when it closes, for a generation that never closes (the end of the input).
     */
    int currentOverCapacity(long capacity) {
        return inserted[slot(epoch)] > capacity ? 1 : 0;
    }

    /**
     * Makes {@code target} the current epoch, dropping generations older than {@code target − g + 1}. Only the
     * generation that was current closes (the epochs in between were never current, so they are empty).
     *
     * @return 1 if the closing generation took more than {@code capacity} distinct items, else 0
     */
    int advanceTo(long target, long capacity) {
        if (target <= epoch) {
            return 0;
        }
        int over = inserted[slot(epoch)] > capacity ? 1 : 0;
        int g = generations.length;
        long distance = target - epoch; // negative only if it overflowed: then it is far more than g
        long steps = distance < 0 || distance > g ? g : distance;
        for (long i = steps - 1; i >= 0; i--) { // counted, not "e <= target": target may be Long.MAX_VALUE
            int s = slot(target - i);
            generations[s] = null;
            inserted[s] = 0;
        }
        epoch = target;
        return over;
    }

    /**
     * Probability that an item not in the ring is reported present, from each generation's fill:
     * 1 − Π<sub>i</sub>(1 − f<sub>i</sub>) with f<sub>i</sub> = {@link BlockedBloomFilter#expectedFpp()}.
     * Costs a pass over every kept filter's bits.
     */
    public double estimatedFpp() {
        double none = 1.0;
        for (BlockedBloomFilter f : generations) {
            if (f != null) {
                none *= 1.0 - f.expectedFpp();
            }
        }
        return 1.0 - none;
    }

    /** True when no generation holds any item: the key's state can be cleared. */
    boolean isEmpty() {
        for (BlockedBloomFilter f : generations) {
            if (f != null) {
                return false;
            }
        }
        return true;
    }

    private int slot(long e) {
        return (int) Math.floorMod(e, (long) generations.length);
    }

    /** The seed every generation of this key hashes with. */
    public long seed() {
        return seed;
    }

    /** g. */
    public int generationCount() {
        return generations.length;
    }

    /** The generation of epoch {@code e} if it is kept and non-empty, else {@code null}. */
    public BlockedBloomFilter generation(long e) {
        return kept(e) ? generations[slot(e)] : null;
    }

    /** Distinct items inserted into the generation of epoch {@code e} (0 if it is not kept). */
    public long inserted(long e) {
        return kept(e) ? inserted[slot(e)] : 0;
    }

    /** Whether epoch {@code e} is one of the g kept: e ≤ epoch and epoch − e < g, without overflow near the ends. */
    private boolean kept(long e) {
        return e <= epoch && Long.compareUnsigned(epoch - e, generations.length) < 0;
    }

    /** The current generation's epoch: ⌊clock / S⌋ at the last rotation. */
    public long epoch() {
        return epoch;
    }

    /** The key's clock: the largest time it has seen (event time: watermark or record timestamp). */
    public long clock() {
        return clock;
    }

    void clock(long clock) {
        this.clock = clock;
    }

    /** When the registered rotation timer fires, or {@link #NO_TIMER}. */
    public long timerAt() {
        return timerAt;
    }

    void timerAt(long timerAt) {
        this.timerAt = timerAt;
    }

    /** Memory of the allocated filters' bits. */
    public long memoryBytes() {
        long bytes = 0;
        for (BlockedBloomFilter f : generations) {
            bytes += f == null ? 0 : f.memoryBytes();
        }
        return bytes;
    }

    /** Heap of a ring beyond its filters' bits, estimated: the ring, its two arrays, a cache entry holding it. */
    static final int RING_OVERHEAD_BYTES = 192;
    /** Heap of one allocated filter beyond its bits: the filter, its array header, its seeded hasher. */
    static final int FILTER_OVERHEAD_BYTES = 720;

    /**
     * Estimated heap of a ring of {@code g} generations with {@code filters} of them allocated, beyond the bits.
     * (Measured with JOL: a ring of 4 generations holding one 64-byte filter takes 864 bytes; small rings are mostly
     * this overhead, which weighing them by their bits alone ignored.)
     */
    static long heapOverhead(int g, int filters) {
        return RING_OVERHEAD_BYTES + 16L * g + (long) FILTER_OVERHEAD_BYTES * filters;
    }

    /** Estimated heap of this ring: its filters' bits and {@link #heapOverhead}; what the state cache weighs. */
    public long heapBytes() {
        int filters = 0;
        for (BlockedBloomFilter f : generations) {
            filters += f == null ? 0 : 1;
        }
        return memoryBytes() + heapOverhead(generations.length, filters);
    }

    /** Slot contents for the serializer, in slot order. */
    BlockedBloomFilter slotFilter(int slot) {
        return generations[slot];
    }

    long slotInserted(int slot) {
        return inserted[slot];
    }

    @Override
    public String toString() {
        int present = 0;
        for (BlockedBloomFilter f : generations) {
            present += f == null ? 0 : 1;
        }
        return "GenerationRing[epoch=" + epoch + ", clock=" + clock + ", generations=" + generations.length
                + ", nonEmpty=" + present + ", timerAt=" + timerAt + "]";
    }
}
