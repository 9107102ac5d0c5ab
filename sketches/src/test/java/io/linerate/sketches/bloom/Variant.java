package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.Probing;

/** The four variants under test, built the two ways the API offers. */
enum Variant {
    STANDARD, PARTITIONED, BLOCKED, COUNTING;

    BloomFilter create(long expectedItems, double fpp, long seed) {
        return switch (this) {
            case STANDARD -> StandardBloomFilter.create(expectedItems, fpp, seed);
            case PARTITIONED -> PartitionedBloomFilter.create(expectedItems, fpp, seed);
            case BLOCKED -> BlockedBloomFilter.create(expectedItems, fpp, seed);
            case COUNTING -> CountingBloomFilter.create(expectedItems, fpp, seed);
        };
    }

    BloomFilter withBits(long bits, int k, long seed) {
        return switch (this) {
            case STANDARD -> StandardBloomFilter.withBits(bits, k, seed, Probing.ENHANCED_CUBIC);
            case PARTITIONED -> PartitionedBloomFilter.withBits(bits, k, seed);
            case BLOCKED -> BlockedBloomFilter.withBits(bits, k, seed, BlockedBloomFilter.DEFAULT_BLOCK_BITS);
            case COUNTING -> CountingBloomFilter.withCounters(bits, k, CountingBloomFilter.DEFAULT_COUNTER_BITS, seed);
        };
    }
}
