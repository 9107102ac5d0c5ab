package io.linerate.sketches.flowtable;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;

/**
 * The shape of a multilevel hash table: bucket count of each sub-table T<sub>1</sub>..T<sub>d</sub>
 * (left to right), items per bucket, and the capacity of the overflow stash.
 *
 * <p>Chapter 5 of the thesis sizes sub-table i as ⌊α<sub>i</sub>·n⌋ buckets for n items
 * ({@link #forItems}); chapter 4 uses explicit sizes such as 40k, 10k, 5k, 2.5k, 2.5k ({@link #of}).
 */
public final class TableLayout {

    /** Upper bound on the number of sub-tables. */
    public static final int MAX_LEVELS = 16;
    /** Upper bound on the stash (it is searched linearly on every miss). */
    public static final int MAX_STASH = 1 << 16;
    /** Upper bound on table slots: 2<sup>28</sup> (every slot needs a few longs of entry storage). */
    public static final long MAX_SLOTS = 1L << 28;
    /** Default stash capacity: the CAM of 64 entries of §5.6. */
    public static final int DEFAULT_STASH = 64;

    private final int[] buckets;
    private final int bucketCapacity;
    private final int stashCapacity;

    private TableLayout(int[] buckets, int bucketCapacity, int stashCapacity) {
        if (buckets.length < 1 || buckets.length > MAX_LEVELS) {
            throw new IllegalArgumentException("levels must be in [1, " + MAX_LEVELS + "], got " + buckets.length);
        }
        if (bucketCapacity != 1 && bucketCapacity != 2) {
            throw new IllegalArgumentException("bucketCapacity must be 1 or 2, got " + bucketCapacity);
        }
        if (stashCapacity < 0 || stashCapacity > MAX_STASH) {
            throw new IllegalArgumentException("stashCapacity must be in [0, " + MAX_STASH + "], got "
                    + stashCapacity);
        }
        long slots = 0;
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] < 1) {
                throw new IllegalArgumentException("sub-table " + (i + 1) + " must have at least 1 bucket, got "
                        + buckets[i]);
            }
            slots += (long) buckets[i] * bucketCapacity;
        }
        if (slots > MAX_SLOTS) {
            throw new IllegalArgumentException("table would have " + slots + " slots, limit is " + MAX_SLOTS);
        }
        this.buckets = buckets;
        this.bucketCapacity = bucketCapacity;
        this.stashCapacity = stashCapacity;
    }

    /** Explicit bucket counts per sub-table, left to right. */
    public static TableLayout of(int bucketCapacity, int stashCapacity, int... buckets) {
        return new TableLayout(buckets.clone(), bucketCapacity, stashCapacity);
    }

    /**
     * Sub-table i gets ⌊α<sub>i</sub>·items⌋ buckets (at least one) with the scheme's bucket capacity.
     *
     * @param alphas buckets per item of each sub-table, e.g. {@link InsertionScheme#defaultAlphas}
     */
    public static TableLayout forItems(long items, InsertionScheme scheme, double[] alphas, int stashCapacity) {
        if (items < 1 || items > MAX_SLOTS) {
            throw new IllegalArgumentException("capacity (flows) must be in [1, " + MAX_SLOTS + "], got " + items);
        }
        int[] b = new int[alphas.length];
        for (int i = 0; i < alphas.length; i++) {
            if (!(alphas[i] > 0 && alphas[i] <= 64)) {
                throw new IllegalArgumentException("alpha of sub-table " + (i + 1) + " must be in (0, 64], got "
                        + alphas[i]);
            }
            // ⌊α·items⌋ of the decimal α as written: the double product can land just below an integer
            // (0.1735 · 10000 = 1734.9999999999998), which would drop a bucket from the thesis's |T_i|
            double buckets = new BigDecimal(Double.toString(alphas[i])).multiply(BigDecimal.valueOf(items))
                    .setScale(0, RoundingMode.FLOOR).doubleValue();
            if (buckets > MAX_SLOTS) {
                throw new IllegalArgumentException("sub-table " + (i + 1) + " would have " + (long) buckets
                        + " buckets, limit is " + MAX_SLOTS);
            }
            b[i] = Math.max(1, (int) buckets);
        }
        return new TableLayout(b, scheme.bucketCapacity(), stashCapacity);
    }

    /** Table 5.1's sizes for {@code items} items with d = {@code levels} and the default stash of 64. */
    public static TableLayout forItems(long items, InsertionScheme scheme, int levels) {
        return forItems(items, scheme, scheme.defaultAlphas(levels), DEFAULT_STASH);
    }

    public int levels() {
        return buckets.length;
    }

    public int buckets(int level) {
        return buckets[level];
    }

    public int[] buckets() {
        return buckets.clone();
    }

    public int bucketCapacity() {
        return bucketCapacity;
    }

    public int stashCapacity() {
        return stashCapacity;
    }

    /** Item slots in the sub-tables (not counting the stash). */
    public int tableSlots() {
        long s = 0;
        for (int b : buckets) {
            s += (long) b * bucketCapacity;
        }
        return (int) s;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableLayout)) {
            return false;
        }
        TableLayout t = (TableLayout) o;
        return bucketCapacity == t.bucketCapacity && stashCapacity == t.stashCapacity
                && Arrays.equals(buckets, t.buckets);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(buckets) * 31 + bucketCapacity * 7 + stashCapacity;
    }

    @Override
    public String toString() {
        return "TableLayout[buckets=" + Arrays.toString(buckets) + ", bucketCapacity=" + bucketCapacity
                + ", stash=" + stashCapacity + "]";
    }
}
