package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;

/**
 * An approximate set with no false negatives: the API every linerate Bloom filter variant shares.
 *
 * <p>Items are hashed once by the filter's seeded {@link ItemHasher} to a 128-bit value {@code (h1, h2)}
 * and every index is derived from it (Kirsch &amp; Mitzenmacher, "Less Hashing, Same Performance"). Callers
 * that feed several structures hash an item once themselves and call {@link #put(long, long)} /
 * {@link #mightContain(long, long)} with {@code h1 = hasher().hash(item)}, {@code h2 = ItemHasher.h2(h1)}.
 *
 * <p>Variants: {@link StandardBloomFilter}, {@link PartitionedBloomFilter}, {@link BlockedBloomFilter} (all
 * bits of an item in one cache line), {@link SplitBlockBloomFilter} (one bit in each 64-bit word of a 64-byte
 * block: the README's default), {@link BalancedBloomFilter} (Kanizo–Hay–Keslassy, with an overflow
 * list) and {@link CountingBloomFilter} (deletions). Read any of their images with
 * {@link BloomFilters#fromByteArray(byte[])}.
 *
 * <p>Filters are not thread-safe: like a Flink operator's state, one filter belongs to one thread.
 */
public interface BloomFilter {

    /** Upper limit on {@link #bitSize()} for every variant: 2<sup>36</sup> bits (8 GiB). */
    long MAX_BITS = 1L << 36;

    /** Upper limit on {@link #hashCount()}. */
    int MAX_HASH_COUNT = 128;

    /**
     * Adds an item given by its hash halves.
     *
     * @return {@code true} if the filter changed, i.e. the item was certainly not present before
     */
    boolean put(long h1, long h2);

    /** {@code false} if the item was certainly never added; {@code true} if it probably was. */
    boolean mightContain(long h1, long h2);

    /** The hasher (and so the seed) this filter derives its indexes with. */
    ItemHasher hasher();

    /** Adds {@code item}; {@code true} if the filter changed (the item was certainly absent before). */
    default boolean put(long item) {
        long h1 = hasher().hash(item);
        return put(h1, ItemHasher.h2(h1));
    }

    /**
     * Adds the item made of {@code length} bytes of {@code bytes} from {@code offset}; {@code true} if the filter
     * changed.
     */
    default boolean put(byte[] bytes, int offset, int length) {
        long h1 = hasher().hash(bytes, offset, length);
        return put(h1, ItemHasher.h2(h1));
    }

    /**
     * Adds the item {@code chars}, hashed over its UTF-16 code units (so not the same item as its UTF-8 bytes);
     * {@code true} if the filter changed.
     */
    default boolean put(CharSequence chars) {
        long h1 = hasher().hash(chars);
        return put(h1, ItemHasher.h2(h1));
    }

    /** Adds the flow key {@code tuple}; {@code true} if the filter changed. */
    default boolean put(FiveTuple tuple) {
        long h1 = hasher().hash(tuple);
        return put(h1, ItemHasher.h2(h1));
    }

    /** {@code false} if {@code item} was certainly never added; {@code true} if it probably was. */
    default boolean mightContain(long item) {
        long h1 = hasher().hash(item);
        return mightContain(h1, ItemHasher.h2(h1));
    }

    /** As {@link #mightContain(long)}, for the item made of {@code length} bytes of {@code bytes} from {@code offset}. */
    default boolean mightContain(byte[] bytes, int offset, int length) {
        long h1 = hasher().hash(bytes, offset, length);
        return mightContain(h1, ItemHasher.h2(h1));
    }

    /** As {@link #mightContain(long)}, for the item {@code chars} (hashed over its UTF-16 code units). */
    default boolean mightContain(CharSequence chars) {
        long h1 = hasher().hash(chars);
        return mightContain(h1, ItemHasher.h2(h1));
    }

    /** As {@link #mightContain(long)}, for the flow key {@code tuple}. */
    default boolean mightContain(FiveTuple tuple) {
        long h1 = hasher().hash(tuple);
        return mightContain(h1, ItemHasher.h2(h1));
    }

    /**
     * Adds {@code items[from..to)}, with exactly the effect and answers of that many {@link #put(long)} calls in
     * that order. The variants that keep an item in one cache line ({@link BlockedBloomFilter},
     * {@link SplitBlockBloomFilter}) first touch the lines of a group of items, so that when the filter is larger
     * than the caches the group's cache misses overlap instead of following one another; the others loop.
     *
     * @return how many of the puts returned {@code true} (the item certainly absent before)
     * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code items}
     */
    default int putAll(long[] items, int from, int to) {
        Batches.checkRange(items, from, to);
        int changed = 0;
        for (int i = from; i < to; i++) {
            changed += put(items[i]) ? 1 : 0;
        }
        return changed;
    }

    /**
     * {@link #mightContain(long)} of each of {@code items[from..to)}, written to {@code results[from..to)}; the
     * one-cache-line variants touch a group's lines first, as {@link #putAll} does.
     *
     * @return how many of the items were reported present
     * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code items} or of {@code results}
     */
    default int mightContainAll(long[] items, int from, int to, boolean[] results) {
        Batches.checkRange(items, from, to, results);
        int present = 0;
        for (int i = from; i < to; i++) {
            boolean p = mightContain(items[i]);
            results[i] = p;
            present += p ? 1 : 0;
        }
        return present;
    }

    /** m: the number of bits (counters, for a counting filter) indexes are drawn from. */
    long bitSize();

    /** k: the number of indexes set per item. */
    int hashCount();

    /** Bits currently set (non-zero counters, for a counting filter). */
    long bitCount();

    /**
     * Estimated number of distinct items added, from the fill (Swamidass &amp; Baldi):
     * n̂ = −(m/k)·ln(1 − X/m) with X = {@link #bitCount()}.
     */
    default double approximateElementCount() {
        double m = bitSize();
        double x = bitCount();
        if (x >= m) {
            return Double.POSITIVE_INFINITY;
        }
        return -m / hashCount() * Math.log1p(-x / m);
    }

    /** Probability that an item never added is reported present, given the current fill. */
    double expectedFpp();

    /**
     * Exact bytes of the primitive arrays that hold this filter's state (what grows with its size; object
     * headers and the few scalar fields are not counted).
     */
    long memoryBytes();

    /** A versioned byte image, read back by {@link BloomFilters#fromByteArray(byte[])}. */
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
     * An independent deep copy: the same seed, shape and content, so the same image ({@link #toByteArray()}) and
     * the same answers; changing either leaves the other unchanged. Array copies without the validation a read
     * from the image does: the Flink serializers' {@code copy} uses it (the heap state backend copies state on
     * write while a checkpoint is being written).
     */
    BloomFilter copy();

    /**
     * Adds every item of {@code other} to this filter: bitwise OR (counter addition for a counting filter).
     *
     * @throws IllegalArgumentException if {@code other} is a different variant, size, hash count, probing
     *     or seed (the message names the first mismatch)
     * @throws UnsupportedOperationException for variants whose placement depends on insertion order
     */
    void union(BloomFilter other);
}
