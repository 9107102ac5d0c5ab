package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.Arrays;

/**
 * A counting Bloom filter (Fan et al.; thesis §2.1.2): m counters of w bits (4 by default) packed into
 * longs; an item increments its k counters, a removal decrements them, so the filter holds a multiset.
 *
 * <p><b>Saturation.</b> A counter that reaches 2<sup>w</sup>−1 stays there: further increments are lost
 * (counted by {@link #lostIncrements()}) and it is never decremented again, so a saturated counter can only
 * raise the false-positive rate, never cause a false negative (research notes, part 2 §2.6). With 4-bit
 * counters and k = (m/n) ln 2 the chance that any counter saturates (reaches 15) is at most
 * m·Pr(Poisson(ln 2) ≥ 15), about 1.3·10<sup>−10</sup> at m = 80,000 (research notes; the thesis's
 * Pr(≥ 16), 5.66·10<sup>−12</sup> at that m, is the chance of a count past 15, which a frozen counter never
 * reaches).
 *
 * <p><b>Removing an item never added.</b> If one of its counters is zero the item is certainly absent:
 * {@link #remove} changes nothing, returns {@code false} and counts it in {@link #rejectedRemovals()}.
 * Otherwise the removal cannot be told from a legitimate one (it is a false positive) and it proceeds.
 */
public final class CountingBloomFilter implements BloomFilter {

    static final int IMAGE_VERSION = 1;
    public static final int DEFAULT_COUNTER_BITS = 4;

    private final ItemHasher hasher;
    private final long counters;
    private final int k;
    private final int counterBits;
    private final int perWordShift;
    private final long max;
    private final Probing probing;
    private final long[] offsets;
    private final long[] words;
    private final long[] scratch;
    private long nonZero;
    private long saturated;
    private long lostIncrements;
    private long rejectedRemovals;

    private CountingBloomFilter(ItemHasher hasher, long counters, int k, int counterBits, Probing probing,
                                long[] words) {
        checkCounterBits(counterBits);
        Checks.positive("counters", counters, MAX_BITS / counterBits);
        this.hasher = hasher;
        this.counters = counters;
        this.k = Checks.hashCount(k);
        this.counterBits = counterBits;
        this.perWordShift = Integer.numberOfTrailingZeros(64 / counterBits);
        this.max = (1L << counterBits) - 1;
        this.probing = probing;
        this.offsets = probing.offsets(k, counters);
        this.words = words != null ? words : new long[(int) ((counters + (64 / counterBits) - 1) >>> perWordShift)];
        this.scratch = new long[k];
        if (words != null) {
            for (long i = 0; i < counters; i++) {
                long c = get(i);
                nonZero += c != 0 ? 1 : 0;
                saturated += c == max ? 1 : 0;
            }
        }
    }

    /** An independent copy of {@code other} (its counters, counts of non-zero and saturated counters, totals). */
    private CountingBloomFilter(CountingBloomFilter other) {
        this.hasher = other.hasher;
        this.counters = other.counters;
        this.k = other.k;
        this.counterBits = other.counterBits;
        this.perWordShift = other.perWordShift;
        this.max = other.max;
        this.probing = other.probing;
        this.offsets = other.offsets; // never written after construction
        this.words = Arrays.copyOf(other.words, other.words.length);
        this.scratch = new long[k];
        this.nonZero = other.nonZero;
        this.saturated = other.saturated;
        this.lostIncrements = other.lostIncrements;
        this.rejectedRemovals = other.rejectedRemovals;
    }

    /**
     * An independent copy: same seed, shape, counters and the counts of lost increments and rejected removals
     * (so the same image); one array copy, no validation.
     */
    @Override
    public CountingBloomFilter copy() {
        return new CountingBloomFilter(this);
    }

    /** m counters and k as the standard filter for ({@code expectedItems}, {@code fpp}), 4-bit counters. */
    public static CountingBloomFilter create(long expectedItems, double fpp) {
        return create(expectedItems, fpp, ItemHasher.DEFAULT_SEED);
    }

    public static CountingBloomFilter create(long expectedItems, double fpp, long seed) {
        long m = BloomSizing.optimalBits(expectedItems, fpp);
        return withCounters(m, BloomSizing.optimalHashCount(expectedItems, m), DEFAULT_COUNTER_BITS, seed);
    }

    /**
     * @param counterBits width of each counter: 2, 4, 8 or 16
     */
    public static CountingBloomFilter withCounters(long counters, int hashCount, int counterBits, long seed) {
        return new CountingBloomFilter(ItemHasher.seeded(seed), counters, hashCount, counterBits,
                Probing.ENHANCED_CUBIC, null);
    }

    private static void checkCounterBits(int w) {
        if (w != 2 && w != 4 && w != 8 && w != 16) {
            throw new IllegalArgumentException("counterBits must be 2, 4, 8 or 16, got " + w);
        }
    }

