package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Primes;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.Arrays;
import java.util.Locale;

/**
 * The two-hash Count-Min sketch of Kirsch's thesis §3.8.2 (Cormode &amp; Muthukrishnan's sketch with d rows
 * of w counters indexed from one 128-bit hash): every update adds its weight to one counter per row, a
 * point query returns the smallest of the item's d counters.
 *
 * <p>Guarantee (Theorem 3.8.1, w prime, {@link RowIndexing#MOD_PRIME}): the estimate â of an item of true
 * weight a satisfies â ≥ a always, and Pr(â &gt; a + εN) ≤ 2/(εw²) + (2/(εw))<sup>d</sup> for any ε, N the total
 * weight. Sized from (ε, δ) by the corrected conditions of the research notes (§2.8): w the smallest prime
 * ≥ 2e/ε, d = ⌈ln(1/(ε(1 − 1/(2e²))))⌉ rows per copy (bound ≤ ε), and r = ⌈ln(1/δ)/ln(1/ε)⌉ copies, so
 * that the failure probability is ≤ ε<sup>r</sup> ≤ δ; the copies are simply r·d rows of one sketch, their
 * indexes all derived from the same hash ({@link RowIndexing#MIXED_32}, or {@link RowIndexing#FULL_WIDTH}, which
 * the same guarantee covers).
 *
 * <p>Counters are 64-bit and saturate at {@link Long#MAX_VALUE} instead of wrapping; weights must be ≥ 0.
 * No counter exceeds the total weight N (each is a sum of some of the weights), so while N + weight does not
 * overflow an update adds without per-counter checks; images whose counters exceed N are rejected as corrupt.
 * The optional conservative update (Estan &amp; Varghese) raises each of the item's counters only as far as
 * the new estimate, which never increases error; it is valid for non-negative weights only, and merging two
 * conservative sketches gives upper bounds but not the conservative sketch of the joint stream.
 *
 * <p>Layout: row-major {@code long[d·w]}. Not thread-safe.
 */
public final class CountMinSketch {

    static final int IMAGE_VERSION = 1;
    /**
     * Upper limit on width × depth: 2<sup>28</sup> − 16 counters (2 GiB less 128 bytes), so that the sketch's image
     * (its counters and a few dozen bytes of header) still fits a Java array; at 2<sup>28</sup> a sketch built but
     * could not be serialized (a checkpoint failed).
     */
    public static final long MAX_COUNTERS = (1L << 28) - 16;
    public static final int MAX_DEPTH = 64;

    private static final double E = Math.E;
    /**
     * Rounding slack of the copies' ratio ln(1/δ)/ln(1/ε) (at most a few ulps off, and at most 64 where it counts):
     * a ratio within it above an integer takes that integer, which misses ε^r ≤ δ by a relative 10<sup>−9</sup>·ln(1/ε)
     * at most, far below what the bound can tell.
     */
    private static final double COPIES_SLACK = 1e-9;

    private final ItemHasher hasher;
    private final int width;
    private final int depth;
    private final RowIndexing indexing;
    private final boolean conservative;
    private final long[] counts;
    private final int[] scratch;
    private long totalWeight;

    private CountMinSketch(ItemHasher hasher, int width, int depth, RowIndexing indexing, boolean conservative,
                           long[] counts) {
        new Size(width, depth); // its checks
        if (indexing == RowIndexing.MOD_PRIME && !Primes.isPrime(width)) {
            throw new IllegalArgumentException("width must be prime for MOD_PRIME row indexing (thesis §3.8.2), got "
                    + width);
        }
        this.hasher = hasher;
        this.width = width;
        this.depth = depth;
        this.indexing = indexing;
        this.conservative = conservative;
        this.counts = counts != null ? counts : new long[width * depth];
        this.scratch = new int[depth];
    }

