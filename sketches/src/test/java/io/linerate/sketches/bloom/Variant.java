package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.Probing;

/**
 * The bit-array and counting variants under test, built the two ways the API offers. The split-block filter's k
 * is fixed at {@link SplitBlockBloomFilter#HASH_COUNT}: its {@link #withBits} ignores k (see {@link #kIsFixed}).
 */
enum Variant {
    STANDARD, PARTITIONED, BLOCKED, SPLIT_BLOCK, COUNTING;

    /** Whether k is part of the layout, so that {@link #withBits} cannot choose it. */
    boolean kIsFixed() {
        return this == SPLIT_BLOCK;
    }

    BloomFilter create(long expectedItems, double fpp, long seed) {
        return switch (this) {
            case STANDARD -> StandardBloomFilter.create(expectedItems, fpp, seed);
            case PARTITIONED -> PartitionedBloomFilter.create(expectedItems, fpp, seed);
            case BLOCKED -> BlockedBloomFilter.create(expectedItems, fpp, seed);
            case SPLIT_BLOCK -> SplitBlockBloomFilter.create(expectedItems, fpp, seed);
            case COUNTING -> CountingBloomFilter.create(expectedItems, fpp, seed);
        };
    }

    BloomFilter withBits(long bits, int k, long seed) {
        return switch (this) {
            case STANDARD -> StandardBloomFilter.withBits(bits, k, seed, Probing.ENHANCED_CUBIC);
            case PARTITIONED -> PartitionedBloomFilter.withBits(bits, k, seed);
            case BLOCKED -> BlockedBloomFilter.withBits(bits, k, seed, BlockedBloomFilter.DEFAULT_BLOCK_BITS);
            case SPLIT_BLOCK -> SplitBlockBloomFilter.withBits(bits, seed);
            case COUNTING -> CountingBloomFilter.withCounters(bits, k, CountingBloomFilter.DEFAULT_COUNTER_BITS, seed);
        };
    }
}
