package io.linerate.sketches.frequency;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One reported item with its estimated weight and the bounds its tracker guarantees:
 * {@code lowerBound ≤ true weight ≤ upperBound}.
 *
 * <p>A {@code byte[]} item is an array: {@link #equals} and {@link #hashCode} compare and hash it by its bytes
 * ({@link Arrays#equals(byte[], byte[])}, {@link Arrays#hashCode(byte[])}), not by the array's identity as a record's
 * generated ones would; decode it as the caller encoded it (say UTF-8 for strings).
 * {@link #toString()} shows it in lowercase hex, as the Flink operators render byte items.
 *
 * @param item a {@code Long}, a {@link io.linerate.sketches.hash.FiveTuple} or a {@code byte[]}, by the
 *     tracker's {@link KeyKind}
 * @param estimate the tracker's estimate of the item's weight
 * @param lowerBound a weight the item has certainly reached
 * @param upperBound a weight the item has certainly not exceeded
 */
public record HeavyHitter(Object item, long estimate, long lowerBound, long upperBound) {

    /**
     * A {@code byte[]} item (a tracker of {@link KeyKind#bytes(int)}) decoded as UTF-8, as
     * {@link HeavyHitters#update(CharSequence, long)} encodes text; bytes that are not valid UTF-8 decode to U+FFFD
     * (the replacement character) each, as {@code new String(bytes, UTF_8)} does.
     *
     * @throws IllegalStateException if the item is not a {@code byte[]} (a {@code Long} or a 5-tuple), naming its type
     */
    public String itemAsUtf8() {
        if (item instanceof byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        throw new IllegalStateException("itemAsUtf8() decodes a byte[] item (a tracker of KeyKind.bytes), this item is a "
                + item.getClass().getSimpleName() + ": " + item);
    }

    /** Equal items (a {@code byte[]} item by its bytes), estimates and bounds. */
    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitter h && estimate == h.estimate && lowerBound == h.lowerBound
                && upperBound == h.upperBound && (item instanceof byte[] a && h.item instanceof byte[] b
                        ? Arrays.equals(a, b) : Objects.equals(item, h.item));
    }

    /** Consistent with {@link #equals}: a {@code byte[]} item hashes by its bytes. */
    @Override
    public int hashCode() {
        int itemHash = item instanceof byte[] bytes ? Arrays.hashCode(bytes) : Objects.hashCode(item);
        return ((itemHash * 31 + Long.hashCode(estimate)) * 31 + Long.hashCode(lowerBound)) * 31
                + Long.hashCode(upperBound);
    }

    /** As the record's own rendering, with a {@code byte[]} item in lowercase hex instead of its identity. */
    @Override
    public String toString() {
        Object shown = item instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : item;
        return "HeavyHitter[item=" + shown + ", estimate=" + estimate + ", lowerBound=" + lowerBound + ", upperBound="
                + upperBound + "]";
    }
}
