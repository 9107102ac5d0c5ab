package io.linerate.benchmarks.bloom;

/**
 * One Bloom filter implementation as every benchmark, report and demo calls it: a {@code long} key in, a
 * {@code boolean} out. The signatures are primitive, so the adapter call itself never boxes; whatever a
 * library does inside (Guava's API takes an object, so its adapter must box) is part of that library's cost.
 *
 * <p>Each JMH fork creates exactly one implementation, so the call site stays monomorphic and the JIT
 * inlines through the adapter.
 */
public interface FilterAdapter {

    /** The implementation name used in {@code @Param} and in reports, e.g. {@code "blocked"}. */
    String name();

    /** Adds {@code key}. */
    void put(long key);

    /** {@code false} if {@code key} was certainly never added. */
    boolean mightContain(long key);

    /**
     * Adds {@code keys[from..to)}: the library's batch operation where it has one (linerate's
     * {@code putAll}), otherwise a loop of {@link #put}, which is what a user of that library would write.
     */
    default void putAll(long[] keys, int from, int to) {
        for (int i = from; i < to; i++) {
            put(keys[i]);
        }
    }

    /** {@link #mightContain} of {@code keys[from..to)} into {@code results[from..to)}, batched as {@link #putAll} is. */
    default void mightContainAll(long[] keys, int from, int to, boolean[] results) {
        for (int i = from; i < to; i++) {
            results[i] = mightContain(keys[i]);
        }
    }

    /** Bytes of the filter's state, measured as {@link #memoryBasis()} says. */
    long memoryBytes();

    /** How {@link #memoryBytes()} is obtained for this implementation. */
    String memoryBasis();

    /** The library's own estimate of the current false-positive rate, or NaN if it offers none. */
    double expectedFpp();

    /** k, the number of bit positions per key, or -1 if the library does not expose it. */
    int hashCount();
}