    /**
     * Sized from the error ε (relative to the total weight) and failure probability δ, as described in the
     * class comment.
     *
     * @throws IllegalArgumentException if ε or δ is not in (0, 1); if ε is so small that w = nextPrime(⌈2e/ε⌉)
     *     would exceed {@link #MAX_COUNTERS}; if δ is so small at this ε that it needs more than
     *     {@link #MAX_DEPTH} rows (d·r), since fewer rows would not meet δ; or if w·d·r exceeds MAX_COUNTERS
     */
    public static CountMinSketch fromErrors(double epsilon, double delta, long seed) {
        Size size = sizeFromErrors(epsilon, delta);
        return new CountMinSketch(ItemHasher.seeded(seed), size.width(), size.depth(), RowIndexing.MIXED_32, false,
                null);
    }

    /**
     * The width and depth of a sketch of w × d counters, without the counters: what a builder needs to validate
     * and describe a sketch before any is allocated (a sketch may take up to 2 GiB).
     */
    public record Size(int width, int depth) {
        /**
         * @throws IllegalArgumentException as the sketch would: width below 2, depth outside [1, MAX_DEPTH], or more
         *     than {@link #MAX_COUNTERS} counters
         */
        public Size {
            if (width < 2) {
                throw new IllegalArgumentException("width must be ≥ 2, got " + width);
            }
            if (depth < 1 || depth > MAX_DEPTH) {
                throw new IllegalArgumentException("depth must be in [1, " + MAX_DEPTH + "], got " + depth);
            }
            if ((long) width * depth > MAX_COUNTERS) {
                throw new IllegalArgumentException("width x depth = " + (long) width * depth + " counters, above the "
                        + "limit of " + MAX_COUNTERS);
            }
        }

        /** Bytes of the sketch's counters, as {@link CountMinSketch#memoryBytes()} gives. */
        public long memoryBytes() {
            return (long) width * depth * Long.BYTES;
        }

        /** Bytes of the {@link #toByteArray() image} of a sketch of this size, as {@link #imageBytes()} gives. */
        public long imageBytes() {
            return ImageWriter.imageBytes(fieldBytes(width * (long) depth));
        }
    }

    /**
     * The size {@link #fromErrors} builds, with the same checks and messages, allocating nothing.
     *
     * @throws IllegalArgumentException as {@link #fromErrors}
     */
    public static Size sizeFromErrors(double epsilon, double delta) {
        checkUnit("epsilon", epsilon);
        checkUnit("delta", delta);
        double minWidth = Math.ceil(2 * E / epsilon);
        // checked before the prime search: for tiny ε the bound does not even fit in a long
        long w = minWidth > MAX_COUNTERS ? Long.MAX_VALUE : Primes.nextPrime((long) minWidth);
        if (w > MAX_COUNTERS) {
            throw new IllegalArgumentException("epsilon=" + epsilon + " needs width "
                    + (w == Long.MAX_VALUE ? String.format(Locale.ROOT, "%.4g", minWidth) : String.valueOf(w))
                    + " (the smallest prime ≥ 2e/epsilon), above the limit of " + MAX_COUNTERS + " counters");
        }
        int perCopy = rowsPerCopy(epsilon);
        // a double, not an int: for ε near 1 and tiny δ the count of copies does not fit in an int. The ratio is
        // an integer k exactly when δ = ε^k, where the two logarithms' rounding often leaves it an ulp or two above k
        // (ln(125)/ln(5) = 3.0000000000000004): a ceiling without slack took a copy more than ε^k ≤ δ needs (0.2 and
        // 0.008 got 8 rows for 6) and refused the δ = ε^⌊64/d⌋ its own message names as the least allowed
        double copies = Math.max(1, Math.ceil(StrictMath.log(1 / delta) / StrictMath.log(1 / epsilon) - COPIES_SLACK));
        double rows = perCopy * copies;
        if (rows > MAX_DEPTH) {
            int maxCopies = MAX_DEPTH / perCopy;
            throw new IllegalArgumentException("delta must be ≥ epsilon^" + maxCopies + " = "
                    + Math.pow(epsilon, maxCopies) + " at epsilon=" + epsilon + " (at most " + MAX_DEPTH + " rows, "
                    + perCopy + " per copy), got " + delta + ", which needs " + (long) rows + " rows");
        }
        if (w * (long) rows > MAX_COUNTERS) {
            throw new IllegalArgumentException("epsilon=" + epsilon + " and delta=" + delta + " need width " + w
                    + " x depth " + (int) rows + " = " + w * (long) rows + " counters, above the limit of " + MAX_COUNTERS);
        }
        return new Size((int) w, (int) rows);
    }

