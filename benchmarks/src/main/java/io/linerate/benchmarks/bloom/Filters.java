package io.linerate.benchmarks.bloom;

import com.google.common.hash.Funnels;
import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import java.util.ArrayList;
import java.util.List;
import org.apache.datasketches.filters.bloomfilter.BloomFilterBuilder;

/** The implementations under comparison, created by name and all sized for n keys at the same target FPP. */
public final class Filters {

    /** The linerate variants, in the order reports list them. */
    public static final List<String> LINERATE = List.of("standard", "partitioned", "blocked", "split-block", "balanced", "counting");

    /** The peer libraries. */
    public static final List<String> PEERS = List.of("guava", "datasketches", "spark");

    /** Seed of the linerate filters and of the DataSketches filter (fixed, so runs are reproducible). */
    public static final long SEED = 0x6C696E6572617465L;

    private Filters() {
    }

    /** Every implementation: the linerate variants, then the peers. */
    public static List<String> all() {
        List<String> all = new ArrayList<>(LINERATE);
        all.addAll(PEERS);
        return all;
    }

    /** A filter of implementation {@code impl} sized for {@code expectedItems} keys at {@code fpp}. */
    public static FilterAdapter create(String impl, long expectedItems, double fpp) {
        switch (impl) {
            case "standard":
                return new Linerate(impl, StandardBloomFilter.create(expectedItems, fpp, SEED));
            case "partitioned":
                return new Linerate(impl, PartitionedBloomFilter.create(expectedItems, fpp, SEED));
            case "blocked":
                return new Linerate(impl, BlockedBloomFilter.create(expectedItems, fpp, SEED));
            case "split-block":
                return new Linerate(impl, SplitBlockBloomFilter.create(expectedItems, fpp, SEED));
            case "balanced":
                return new Linerate(impl, BalancedBloomFilter.create(expectedItems, fpp, SEED));
            case "counting":
                return new Linerate(impl, CountingBloomFilter.create(expectedItems, fpp, SEED));
            case "guava":
                return new Guava(expectedItems, fpp);
            case "datasketches":
                return new DataSketches(expectedItems, fpp);
            case "spark":
                return new Spark(expectedItems, fpp);
            default:
                throw new IllegalArgumentException("unknown implementation '" + impl + "', expected one of " + all());
        }
    }

    /** Any linerate {@link BloomFilter}, through its {@code long} item API (hashing included). */
    static final class Linerate implements FilterAdapter {
        private final String name;
        private final BloomFilter filter;

        Linerate(String name, BloomFilter filter) {
            this.name = name;
            this.filter = filter;
        }

        BloomFilter filter() {
            return filter;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void put(long key) {
            filter.put(key);
        }

        @Override
        public boolean mightContain(long key) {
            return filter.mightContain(key);
        }

        @Override
        public void putAll(long[] keys, int from, int to) {
            filter.putAll(keys, from, to);
        }

        @Override
        public void mightContainAll(long[] keys, int from, int to, boolean[] results) {
            filter.mightContainAll(keys, from, to, results);
        }

        @Override
        public long memoryBytes() {
            return filter.memoryBytes();
        }

        @Override
        public String memoryBasis() {
            return "memoryBytes()";
        }

        @Override
        public double expectedFpp() {
            return filter.expectedFpp();
        }

        @Override
        public int hashCount() {
            return filter.hashCount();
        }
    }

    /** Guava's {@code BloomFilter<Long>} with {@code Funnels.longFunnel()}. */
    static final class Guava implements FilterAdapter {
        private final com.google.common.hash.BloomFilter<Long> filter;

        Guava(long expectedItems, double fpp) {
            this.filter = com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), expectedItems, fpp);
        }

        @Override
        public String name() {
            return "guava";
        }

        @Override
        public void put(long key) {
            filter.put(Long.valueOf(key)); // Guava's API takes an object: the boxing is Guava's cost
        }

        @Override
        public boolean mightContain(long key) {
            return filter.mightContain(Long.valueOf(key));
        }

        @Override
        public long memoryBytes() {
            return filter.serializedSize();
        }

        @Override
        public String memoryBasis() {
            return "serializedSize() (bytes writeTo writes: 6-byte header + bit array)";
        }

        @Override
        public double expectedFpp() {
            return filter.expectedFpp();
        }

        @Override
        public int hashCount() {
            return -1;
        }
    }

    /** Apache DataSketches' {@code filters.bloomfilter.BloomFilter}, {@code update(long)} / {@code query(long)}. */
    static final class DataSketches implements FilterAdapter {
        private final org.apache.datasketches.filters.bloomfilter.BloomFilter filter;

        DataSketches(long expectedItems, double fpp) {
            this.filter = BloomFilterBuilder.createByAccuracy(expectedItems, fpp, SEED);
        }

        @Override
        public String name() {
            return "datasketches";
        }

        @Override
        public void put(long key) {
            filter.update(key);
        }

        @Override
        public boolean mightContain(long key) {
            return filter.query(key);
        }

        @Override
        public long memoryBytes() {
            return filter.getCapacity() / 8;
        }

        @Override
        public String memoryBasis() {
            return "getCapacity()/8 (bit array; serialized: " + filter.getSerializedSizeBytes() + " B)";
        }

        @Override
        public double expectedFpp() {
            return Double.NaN;
        }

        @Override
        public int hashCount() {
            return filter.getNumHashes();
        }
    }

    /** Spark's {@code org.apache.spark.util.sketch.BloomFilter}, {@code putLong} / {@code mightContainLong}. */
    static final class Spark implements FilterAdapter {
        private final org.apache.spark.util.sketch.BloomFilter filter;

        Spark(long expectedItems, double fpp) {
            this.filter = org.apache.spark.util.sketch.BloomFilter.create(expectedItems, fpp);
        }

        @Override
        public String name() {
            return "spark";
        }

        @Override
        public void put(long key) {
            filter.putLong(key);
        }

        @Override
        public boolean mightContain(long key) {
            return filter.mightContainLong(key);
        }

        @Override
        public long memoryBytes() {
            return filter.bitSize() / 8;
        }

        @Override
        public String memoryBasis() {
            return "bitSize()/8";
        }

        @Override
        public double expectedFpp() {
            return filter.expectedFpp();
        }

        @Override
        public int hashCount() {
            return -1;
        }
    }
}