    private long get(long i) {
        int shift = (int) (i & ((1 << perWordShift) - 1)) * counterBits;
        return (words[(int) (i >>> perWordShift)] >>> shift) & max;
    }

    private void set(long i, long value) {
        int shift = (int) (i & ((1 << perWordShift) - 1)) * counterBits;
        int w = (int) (i >>> perWordShift);
        words[w] = (words[w] & ~(max << shift)) | (value << shift);
    }

    /**
     * Increments the item's k counters.
     *
     * @return {@code true} if one of them was zero, i.e. the item was certainly absent before
     */
    @Override
    public boolean put(long h1, long h2) {
        DoubleHashing.indexes(h1, h2, counters, probing, offsets, scratch);
        boolean wasAbsent = false;
        for (int i = 0; i < k; i++) {
            long c = get(scratch[i]);
            if (c == max) {
                lostIncrements = saturatingAdd(lostIncrements, 1);
                continue;
            }
            if (c == 0) {
                nonZero++;
                wasAbsent = true;
            }
            set(scratch[i], c + 1);
            if (c + 1 == max) {
                saturated++;
            }
        }
        return wasAbsent;
    }

    /**
     * Decrements the item's k counters, skipping saturated ones.
     *
     * @return {@code false}, with no change, if the item was certainly never added (a counter was zero)
     */
    public boolean remove(long h1, long h2) {
        DoubleHashing.indexes(h1, h2, counters, probing, offsets, scratch);
        for (int i = 0; i < k; i++) {
            long c = get(scratch[i]);
            if (c == 0) {
                undoDecrements(i);
                rejectedRemovals = saturatingAdd(rejectedRemovals, 1);
                return false;
            }
            if (c == max) {
                continue;
            }
            set(scratch[i], c - 1);
            if (c == 1) {
                nonZero--;
            }
        }
        return true;
    }

    /** Re-increments the first {@code done} indexes (an index can repeat, so this walks them in order). */
    private void undoDecrements(int done) {
        for (int j = 0; j < done; j++) {
            long c = get(scratch[j]);
            if (c == max) {
                continue; // was saturated, so it was skipped, not decremented
            }
            if (c == 0) {
                nonZero++;
            }
            set(scratch[j], c + 1);
        }
    }

    public boolean remove(long item) {
        long h1 = hasher.hash(item);
        return remove(h1, ItemHasher.h2(h1));
    }

    public boolean remove(byte[] bytes, int offset, int length) {
        long h1 = hasher.hash(bytes, offset, length);
        return remove(h1, ItemHasher.h2(h1));
    }

    public boolean remove(CharSequence chars) {
        long h1 = hasher.hash(chars);
        return remove(h1, ItemHasher.h2(h1));
    }

    public boolean remove(FiveTuple tuple) {
        long h1 = hasher.hash(tuple);
        return remove(h1, ItemHasher.h2(h1));
    }

    @Override
    public boolean mightContain(long h1, long h2) {
        long m = counters;
        long x = DoubleHashing.reduce(h1, m);
        long step = probing.stride(h2, m);
        for (int i = 0; i < k; i++) {
            long g = x + offsets[i];
            if (get(g >= m ? g - m : g) == 0) {
                return false;
            }
            x += step;
            if (x >= m) {
                x -= m;
            }
        }
        return true;
    }

    /**
     * The smallest of the item's counters, each divided by how many of the item's k indexes fall on it: an upper
     * bound on how many times it was added (minus removed), exact unless other items share all its counters or
     * one of them saturated. (Indexes of one item can coincide, for instance with probability 1/m at k = 2 under
     * enhanced double hashing; each put then adds that many to the counter.) The exception is a result of
     * 2<sup>w</sup>−1, returned when all the item's counters are saturated: it means at least 2<sup>w</sup>−1, not
     * at most (an item added 100 times with 4-bit counters counts 15).
     */
    public long count(long h1, long h2) {
        DoubleHashing.indexes(h1, h2, counters, probing, offsets, scratch);
        long min = max;
        for (int i = 0; i < k; i++) {
            long c = get(scratch[i]);
            if (c < max) { // a saturated counter stays at max: it no longer knows how many increments it had
                int times = 0;
                for (int j = 0; j < k; j++) {
                    times += scratch[j] == scratch[i] ? 1 : 0;
                }
                c /= times;
            }
            min = Math.min(min, c);
        }
        return min;
    }

    public long count(long item) {
        long h1 = hasher.hash(item);
        return count(h1, ItemHasher.h2(h1));
    }

    /** Counters that reached 2<sup>w</sup>−1 and are frozen there. */
    public long saturatedCounters() {
        return saturated;
    }

    /** Increments dropped because their counter was saturated (the total saturates at {@code Long.MAX_VALUE}). */
    public long lostIncrements() {
        return lostIncrements;
    }

