package io.linerate.benchmarks.frequency;

import java.util.List;

/**
 * One heavy-hitter tracker as the benchmark and the accuracy report call it: {@code long} keys of weight 1 in,
 * a top-k of (key, estimate) pairs out. Each JMH fork creates one implementation, so the call is monomorphic.
 */
public interface HeavyHitterAdapter {

    String name();

    /** Adds 1 to {@code key}. */
    void update(long key);

    /** Up to {@code k} (key, estimated count) pairs, largest first, ranked as the library ranks them. */
    List<long[]> top(int k);

    /** Bytes of the state as the library itself reports or sizes it, or −1 if it does not. */
    long reportedBytes();

    /** How {@link #reportedBytes()} is obtained. */
    String memoryBasis();

    /** The tracker object itself, for a heap measurement of its whole object graph. */
    Object unwrap();

    /**
     * A new tracker summarizing this one's stream and {@code other}'s (same implementation), both left unchanged,
     * as the library merges; for the libraries that merge.
     */
    default Object union(HeavyHitterAdapter other) {
        return union(List.of(other));
    }

    /**
     * A new tracker summarizing this one's stream and all of {@code others}' (same implementation), all left
     * unchanged, as the library unites several (a sliding window's sub-windows); for the libraries that merge.
     */
    default Object union(List<HeavyHitterAdapter> others) {
        throw new UnsupportedOperationException(name() + " does not merge");
    }
}