    /** d = ⌈ln(1/(ε(1 − 1/(2e²))))⌉: the depth at which one copy's failure probability is at most ε. */
    public static int rowsPerCopy(double epsilon) {
        checkUnit("epsilon", epsilon);
        return Math.max(1, (int) Math.ceil(StrictMath.log(1 / (epsilon * (1 - 1 / (2 * E * E))))));
    }

    /** Exactly {@code width} × {@code depth} counters. */
    public static CountMinSketch withShape(int width, int depth, long seed, RowIndexing indexing,
                                           boolean conservative) {
        return new CountMinSketch(ItemHasher.seeded(seed), width, depth, indexing, conservative, null);
    }

    /**
     * As many counters as fit in {@code bytes} with the given depth, and at most {@link #MAX_COUNTERS} in all:
     * width = the largest prime ≤ min(bytes / 8 / depth, MAX_COUNTERS / depth).
     */
    public static CountMinSketch withMemory(long bytes, int depth, long seed) {
        Size size = sizeForMemory(bytes, depth);
        return withShape(size.width(), depth, seed, RowIndexing.MIXED_32, false);
    }

    /**
     * The size {@link #withMemory} builds, with the same checks and messages, allocating nothing.
     *
     * @throws IllegalArgumentException as {@link #withMemory}
     */
    public static Size sizeForMemory(long bytes, int depth) {
        if (depth < 1 || depth > MAX_DEPTH) {
            throw new IllegalArgumentException("depth must be in [1, " + MAX_DEPTH + "], got " + depth);
        }
        long w = bytes / Long.BYTES / depth;
        if (w < 2) {
            throw new IllegalArgumentException("bytes must hold at least 2 counters per row: " + bytes + " bytes, depth "
                    + depth + " needs at least " + 2L * Long.BYTES * depth);
        }
        return new Size(widthForMemory(bytes, depth), depth);
    }

    /** The width of {@link #withMemory}: bytes and depth already checked. */
    static int widthForMemory(long bytes, int depth) {
        // clamped before the prime search, so the width stays prime (and the search short) for a huge budget
        long w = Math.min(bytes / Long.BYTES / depth, MAX_COUNTERS / depth);
        while (w > 2 && !Primes.isPrime(w)) {
            w--;
        }
        return (int) w;
    }

    private static void checkUnit(String name, double v) {
        if (!(v > 0 && v < 1)) {
            throw new IllegalArgumentException(name + " must be in (0, 1), got " + v);
        }
    }

    /**
     * Row j's column for {@link RowIndexing#MIXED_32} ({@code mixed32}) or {@link RowIndexing#FULL_WIDTH}, from
     * v = h1 + j·h2. The callers test {@code mixed32} inside their row loops; it does not change within a loop,
     * so the compiler takes the test out of the loop.
     */
    private static int column(long v, int w, boolean mixed32) {
        long m = DoubleHashing.mix(v);
        return mixed32 ? DoubleHashing.reduce32((int) (m >>> 32), w) : (int) DoubleHashing.reduce(m, w);
    }

