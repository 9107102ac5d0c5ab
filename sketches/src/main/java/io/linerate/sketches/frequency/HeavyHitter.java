package io.linerate.sketches.frequency;

import java.util.HexFormat;

/**
 * One reported item with its estimated weight and the bounds its tracker guarantees:
 * {@code lowerBound ≤ true weight ≤ upperBound}.
 *
 * <p>A {@code byte[]} item is an array: compare it with {@link java.util.Arrays#equals(byte[], byte[])} (the record's
 * own {@code equals} compares the array's identity), decode it as the caller encoded it (say UTF-8 for strings).
 * {@link #toString()} shows it in lowercase hex, as the Flink operators render byte items.
 *
 * @param item a {@code Long}, a {@link io.linerate.sketches.hash.FiveTuple} or a {@code byte[]}, by the
 *     tracker's {@link KeyKind}
 * @param estimate the tracker's estimate of the item's weight
 * @param lowerBound a weight the item has certainly reached
 * @param upperBound a weight the item has certainly not exceeded
 */
public record HeavyHitter(Object item, long estimate, long lowerBound, long upperBound) {

    /** As the record's own rendering, with a {@code byte[]} item in lowercase hex instead of its identity. */
    @Override
    public String toString() {
        Object shown = item instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : item;
        return "HeavyHitter[item=" + shown + ", estimate=" + estimate + ", lowerBound=" + lowerBound + ", upperBound="
                + upperBound + "]";
    }
}
