package io.linerate.sketches.hotpath;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the current thread per item of a loop, measured after warm-up. */
public final class Alloc {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** A loop over {@code n} items. */
    @FunctionalInterface
    public interface Loop {
        void run(int n);
    }

    private Alloc() {
    }

    /** Runs the loop a few times to get it compiled, then returns the bytes allocated per item of one run. */
    public static double perItem(Loop loop, int n) {
        for (int i = 0; i < 6; i++) {
            loop.run(n / 4);
        }
        loop.run(n);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        loop.run(n);
        long after = THREADS.getCurrentThreadAllocatedBytes();
        return (double) (after - before) / n;
    }
}