    /** Fills {@link #scratch} with the item's index into {@link #counts} for each row. */
    private void indexes(long h1, long h2) {
        int w = width;
        if (indexing != RowIndexing.MOD_PRIME) {
            boolean mixed32 = indexing == RowIndexing.MIXED_32;
            long v = h1;
            for (int j = 0; j < depth; j++) {
                scratch[j] = j * w + column(v, w, mixed32);
                v += h2;
            }
        } else {
            long x = DoubleHashing.reduce(h1, w);
            long step = DoubleHashing.reduce(h2, w);
            for (int j = 0; j < depth; j++) {
                scratch[j] = j * w + (int) x;
                x += step;
                if (x >= w) {
                    x -= w;
                }
            }
        }
    }

    /** The item's index into the counters for each row, for tests: row j's column is index − j·w. */
    int[] rowIndexes(long h1, long h2) {
        indexes(h1, h2);
        return scratch.clone();
    }

    /** Adds {@code weight} (≥ 0) to the item given by its hash halves. */
    public void update(long h1, long h2, long weight) {
        long total = totalWeight;
        if (conservative || indexing == RowIndexing.MOD_PRIME || weight < 0 || total > Long.MAX_VALUE - weight) {
            updateAndEstimate(h1, h2, weight);
            return;
        }
        // the hot path: every counter is ≤ N and N + weight fits, so plain adds cannot overflow; no minimum
        // is kept (7 rows of 1999, FULL_WIDTH: 29–32 ns per update with saturating adds and the minimum, 24–25 ns
        // without; docs/BENCHMARKS.md)
        totalWeight = total + weight;
        boolean mixed32 = indexing == RowIndexing.MIXED_32;
        long[] c = counts;
        int w = width;
        long v = h1;
        for (int j = 0, base = 0; j < depth; j++, base += w) {
            c[base + column(v, w, mixed32)] += weight;
            v += h2;
        }
    }

    /** {@link #update(long, long, long)}, returning the item's estimate afterwards (one index computation). */
    public long updateAndEstimate(long h1, long h2, long weight) {
        if (weight < 0) {
            throw new IllegalArgumentException("weight must be ≥ 0, got " + weight);
        }
        totalWeight = saturatingAdd(totalWeight, weight);
        if (!conservative && indexing != RowIndexing.MOD_PRIME) {
            // index, add and take the minimum in one pass, no scratch array
            boolean mixed32 = indexing == RowIndexing.MIXED_32;
            int w = width;
            long v = h1;
            long min = Long.MAX_VALUE;
            for (int j = 0, base = 0; j < depth; j++, base += w) {
                int i = base + column(v, w, mixed32);
                long c = saturatingAdd(counts[i], weight);
                counts[i] = c;
                min = Math.min(min, c);
                v += h2;
            }
            return min;
        }
        if (conservative && indexing != RowIndexing.MOD_PRIME) {
            return conservativeOnePass(h1, h2, weight);
        }
        indexes(h1, h2);
        if (conservative) {
            long target = saturatingAdd(min(), weight);
            for (int j = 0; j < depth; j++) {
                int i = scratch[j];
                counts[i] = Math.max(counts[i], target); // no data-dependent branch (see conservativeOnePass)
            }
            return target;
        }
        long min = Long.MAX_VALUE;
        for (int j = 0; j < depth; j++) {
            int i = scratch[j];
            long c = saturatingAdd(counts[i], weight);
            counts[i] = c;
            min = Math.min(min, c);
        }
        return min;
    }

    /**
     * The conservative update (Estan and Varghese): raise each of the item's counters to at least the old
     * estimate plus {@code weight}, in one pass that computes the indexes, keeps them and takes the minimum,
     * and one that raises. The raise is a maximum, not a branch, since whether a counter is below the target
     * depends on the data. Measured at 7 rows on a Zipf 1.1 stream: 49 ns per update with the branch and a
     * separate index pass, 44 ns raising by a maximum but recomputing the indexes, 37 ns as here.
     */
    private long conservativeOnePass(long h1, long h2, long weight) {
        boolean mixed32 = indexing == RowIndexing.MIXED_32;
        int w = width;
        long v = h1;
        long min = Long.MAX_VALUE;
        int[] idx = scratch;
        for (int j = 0, base = 0; j < depth; j++, base += w) {
            int i = base + column(v, w, mixed32);
            idx[j] = i;
            min = Math.min(min, counts[i]);
            v += h2;
        }
        long target = saturatingAdd(min, weight);
        for (int j = 0; j < depth; j++) {
            int i = idx[j];
            counts[i] = Math.max(counts[i], target);
        }
        return target;
    }

