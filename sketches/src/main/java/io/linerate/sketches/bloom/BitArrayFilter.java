package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;

/**
 * State shared by the filters that are one array of bits: the standard, partitioned and blocked
 * variants. Subclasses decide only where an item's k bits go.
 */
abstract class BitArrayFilter implements BloomFilter {

    static final int IMAGE_VERSION = 1;

    final ItemHasher hasher;
    final long bits;
    final int k;
    final long[] words;
    long bitCount;
    /** Written by the batch operations' prefetch only so the JIT keeps its loads; no answer depends on it. */
    private long prefetched;

    BitArrayFilter(ItemHasher hasher, long bits, int k, long[] words) {
        this.hasher = hasher;
        this.bits = Checks.bits(bits);
        this.k = Checks.hashCount(k);
        this.words = words != null ? words : new long[wordsFor(bits)];
        this.bitCount = words != null ? countBits(this.words) : 0;
    }

    static int wordsFor(long bits) {
        return (int) ((bits + 63) >>> 6);
    }

    /**
     * Sets bit {@code i}; true if it was clear. Skips the store when the bit is set: measured faster for the
     * standard and partitioned filters (their k bits lie in k cache lines, and an unconditional store
     * dirtied each; the branch-free version was 27–36% slower per put). The blocked filter has its own
     * branch-free loop over one cache line.
     */
    final boolean setBit(long i) {
        int w = (int) (i >>> 6);
        long mask = 1L << i;
        long old = words[w];
        if ((old & mask) != 0) {
            return false;
        }
        words[w] = old | mask;
        bitCount++;
        return true;
    }

    /** Bit {@code i} as 0 or 1. */
    final long bit(long i) {
        return (words[(int) (i >>> 6)] >>> i) & 1;
    }

    final boolean getBit(long i) {
        return (words[(int) (i >>> 6)] & (1L << i)) != 0;
    }

    /**
     * The index of the word that starts the cache line holding all of an item's bits, for the variants that keep
     * an item in one line; −1 for the others, whose batch operations then do not prefetch.
     */
    int lineWord(long h1) {
        return -1;
    }

    @Override
    public final int putAll(long[] items, int from, int to) {
        Batches.checkRange(items, from, to);
        int changed = 0;
        for (int g = from; g < to; ) {
            int end = Batches.groupEnd(g, to);
            touchLines(items, g, end);
            for (; g < end; g++) {
                changed += put(items[g]) ? 1 : 0;
            }
        }
        return changed;
    }

    @Override
    public final int mightContainAll(long[] items, int from, int to, boolean[] results) {
        Batches.checkRange(items, from, to, results);
        int present = 0;
        for (int g = from; g < to; ) {
            int end = Batches.groupEnd(g, to);
            touchLines(items, g, end);
            for (; g < end; g++) {
                boolean p = mightContain(items[g]);
                results[g] = p;
                present += p ? 1 : 0;
            }
        }
        return present;
    }

    /**
     * Loads the first word of each item's line, so that the lines' cache misses are all under way before the
     * probes (Java has no prefetch instruction; a plain load that the CPU runs ahead of the probes serves). The
     * items are hashed again by the probes: measured cheaper than keeping the hashes in an array.
     */
    private void touchLines(long[] items, int from, int to) {
        if (lineWord(0) < 0) {
            return; // a variant that does not keep an item in one line: nothing to touch, and no item to hash for it
        }
        long sum = 0;
        for (int i = from; i < to; i++) {
            int w = lineWord(hasher.hash(items[i]));
            if (w < 0) {
                return;
            }
            sum += words[w];
        }
        prefetched = sum;
    }

    abstract Family family();

    /** The variant's own shape parameter, stored in the image and compared by union. */
    abstract long shapeParameter();

    /** What {@link #shapeParameter()} is, as union's mismatch message names it. */
    abstract String shapeParameterName();

    @Override
    public final ItemHasher hasher() {
        return hasher;
    }

    @Override
    public final long bitSize() {
        return bits;
    }

    @Override
    public final int hashCount() {
        return k;
    }

    @Override
    public final long bitCount() {
        return bitCount;
    }

    @Override
    public final long memoryBytes() {
        return (long) words.length * Long.BYTES;
    }

    @Override
    public final void union(BloomFilter other) {
        if (other == null || other.getClass() != getClass()) {
            throw new IllegalArgumentException("cannot union a " + getClass().getSimpleName() + " with "
                    + (other == null ? "null" : "a " + other.getClass().getSimpleName()));
        }
        BitArrayFilter o = (BitArrayFilter) other;
        Checks.same("bitSize", bits, o.bits);
        Checks.same("hashCount", k, o.k);
        Checks.same(shapeParameterName(), shapeParameter(), o.shapeParameter());
        Checks.same("seed", hasher.seed(), o.hasher.seed());
        for (int i = 0; i < words.length; i++) {
            words[i] |= o.words[i];
        }
        bitCount = countBits(words);
    }

    @Override
    public final byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    @Override
    public final void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    private byte[] image(ImageWriter.Sink sink) {
        return new ImageWriter(family(), IMAGE_VERSION, 8 + 8 + 4 + 8 + 8L * words.length, sink)
                .putLong(hasher.seed())
                .putLong(bits)
                .putInt(k)
                .putLong(shapeParameter())
                .putLongs(words, 0, words.length)
                .finish();
    }

    /** Fields common to every bit-array image, validated before the bit array is allocated. */
    record Image(ItemHasher hasher, long bits, int k, long shape, long[] words) {

        static Image read(ImageReader in) {
            ItemHasher hasher = ItemHasher.seeded(in.getLong("seed"));
            long bits = in.getLong("bits", 1, BloomFilter.MAX_BITS);
            int k = in.getInt("hashCount", 1, BloomFilter.MAX_HASH_COUNT);
            long shape = in.getLong("shape");
            long[] words = in.getLongs("words", wordsFor(bits));
            in.finish();
            int tail = (int) (bits & 63);
            if (tail != 0 && (words[words.length - 1] >>> tail) != 0) {
                throw new IllegalArgumentException("image corrupt: bits set beyond bitSize " + bits);
            }
            return new Image(hasher, bits, k, shape, words);
        }
    }

    static long countBits(long[] words) {
        long c = 0;
        for (long w : words) {
            c += Long.bitCount(w);
        }
        return c;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[bits=" + bits + ", k=" + k + ", set=" + bitCount + ", seed="
                + hasher.seed() + "]";
    }
}
