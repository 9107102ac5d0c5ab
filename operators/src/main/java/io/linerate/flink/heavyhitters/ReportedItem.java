package io.linerate.flink.heavyhitters;

import java.util.Objects;

/**
 * One item of a {@link HeavyHitterReport}: {@code lowerBound ≤ true weight in the window ≤ upperBound}, with the
 * tracker's estimate (for Space-Saving, the upper bound).
 *
 * <p>A Flink POJO of plain fields. The item is its rendering as a string, so the type needs neither Kryo nor a
 * per-kind schema: a {@code long} item in decimal, a string item itself, a byte item in lowercase hex, a 5-tuple as
 * {@code "src dst srcPort dstPort protocol"}.
 */
public final class ReportedItem {

    /** The item, rendered as above. */
    public String item;
    /** The tracker's estimate of the item's weight in the window. */
    public long estimate;
    /** The item's weight in the window is at least this. */
    public long lowerBound;
    /** The item's weight in the window is at most this. */
    public long upperBound;
    /** Whether {@code upperBound ≥ φ·N}: reported as a possible heavy hitter, not only as one of the top k. */
    public boolean heavy;

    /** For Flink's POJO serializer. */
    public ReportedItem() {
    }

    /** An item as a report lists it. */
    public ReportedItem(String item, long estimate, long lowerBound, long upperBound, boolean heavy) {
        this.item = item;
        this.estimate = estimate;
        this.lowerBound = lowerBound;
        this.upperBound = upperBound;
        this.heavy = heavy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReportedItem r && Objects.equals(item, r.item) && estimate == r.estimate
                && lowerBound == r.lowerBound && upperBound == r.upperBound && heavy == r.heavy;
    }

    @Override
    public int hashCode() {
        return Objects.hash(item, estimate, lowerBound, upperBound, heavy);
    }

    /** {@code item=estimate[lower..upper]}, with a trailing {@code *} for a possible heavy hitter. */
    @Override
    public String toString() {
        return item + "=" + estimate + "[" + lowerBound + ".." + upperBound + "]" + (heavy ? "*" : "");
    }
}
