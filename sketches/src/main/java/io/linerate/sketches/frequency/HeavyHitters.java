package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.FiveTuple;
import java.util.List;

/**
 * A bounded-memory tracker of the heaviest items of a weighted stream: {@link SpaceSaving} and
 * {@link CountMinHeap}. Not thread-safe.
 */
public interface HeavyHitters {

    /** Adds {@code weight} (≥ 0) to a {@code long} item. */
    void update(long item, long weight);

    /** Adds {@code weight} (≥ 0) to a 5-tuple item. */
    void update(FiveTuple item, long weight);

    /** Adds {@code weight} (≥ 0) to a byte-string item (the bytes are copied only if it is kept). */
    void update(byte[] bytes, int offset, int length, long weight);

    /**
     * Adds {@code weight} (≥ 0) to a text item, counted as its UTF-8 bytes: the same item as those bytes given to
     * {@link #update(byte[], int, int, long)} (reported as a {@code byte[]}; {@link HeavyHitter#itemAsUtf8()} decodes
     * it). Unlike {@code CountMinSketch.update(CharSequence, ..)} and the Bloom filters, which hash a string over its
     * UTF-16 code units, so a string there is not the same item as here. Needs a tracker of
     * {@link KeyKind#bytes(int)} whose {@code maxBytes} holds the encoded length (a string of n chars takes up to
     * 3n bytes); another key kind fails with an {@link IllegalArgumentException} naming it. Encodes into a new array
     * per call (the {@code byte[]} overload does not allocate).
     *
     * @throws IllegalArgumentException for a tracker of another key kind, or an encoding longer than maxBytes
     */
    default void update(CharSequence item, long weight) {
        byte[] utf8 = item.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        update(utf8, 0, utf8.length, weight);
    }

    /**
     * The (at most) {@code k} items with the largest guaranteed weights (lower bounds, count − error), heaviest
     * first; ties by the larger estimate.
     */
    List<HeavyHitter> topK(int k);

    /**
     * Every item whose weight may be ≥ φ·N (upper bound ≥ φ·N), heaviest first; see each implementation
     * for its no-miss guarantee.
     */
    List<HeavyHitter> heavyHitters(double phi);

    /**
     * The estimate (an upper bound on the true weight) of the item of the latest {@code update}, as it stood
     * right after that update; 0 before any update. Lets a caller test a threshold per update without a lookup.
     */
    long lastEstimate();

    /** h1 of the item of the latest {@code update} (as this tracker's seeded hasher computed it); 0 before any. */
    long lastItemHash();

    /** N, the total weight seen. */
    long totalWeight();

    /** Adds {@code other}'s summary into this one (same kind, capacity and seed). */
    void merge(HeavyHitters other);

    /**
     * A new tracker holding the merge of this one and {@code other} (same kind, capacity and seed), both left
     * unchanged: what {@code copy()} then {@code merge(other)} gives (answers, image, later updates), without the
     * copy, and allocated for the items it keeps rather than for its capacity. Its {@link #lastEstimate()} and
     * {@link #lastItemHash()} are 0.
     */
    HeavyHitters union(HeavyHitters other);

    /**
     * A new tracker holding the merge of this one and all of {@code others} at once (same kind, capacity and seed),
     * all left unchanged: every item's bounds are summed over all the trackers and the capacity applied once, where
     * a chain of pairwise merges applies it after each merge. With one other tracker, {@link #union(HeavyHitters)}.
     * Each tracker's Javadoc says what it sums and keeps.
     */
    HeavyHitters union(java.util.List<? extends HeavyHitters> others);

    /**
     * Exact bytes of the primitive arrays holding the state now. Fixed for a tracker created new; a tracker read
     * from an image allocates for what the image holds and grows, reporting at most what a tracker of the same
     * shape created new reports.
     */
    long memoryBytes();

    /** A versioned byte image. */
    byte[] toByteArray();

    /**
     * Writes the same bytes as {@link #toByteArray()} to {@code sink} through a small buffer (a serializer's path:
     * no array of the image's size). The default, for implementations outside this library, writes
     * {@link #toByteArray()} in one piece.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    default void writeImage(io.linerate.sketches.image.ImageWriter.Sink sink) {
        io.linerate.sketches.image.ImageWriter.writeWhole(toByteArray(), sink);
    }

    /**
     * An independent deep copy: the same image ({@link #toByteArray()}), the same {@link #memoryBytes()}, and the
     * same answers to the same later updates; updating either leaves the other unchanged. Cheaper than a round
     * trip through the image (array copies, no validation): the Flink serializers' {@code copy} uses it.
     */
    HeavyHitters copy();

    /**
     * ⌈φ·N⌉ computed exactly (φ in (0, 1), N ≥ 0), so that a weight c is ≥ φ·N exactly when c ≥ this. In doubles,
     * φ·N is off by up to a few units once N passes 2<sup>53</sup> (N and the product both rounded), and a count c
     * compared with it is rounded too: an item of weight ≥ φN could be left out of {@code heavyHitters(φ)}.
     * φ is taken at its decimal value ({@link Double#toString}, what the caller wrote): 0.05 of N = 2000 is 100,
     * where the binary double nearest 0.05 (0.05000000000000000277…) would make it 101.
     */
    static long ceilPhiN(double phi, long n) {
        return java.math.BigDecimal.valueOf(phi).multiply(java.math.BigDecimal.valueOf(n))
                .setScale(0, java.math.RoundingMode.CEILING).longValueExact();
    }
}