    /** Adds {@code weight} (≥ 0) to {@code item}; N saturates at {@code Long.MAX_VALUE}. */
    public void update(long item, long weight) {
        long h1 = hasher.hash(item);
        update(h1, ItemHasher.h2(h1), weight);
    }

    /** Adds {@code weight} (≥ 0) to the flow key {@code item}. */
    public void update(FiveTuple item, long weight) {
        long h1 = hasher.hash(item);
        update(h1, ItemHasher.h2(h1), weight);
    }

    /** Adds {@code weight} (≥ 0) to the item made of {@code length} bytes of {@code bytes} from {@code offset}. */
    public void update(byte[] bytes, int offset, int length, long weight) {
        long h1 = hasher.hash(bytes, offset, length);
        update(h1, ItemHasher.h2(h1), weight);
    }

    /** Adds {@code weight} (≥ 0) to the item {@code item}, hashed over its UTF-16 code units. */
    public void update(CharSequence item, long weight) {
        long h1 = hasher.hash(item);
        update(h1, ItemHasher.h2(h1), weight);
    }

    /** The point estimate: the smallest of the item's d counters, never below its true weight. */
    public long estimate(long h1, long h2) {
        if (indexing != RowIndexing.MOD_PRIME) {
            boolean mixed32 = indexing == RowIndexing.MIXED_32;
            int w = width;
            long v = h1;
            long min = Long.MAX_VALUE;
            for (int j = 0, base = 0; j < depth; j++, base += w) {
                min = Math.min(min, counts[base + column(v, w, mixed32)]);
                v += h2;
            }
            return min;
        }
        indexes(h1, h2);
        return min();
    }

    /**
     * The estimate of {@code item}'s weight: never below the truth; above it by more than {@link #errorBound()} with
     * probability at most {@link #failureProbability(double) failureProbability(epsilon())}.
     */
    public long estimate(long item) {
        long h1 = hasher.hash(item);
        return estimate(h1, ItemHasher.h2(h1));
    }

    /** As {@link #estimate(long)}, for the flow key {@code item}. */
    public long estimate(FiveTuple item) {
        long h1 = hasher.hash(item);
        return estimate(h1, ItemHasher.h2(h1));
    }

    /** As {@link #estimate(long)}, for the item made of {@code length} bytes of {@code bytes} from {@code offset}. */
    public long estimate(byte[] bytes, int offset, int length) {
        long h1 = hasher.hash(bytes, offset, length);
        return estimate(h1, ItemHasher.h2(h1));
    }

    /** As {@link #estimate(long)}, for the item {@code item} (hashed over its UTF-16 code units). */
    public long estimate(CharSequence item) {
        long h1 = hasher.hash(item);
        return estimate(h1, ItemHasher.h2(h1));
    }

    private long min() {
        long m = Long.MAX_VALUE;
        for (int j = 0; j < depth; j++) {
            m = Math.min(m, counts[scratch[j]]);
        }
        return m;
    }

    private static long saturatingAdd(long a, long b) {
        long s = a + b;
        return s < a ? Long.MAX_VALUE : s; // b ≥ 0
    }

    /** ε of this sketch's guarantee at its own sizing: 2e/w (thesis §3.8.2). */
    public double epsilon() {
        return 2 * E / width;
    }

    /** The additive error bound ε·N of a point query, ε = {@link #epsilon()}. */
    public double errorBound() {
        return epsilon() * totalWeight;
    }

