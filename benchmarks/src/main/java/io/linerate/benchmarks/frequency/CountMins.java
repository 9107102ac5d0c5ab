package io.linerate.benchmarks.frequency;

import com.clearspring.analytics.stream.frequency.ConservativeAddSketch;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import java.util.ArrayList;
import java.util.List;

/**
 * The Count-Min implementations under comparison, all at ε = 0.001, δ = 0.01 as Spark sizes it:
 * {@code CountMinSketch.create(0.001, 0.99, seed)} gives width ⌈2/ε⌉ = 2000 and depth ⌈−ln(1 − 0.99)/ln 2⌉ = 7.
 * Every implementation gets 7 rows of (about) 2000 64-bit counters: linerate the prime 1999 (the largest prime
 * ≤ 2000), the others exactly 2000; {@code linerate-blocked} the same memory in 64-byte blocks of 32-bit counters.
 */
public final class CountMins {

    /** Spark's ε (relative error) for this comparison. */
    public static final double EPSILON = 0.001;
    /** Spark's confidence 1 − δ. */
    public static final double CONFIDENCE = 0.99;
    public static final int WIDTH = 2000;
    public static final int DEPTH = 7;
    /** linerate's width: the largest prime ≤ {@link #WIDTH}. */
    public static final int PRIME_WIDTH = 1999;
    /** Seed of every sketch (ints for the libraries that take an int). */
    public static final long SEED = 0x6C696E6572617465L;

    /** The implementations that run on JDK 17, in report order. */
    public static final List<String> ALL = List.of("linerate", "linerate-cu", "linerate-fw", "linerate-blocked",
            "spark", "streamlib", "streamlib-cu");

    /** DataSketches 9's Count-Min: needs JDK 25 at run time and the jar the {@code jdk25} profile copies. */
    public static final String DATASKETCHES9 = "datasketches9";

    private CountMins() {
    }

    /** {@link #ALL}, plus {@link #DATASKETCHES9} when it can be loaded in this JVM. */
    public static List<String> available() {
        List<String> names = new ArrayList<>(ALL);
        if (DataSketches9CountMin.isAvailable()) {
            names.add(DATASKETCHES9);
        }
        return names;
    }

    public static CountMinAdapter create(String impl) {
        switch (impl) {
            case "linerate":
                return new Linerate(impl, RowIndexing.MIXED_32, false);
            case "linerate-cu":
                return new Linerate(impl, RowIndexing.MIXED_32, true);
            case "linerate-fw":
                return new Linerate(impl, RowIndexing.FULL_WIDTH, false);
            case "linerate-blocked":
                return new LinerateBlocked();
            case "spark":
                return new Spark();
            case "streamlib":
                return new StreamLib(impl, new com.clearspring.analytics.stream.frequency.CountMinSketch(DEPTH, WIDTH,
                        (int) SEED), "CountMinSketch(depth 7, width 2000, seed)");
            case "streamlib-cu":
                return new StreamLib(impl, new ConservativeAddSketch(DEPTH, WIDTH, (int) SEED),
                        "ConservativeAddSketch(depth 7, width 2000, seed)");
            case DATASKETCHES9:
                return DataSketches9CountMin.create(DEPTH, WIDTH, SEED);
            default:
                throw new IllegalArgumentException("unknown implementation '" + impl + "', expected one of " + ALL
                        + " or " + DATASKETCHES9);
        }
    }

    /**
     * linerate {@link CountMinSketch}, 1999 × 7, row indexing MIXED_32 (the default) or FULL_WIDTH (the default
     * before it, kept to show the difference); conservative update or not.
     */
    static final class Linerate implements CountMinAdapter {
        private final String name;
        private final CountMinSketch sketch;

        Linerate(String name, RowIndexing indexing, boolean conservative) {
            this.name = name;
            this.sketch = CountMinSketch.withShape(PRIME_WIDTH, DEPTH, SEED, indexing, conservative);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            sketch.update(key, 1);
        }

        @Override
        public long estimate(long key) {
            return sketch.estimate(key);
        }

