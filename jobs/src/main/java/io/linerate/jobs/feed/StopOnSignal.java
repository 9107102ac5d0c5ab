package io.linerate.jobs.feed;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C (a JVM shutdown) for a feeder: asks the run to stop, then holds the shutdown until the run has flushed
 * and printed its summary ({@link #close()}), at most {@value #GRACE_SECONDS} s. It waits on a latch the run
 * releases, not on the main thread: that thread goes on into {@code System.exit}, which blocks during a shutdown,
 * so a join on it always waited the whole grace period.
 */
final class StopOnSignal implements AutoCloseable {

    static final int GRACE_SECONDS = 15;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook;

    StopOnSignal(String name) {
        hook = new Thread(() -> {
            stop.set(true);
            try {
                done.await(GRACE_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether a shutdown asked the run to stop. */
    boolean stopRequested() {
        return stop.get();
    }

    /** The run is over (its summary printed): lets a shutdown in progress go on, or removes the hook. */
    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: Ctrl-C
        }
    }
}
