package io.linerate.flink.countmin;

import io.linerate.sketches.frequency.RowIndexing;
import java.io.Serializable;
import java.util.Objects;

/** The sizing options both Count-Min builders share; {@link #toSizing()} validates them. */
final class SizingOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    private double epsilon;
    private double delta;
    private long bytes;
    private int depth;
    // whether each was called: a sentinel value such as -1 or NaN could be passed in by a user and be ignored
    private boolean errorsSet;
    private boolean memorySet;
    private long seed = CountMinSizing.defaultSeed();
    private boolean conservative;
    private RowIndexing indexing = CountMinSizing.DEFAULT_INDEXING;

    void errors(double epsilon, double delta) {
        this.epsilon = epsilon;
        this.delta = delta;
        this.errorsSet = true;
    }

    void memory(long bytes, int depth) {
        this.bytes = bytes;
        this.depth = depth;
        this.memorySet = true;
    }

    void seed(long seed) {
        this.seed = seed;
    }

    void conservative(boolean conservative) {
        this.conservative = conservative;
    }

    void indexing(RowIndexing indexing) {
        this.indexing = Objects.requireNonNull(indexing, "rowIndexing");
    }

    CountMinSizing toSizing() {
        return sizing().withRowIndexing(indexing);
    }

    private CountMinSizing sizing() {
        boolean byErrors = errorsSet;
        boolean byMemory = memorySet;
        if (byErrors && byMemory) {
            throw new IllegalArgumentException("set either errors(epsilon, delta) or memory(bytes, depth), not both:"
                    + " each gives the sketch's shape (got errors(" + epsilon + ", " + delta + ") and memory(" + bytes
                    + ", " + depth + "))");
        }
        if (byErrors) {
            return CountMinSizing.fromErrors(epsilon, delta, seed, conservative);
        }
        if (byMemory) {
            return CountMinSizing.fromMemory(bytes, depth, seed, conservative);
        }
        throw new IllegalArgumentException("sketch size must be set: errors(epsilon, delta) or memory(bytes, depth)");
    }
}