        @Override
        public int width() {
            return sketch.width();
        }

        @Override
        public int depth() {
            return sketch.depth();
        }

        @Override
        public String description() {
            return "linerate CountMinSketch.withShape(1999, 7, seed, " + sketch.indexing() + ", "
                    + sketch.isConservative() + ")";
        }

        @Override
        public Object unwrap() {
            return sketch;
        }
    }

    /**
     * linerate {@link BlockedCountMinSketch} in the memory of the 1999 × 7 sketch (111,944 bytes): 1,749 blocks of 16
     * 32-bit counters (111,936 bytes), four counters per item in two blocks. Reported as width 16·blocks (counters)
     * and depth 4 (counters per item).
     */
    static final class LinerateBlocked implements CountMinAdapter {
        private final BlockedCountMinSketch sketch =
                BlockedCountMinSketch.withMemory((long) PRIME_WIDTH * DEPTH * Long.BYTES, SEED);

        @Override
        public String name() {
            return "linerate-blocked";
        }

        @Override
        public void update(long key) {
            sketch.update(key, 1);
        }

        @Override
        public long estimate(long key) {
            return sketch.estimate(key);
        }

        @Override
        public int width() {
            return sketch.blocks() * BlockedCountMinSketch.BLOCK_COUNTERS;
        }

        @Override
        public int depth() {
            return 4;
        }

        @Override
        public long counterBytes() {
            return sketch.memoryBytes();
        }

        @Override
        public String description() {
            return "linerate BlockedCountMinSketch.withMemory(111944, seed) = " + sketch.blocks()
                    + " blocks of 16 32-bit counters";
        }

        @Override
        public Object unwrap() {
            return sketch;
        }
    }

    /** Spark's {@code org.apache.spark.util.sketch.CountMinSketch}: {@code addLong}, {@code estimateCount(Object)}. */
    static final class Spark implements CountMinAdapter {
        private final org.apache.spark.util.sketch.CountMinSketch sketch;

        Spark() {
            this.sketch = org.apache.spark.util.sketch.CountMinSketch.create(EPSILON, CONFIDENCE, (int) SEED);
        }

        @Override
        public String name() {
            return "spark";
        }

        @Override
        public void update(long key) {
            sketch.addLong(key, 1);
        }

        @Override
        public long estimate(long key) {
            return sketch.estimateCount(Long.valueOf(key)); // Spark has no primitive query: the boxing is Spark's
        }

        @Override
        public int width() {
            return sketch.width();
        }

        @Override
        public int depth() {
            return sketch.depth();
        }

        @Override
        public String description() {
            return "Spark CountMinSketch.create(eps 0.001, confidence 0.99, seed) = " + sketch.width() + " x "
                    + sketch.depth();
        }

        @Override
        public Object unwrap() {
            return sketch;
        }
    }

    /** stream-lib's {@code CountMinSketch} or {@code ConservativeAddSketch}, {@code add(long, long)}. */
    static final class StreamLib implements CountMinAdapter {
        private final String name;
        private final com.clearspring.analytics.stream.frequency.CountMinSketch sketch;
        private final String description;

        StreamLib(String name, com.clearspring.analytics.stream.frequency.CountMinSketch sketch, String description) {
            this.name = name;
            this.sketch = sketch;
            this.description = description;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            sketch.add(key, 1);
        }

        @Override
        public long estimate(long key) {
            return sketch.estimateCount(key);
        }

        /**
         * The sketch's own width: stream-lib exposes no shape, but its relative error is 2 / width (so the
         * report and the tests see what was built, not the constant it was meant to be built with).
         */
        @Override
        public int width() {
            return (int) Math.round(2 / sketch.getRelativeError());
        }

        /** The sketch's own depth: its confidence is 1 − 2<sup>−depth</sup>. */
        @Override
        public int depth() {
            return (int) Math.round(-Math.log(1 - sketch.getConfidence()) / Math.log(2));
        }

        @Override
        public String description() {
            return "stream-lib " + description;
        }

        @Override
        public Object unwrap() {
            return sketch;
        }
    }
}
