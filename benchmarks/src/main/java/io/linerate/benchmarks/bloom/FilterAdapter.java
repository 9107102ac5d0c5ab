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

    /** Bytes of the filter's state, measured as {@link #memoryBasis()} says. */
    long memoryBytes();

    /** How {@link #memoryBytes()} is obtained for this implementation. */
    String memoryBasis();

    /** The library's own estimate of the current false-positive rate, or NaN if it offers none. */
    double expectedFpp();

    /** k, the number of bit positions per key, or -1 if the library does not expose it. */
    int hashCount();
}