    /** Removals refused because the item was certainly absent (the total saturates at {@code Long.MAX_VALUE}). */
    public long rejectedRemovals() {
        return rejectedRemovals;
    }

    public int counterBits() {
        return counterBits;
    }

    /** The counter values in index order; a copy, for inspection and tests. */
    public long[] counterValues() {
        long[] v = new long[(int) Math.min(Integer.MAX_VALUE - 8, counters)];
        for (int i = 0; i < v.length; i++) {
            v[i] = get(i);
        }
        return v;
    }

    @Override
    public ItemHasher hasher() {
        return hasher;
    }

    @Override
    public long bitSize() {
        return counters;
    }

    @Override
    public int hashCount() {
        return k;
    }

    /** Non-zero counters. */
    @Override
    public long bitCount() {
        return nonZero;
    }

    /** (Z/m)<sup>k</sup> with Z the non-zero counters. */
    @Override
    public double expectedFpp() {
        return Math.pow((double) nonZero / counters, k);
    }

    @Override
    public long memoryBytes() {
        return (long) words.length * Long.BYTES;
    }

    /** Adds {@code other}'s counters to this filter's, saturating at 2<sup>w</sup>−1. */
    @Override
    public void union(BloomFilter other) {
        if (!(other instanceof CountingBloomFilter)) {
            throw new IllegalArgumentException("cannot union a CountingBloomFilter with "
                    + (other == null ? "null" : "a " + other.getClass().getSimpleName()));
        }
        CountingBloomFilter o = (CountingBloomFilter) other;
        Checks.same("counters", counters, o.counters);
        Checks.same("hashCount", k, o.k);
        Checks.same("counterBits", counterBits, o.counterBits);
        Checks.same("probing", probing, o.probing);
        Checks.same("seed", hasher.seed(), o.hasher.seed());
        long otherLost = o.lostIncrements; // read before the loop: other may be this filter
        long otherRejected = o.rejectedRemovals;
        nonZero = 0;
        saturated = 0;
        for (long i = 0; i < counters; i++) {
            long sum = get(i) + o.get(i);
            if (sum > max) {
                lostIncrements = saturatingAdd(lostIncrements, sum - max);
                sum = max;
            }
            set(i, sum);
            nonZero += sum != 0 ? 1 : 0;
            saturated += sum == max ? 1 : 0;
        }
        lostIncrements = saturatingAdd(lostIncrements, otherLost);
        rejectedRemovals = saturatingAdd(rejectedRemovals, otherRejected);
    }

    /**
     * a + b for non-negative totals, at most {@code Long.MAX_VALUE}: the totals an image holds lie in
     * [0, Long.MAX_VALUE], so one that wrapped to a negative value would make the filter's image unreadable.
     */
    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
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
        return new ImageWriter(Family.COUNTING_BLOOM, IMAGE_VERSION, 8 + 8 + 4 + 4 + 4 + 8 + 8 + 8L * words.length,
                sink)
                .putLong(hasher.seed())
                .putLong(counters)
                .putInt(k)
                .putInt(counterBits)
                .putInt(probing.id())
                .putLong(lostIncrements)
                .putLong(rejectedRemovals)
                .putLongs(words, 0, words.length)
                .finish();
    }

    static CountingBloomFilter fromImage(ImageReader in) {
        ItemHasher hasher = ItemHasher.seeded(in.getLong("seed"));
        long counters = in.getLong("counters", 1, MAX_BITS / 2);
        int k = in.getInt("hashCount", 1, MAX_HASH_COUNT);
        int counterBits = in.getInt("counterBits", 2, 16);
        checkCounterBits(counterBits);
        if (counters * counterBits > MAX_BITS) {
            throw new IllegalArgumentException("image field counters is " + counters + ", at most "
                    + MAX_BITS / counterBits + " counters of " + counterBits + " bits");
        }
        Probing probing = Probing.ofId(in.getInt("probing"));
        long lost = in.getLong("lostIncrements", 0, Long.MAX_VALUE);
        long rejected = in.getLong("rejectedRemovals", 0, Long.MAX_VALUE);
        int perWord = 64 / counterBits;
        long[] words = in.getLongs("words", (counters + perWord - 1) / perWord);
        in.finish();
        int usedBits = (int) (counters % perWord) * counterBits;
        if (usedBits != 0 && (words[words.length - 1] >>> usedBits) != 0) {
            throw new IllegalArgumentException("image corrupt: counter bits set beyond counter " + counters);
        }
        CountingBloomFilter f = new CountingBloomFilter(hasher, counters, k, counterBits, probing, words);
        f.lostIncrements = lost;
        f.rejectedRemovals = rejected;
        return f;
    }

    @Override
    public String toString() {
        return "CountingBloomFilter[counters=" + counters + " x " + counterBits + " bits, k=" + k + ", nonZero="
                + nonZero + ", saturated=" + saturated + "]";
    }
}
