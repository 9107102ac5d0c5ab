package io.linerate.jobs.feed;

import java.util.function.BooleanSupplier;

/**
 * Holds a sender to a target rate on the wall clock: unit k (counted from 0) is not released before
 * {@code start + k / rate} seconds. A rate of 0 releases everything at once. Sleeps in slices of at most 100 ms so a
 * stop request is seen promptly.
 */
final class Pacer {

    private final double perSecond;
    private final long startNanos;

    Pacer(double perSecond) {
        this(perSecond, System.nanoTime());
    }

    Pacer(double perSecond, long startNanos) {
        this.perSecond = perSecond;
        this.startNanos = startNanos;
    }

    boolean limited() {
        return perSecond > 0;
    }

    /** Nanos (on {@link System#nanoTime()}) at which unit {@code units} is due. */
    long dueNanos(double units) {
        return startNanos + (long) (units * 1e9 / perSecond);
    }

    /** Waits until unit {@code units} is due; returns early (false) when {@code stop} turns true. */
    boolean awaitUnit(double units, BooleanSupplier stop) throws InterruptedException {
        return !limited() || awaitNanos(dueNanos(units), stop);
    }

    /** Waits until {@code System.nanoTime() >= due}; returns false if {@code stop} turned true first. */
    static boolean awaitNanos(long due, BooleanSupplier stop) throws InterruptedException {
        while (true) {
            long wait = due - System.nanoTime();
            if (wait <= 0) {
                return true;
            }
            if (stop.getAsBoolean()) {
                return false;
            }
            long millis = Math.min(100, wait / 1_000_000);
            if (millis > 0) {
                Thread.sleep(millis);
            } else {
                Thread.sleep(0, (int) Math.max(1, wait));
            }
        }
    }
}