    /**
     * Theorem 3.8.1's bound on Pr(â &gt; a + εN): 2/(εw²) + (2/(εw))<sup>d</sup> for
     * {@link RowIndexing#MOD_PRIME}. For {@link RowIndexing#MIXED_32} and {@link RowIndexing#FULL_WIDTH} the rows
     * behave as independent hashes, so the all-rows term 2/(εw²) is dropped and (2/(εw))<sup>d</sup> remains
     * ({@code CountMinSketchTest} counts the pairs of items that share every row against the chance rate).
     */
    public double failureProbability(double epsilon) {
        if (!(epsilon > 0)) { // also NaN: a negative base raised to d gave negative "probabilities"
            throw new IllegalArgumentException("epsilon must be > 0, got " + epsilon);
        }
        double rows = Math.pow(Math.min(1, 2 / (epsilon * width)), depth);
        double allRows = indexing == RowIndexing.MOD_PRIME ? 2 / (epsilon * width * (double) width) : 0;
        return Math.min(1, allRows + rows);
    }

    /**
     * Adds {@code other}'s counters to this sketch's; both must have the same shape, indexing and seed.
     *
     * <p>Their conservative flags may differ, and this sketch keeps its own for later updates: every counter of
     * either sketch lies between the true weight of the items mapped to it and the counter a plain update would
     * have made, so the sums keep both bounds of the point query ({@code estimate ≥ true} and the ε·N bound of
     * the joint stream).
     */
    public void merge(CountMinSketch other) {
        if (other.width != width || other.depth != depth) {
            throw new IllegalArgumentException("cannot merge Count-Min sketches of different shape: " + width + "x"
                    + depth + " vs " + other.width + "x" + other.depth);
        }
        if (other.indexing != indexing) {
            throw new IllegalArgumentException("cannot merge Count-Min sketches with different row indexing: "
                    + indexing + " vs " + other.indexing);
        }
        if (other.hasher.seed() != hasher.seed()) {
            throw new IllegalArgumentException("cannot merge Count-Min sketches with different seeds: "
                    + hasher.seed() + " vs " + other.hasher.seed());
        }
        for (int i = 0; i < counts.length; i++) {
            counts[i] = saturatingAdd(counts[i], other.counts[i]);
        }
        totalWeight = saturatingAdd(totalWeight, other.totalWeight);
    }

    /** The seeded hasher every index derives from (for the hash-level {@code update(h1, h2, weight)}). */
    public ItemHasher hasher() {
        return hasher;
    }

    /** w: counters per row. */
    public int width() {
        return width;
    }

    /** d: rows. */
    public int depth() {
        return depth;
    }

    /** How row indexes derive from the item's hash. */
    public RowIndexing indexing() {
        return indexing;
    }

    /** Whether updates are conservative (raise counters only up to the item's new estimate). */
    public boolean isConservative() {
        return conservative;
    }

    /** N, the sum of all weights added (saturating). */
    public long totalWeight() {
        return totalWeight;
    }

    /** Bytes of the counter array. */
    public long memoryBytes() {
        return (long) counts.length * Long.BYTES;
    }

    /**
     * Counter {@code column} of row {@code row}, for inspection and tests.
     *
     * @throws IndexOutOfBoundsException if row is outside [0, depth) or column outside [0, width) (the flat index
     *     alone would read another row's counter for a column past the width)
     */
    public long counter(int row, int column) {
        if (row < 0 || row >= depth || column < 0 || column >= width) {
            throw new IndexOutOfBoundsException("counter (row " + row + ", column " + column + ") outside the "
                    + depth + " rows of " + width + " columns");
        }
        return counts[row * width + column];
    }

    /**
     * An independent copy: same seed, shape, indexing, update rule, counters and total weight, so the same image;
     * updating either leaves the other unchanged. One array copy (the counters are not validated, only the
     * shape, as on construction): what the Flink serializer's
     * {@code copy} uses (the heap state backend copies state on write while a checkpoint is being written),
     * instead of a round trip through the image.
     */
    public CountMinSketch copy() {
        CountMinSketch c = new CountMinSketch(hasher, width, depth, indexing, conservative,
                Arrays.copyOf(counts, counts.length));
        c.totalWeight = totalWeight;
        return c;
    }

