package io.linerate.benchmarks.frequency;

/**
 * One Count-Min implementation as the benchmarks and the accuracy report call it: a {@code long} key in, a
 * {@code long} estimate out, weight 1 per update. Primitive signatures, so the adapter itself never boxes;
 * whatever a library does inside is part of its cost. Each JMH fork creates one implementation, so the call
 * site is monomorphic and inlined.
 */
public interface CountMinAdapter {

    /** The implementation name used in {@code @Param} and in reports, e.g. {@code "linerate"}. */
    String name();

    /** Adds 1 to {@code key}. */
    void update(long key);

    /** The point estimate of {@code key}. */
    long estimate(long key);

    /** Counters per row (for {@code linerate-blocked}, which has no rows: all its counters). */
    int width();

    /** Rows (for {@code linerate-blocked}: the counters an item updates, 4). */
    int depth();

    /** Bytes of the counters: width × depth × 8, except for {@code linerate-blocked}'s 32-bit counters (width × 4). */
    default long counterBytes() {
        return (long) width() * depth() * Long.BYTES;
    }

    /** The library's class and how it was created, for reports. */
    String description();

    /** The sketch object itself, for a heap measurement of its whole object graph. */
    Object unwrap();
}
