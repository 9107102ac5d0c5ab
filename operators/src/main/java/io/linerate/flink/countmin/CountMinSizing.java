package io.linerate.flink.countmin;

import io.linerate.flink.serializers.Shape;
import io.linerate.flink.serializers.Shapes;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.hash.ItemHasher;

import java.io.Serializable;

/**
 * The validated shape of the Count-Min sketch each scope key (or window) gets: w × d counters, the hash seed and
 * the update rule. Built once in a builder, so a bad parameter fails before the job runs.
 *
 * <p>Guarantee of every sketch of this shape (two-hash Count-Min, thesis §3.8.2, rows indexed by
 * {@link RowIndexing#MIXED_32} or {@link RowIndexing#FULL_WIDTH}):
 * with N the total weight added, the estimate â of an item of true weight a satisfies â ≥ a always and
 * Pr(â &gt; a + εN) ≤ (2/(εw))<sup>d</sup>, which at ε = {@link #epsilon()} = 2e/w is
 * {@link #failureProbability()} = e<sup>−d</sup>.
 */
public final class CountMinSizing implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * The row indexing of new sketches unless {@link #withRowIndexing} says otherwise: {@link RowIndexing#FULL_WIDTH},
     * not the library's newer default {@link RowIndexing#MIXED_32}, because the operators' state written so far
     * holds FULL_WIDTH sketches, and state written before the operators' snapshots recorded the {@link #shape()}
     * restores into any configuration (see {@link #withRowIndexing}).
     */
    public static final RowIndexing DEFAULT_INDEXING = RowIndexing.FULL_WIDTH;

    private final int width;
    private final int depth;
    private final long seed;
    private final boolean conservative;
    private final RowIndexing indexing;
    private final long stateBytes;

    // From the size alone: a prototype sketch would allocate up to 2 GiB of counters where the job is built.
    private CountMinSizing(CountMinSketch.Size size, long seed, RowIndexing indexing, boolean conservative) {
        this.width = size.width();
        this.depth = size.depth();
        this.seed = seed;
        this.conservative = conservative;
        this.indexing = indexing;
        // what a state backend stores per key: the serializer's 4-byte length and the sketch image
        this.stateBytes = Integer.BYTES + size.imageBytes();
    }

    /**
     * Sized from the error ε (relative to the total weight N) and failure probability δ by
     * {@link CountMinSketch#fromErrors}: w the smallest prime ≥ 2e/ε, so that {@link #epsilon()} ≤ ε, and enough
     * rows that {@link #failureProbability()} ≤ δ.
     */
    public static CountMinSizing fromErrors(double epsilon, double delta, long seed, boolean conservative) {
        if (!(epsilon > 0 && epsilon < 1)) {
            throw new IllegalArgumentException("epsilon must be in (0, 1), got " + epsilon);
        }
        if (!(delta > 0 && delta < 1)) {
            throw new IllegalArgumentException("delta must be in (0, 1), got " + delta);
        }
        CountMinSizing sizing = new CountMinSizing(CountMinSketch.sizeFromErrors(epsilon, delta), seed,
                DEFAULT_INDEXING, conservative);
        if (sizing.failureProbability() > delta) {
            throw new IllegalArgumentException("delta must be ≥ e^-" + CountMinSketch.MAX_DEPTH + " (at most "
                    + CountMinSketch.MAX_DEPTH + " rows), got " + delta);
        }
        return sizing;
    }

    /**
     * As many counters as fit in {@code bytes} at {@code depth} rows ({@link CountMinSketch#withMemory}): w the
     * largest prime ≤ bytes / (8·d). ε = 2e/w and δ = e<sup>−d</sup> follow from the shape.
     */
    public static CountMinSizing fromMemory(long bytes, int depth, long seed, boolean conservative) {
        if (depth < 1 || depth > CountMinSketch.MAX_DEPTH) {
            throw new IllegalArgumentException("depth must be in [1, " + CountMinSketch.MAX_DEPTH + "], got " + depth);
        }
        long least = 2L * Long.BYTES * depth;
        if (bytes < least) {
            throw new IllegalArgumentException("memory bytes must be ≥ " + least + " (2 counters of 8 bytes per row) for depth "
                    + depth + ", got " + bytes);
        }
        if (bytes > (long) CountMinSketch.MAX_COUNTERS * Long.BYTES) {
            throw new IllegalArgumentException("memory bytes must be ≤ " + (long) CountMinSketch.MAX_COUNTERS * Long.BYTES
                    + " (" + CountMinSketch.MAX_COUNTERS + " counters), got " + bytes);
        }
        return new CountMinSizing(CountMinSketch.sizeForMemory(bytes, depth), seed, DEFAULT_INDEXING, conservative);
    }

    /** The default seed: {@link ItemHasher#DEFAULT_SEED}. */
    public static long defaultSeed() {
        return ItemHasher.DEFAULT_SEED;
    }

    /**
     * This shape with another row indexing. {@link RowIndexing#FULL_WIDTH} (the default) and
     * {@link RowIndexing#MIXED_32} (a faster update and query, docs/BENCHMARKS.md) carry the guarantee above;
     * {@link RowIndexing#MOD_PRIME} adds the all-rows term 2/(εw²) of Theorem 3.8.1 and is refused here.
     *
     * <p>The indexing is part of the {@link #shape()} that the operators' state snapshots record, so a restore
     * after a change of this setting is refused, naming {@code indexing}, like a change of width, depth, seed or
     * update rule. State written before the snapshots recorded the shape restores into any configuration; there,
     * after a change, restored sketches keep answering correctly and new ones use the new indexing, and only
     * merging one of each fails (the window aggregate's merge of session windows, or a user's merge of window
     * results), with a message naming this setting. Choose it when a job first starts.
     */
    public CountMinSizing withRowIndexing(RowIndexing rowIndexing) {
        if (rowIndexing == RowIndexing.MOD_PRIME) {
            throw new IllegalArgumentException("rowIndexing must be MIXED_32 or FULL_WIDTH; MOD_PRIME adds the all-rows"
                    + " collision term 2/(εw²) to the guarantee, got " + rowIndexing);
        }
        if (rowIndexing == indexing) {
            return this;
        }
        return new CountMinSizing(new CountMinSketch.Size(width, depth), seed, rowIndexing, conservative);
    }

    /**
     * The shape every sketch of this sizing has (width, depth, seed, row indexing, update rule), as the operators'
     * state serializers record it in their snapshots: a restore of state written with another shape is
     * incompatible, and Flink refuses it, logging the fields that differ. Allocates nothing.
     */
    public Shape shape() {
        return Shapes.countMin(width, depth, seed, indexing, conservative);
    }

    /** A new, empty sketch of this shape; allocates w·d counters. */
    public CountMinSketch newSketch() {
        return CountMinSketch.withShape(width, depth, seed, indexing, conservative);
    }

    /** How the sketch derives its row indexes; default {@link #DEFAULT_INDEXING}. */
    public RowIndexing rowIndexing() {
        return indexing;
    }

    /** w: counters per row. */
    public int width() {
        return width;
    }

    /** d: rows. */
    public int depth() {
        return depth;
    }

    /** The hash seed, kept in every sketch image. */
    public long seed() {
        return seed;
    }

    /** Whether updates are conservative (Estan and Varghese). */
    public boolean conservative() {
        return conservative;
    }

    /** ε of the guarantee at this width: 2e/w. */
    public double epsilon() {
        return 2 * Math.E / width;
    }

    /** δ of the guarantee at this depth: e<sup>−d</sup>, the bound (2/(εw))<sup>d</sup> at ε = 2e/w. */
    public double failureProbability() {
        return StrictMath.exp(-depth);
    }

    /** Bytes a state backend stores per key: 4 + the sketch image (header and 8·w·d bytes of counters). */
    public long stateBytesPerKey() {
        return stateBytes;
    }

    @Override
    public String toString() {
        return "CountMinSizing[" + width + "x" + depth + ", " + indexing + ", seed=" + seed
                + (conservative ? ", conservative" : "")
                + ", epsilon=" + epsilon() + ", delta=" + failureProbability() + "]";
    }
}