    /** The versioned, checksummed byte image ({@link #fromByteArray} reads it back; layout in STATE-FORMAT.md). */
    public byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    public void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    /** Bytes of this sketch's image ({@code toByteArray().length}), without writing it. */
    public long imageBytes() {
        return ImageWriter.imageBytes(fieldBytes());
    }

    private long fieldBytes() {
        return fieldBytes(counts.length);
    }

    private static long fieldBytes(long counters) {
        return 8 + 4 + 4 + 4 + 4 + 8 + 8 * counters;
    }

    private byte[] image(ImageWriter.Sink sink) {
        return new ImageWriter(Family.COUNT_MIN, IMAGE_VERSION, fieldBytes(), sink)
                .putLong(hasher.seed())
                .putInt(width)
                .putInt(depth)
                .putInt(indexing.ordinal())
                .putInt(conservative ? 1 : 0)
                .putLong(totalWeight)
                .putLongs(counts, 0, counts.length)
                .finish();
    }

    /** Reads an image; validates every field and size before allocating. */
    public static CountMinSketch fromByteArray(byte[] image) {
        return read(ImageReader.open(image, Family.COUNT_MIN, IMAGE_VERSION));
    }

    /**
     * Reads an image of {@code length} bytes from {@code source} through a small buffer, straight into the counter
     * array (no array of the image's size), with the validation and messages of {@link #fromByteArray}; takes
     * exactly {@code length} bytes from the source either way. See {@link ImageReader} for the allocation bound.
     *
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static CountMinSketch readImage(ImageReader.Source source, int length) {
        return ImageReader.read(source, length, Family.COUNT_MIN, IMAGE_VERSION, CountMinSketch::read);
    }

    private static CountMinSketch read(ImageReader in) {
        ItemHasher hasher = ItemHasher.seeded(in.getLong("seed"));
        int width = in.getInt("width", 2, (int) MAX_COUNTERS);
        int depth = in.getInt("depth", 1, MAX_DEPTH);
        if ((long) width * depth > MAX_COUNTERS) {
            throw new IllegalArgumentException("image declares " + (long) width * depth + " counters, limit "
                    + MAX_COUNTERS);
        }
        RowIndexing indexing = RowIndexing.ofId(in.getInt("indexing"));
        int conservative = in.getInt("conservative", 0, 1);
        long total = in.getLong("totalWeight", 0, Long.MAX_VALUE);
        long[] counts = in.getLongs("counts", (long) width * depth);
        in.finish();
        for (int row = 0; row < depth; row++) {
            long sum = 0;
            for (int i = row * width; i < (row + 1) * width; i++) {
                long c = counts[i];
                // a counter above N would let the update's unchecked adds wrap (see the class comment)
                if (c < 0 || c > total) {
                    throw new IllegalArgumentException("image corrupt: counter " + i + " (row " + i / width + ") is "
                            + c + ", outside [0, totalWeight = " + total + "]");
                }
                sum = sum > Long.MAX_VALUE - c ? Long.MAX_VALUE : sum + c;
            }
            // Below Long.MAX_VALUE nothing has saturated: every update and merge added at most its weight to each row
            // (exactly that without conservative update; a merge with a conservative sketch adds less), so no row
            // sums to more than N.
            if (total < Long.MAX_VALUE && sum > total) {
                throw new IllegalArgumentException("image corrupt: the counters of row " + row + " sum to " + sum
                        + ", above totalWeight = " + total);
            }
        }
        CountMinSketch s = new CountMinSketch(hasher, width, depth, indexing, conservative == 1, counts);
        s.totalWeight = total;
        return s;
    }

    @Override
    public String toString() {
        return "CountMinSketch[" + width + "x" + depth + ", " + indexing + (conservative ? ", conservative" : "")
                + ", N=" + totalWeight + "]";
    }
}
