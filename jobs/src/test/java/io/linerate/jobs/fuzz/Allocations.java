package io.linerate.jobs.fuzz;

import java.lang.management.ManagementFactory;
import java.util.HexFormat;

/**
 * Bytes allocated by the current thread (HotSpot's per-thread counter, {@code com.sun.management.ThreadMXBean}), to
 * hold a decoder to an allocation bound: a length field that claims more than the input holds must fail before it
 * sizes an array.
 */
public final class Allocations {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    /** Bytes the current thread has allocated so far. */
    public static long now() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Runs {@code decode} and fails, naming {@code what} and the input, when it allocated more than {@code limit}
     * bytes on this thread. An allocation over the limit is measured once more on a second run before it counts: the
     * first run of a code path loads (and Jazzer instruments) classes on this thread, which allocates too.
     */
    public static void within(String what, byte[] input, long limit, Runnable decode) {
        long before = now();
        decode.run();
        long allocated = now() - before;
        if (allocated > limit) {
            before = now();
            decode.run();
            allocated = now() - before;
            if (allocated > limit) {
                throw new AssertionError(what + " allocated " + allocated + " bytes for an input of " + input.length
                        + " bytes, limit " + limit + "; input " + hex(input));
            }
        }
    }

    /** The input in hex, its first 256 bytes, for failure messages. */
    public static String hex(byte[] input) {
        String h = HexFormat.of().formatHex(input, 0, Math.min(input.length, 256));
        return input.length > 256 ? h + "… (" + input.length + " bytes)" : h;
    }
}
