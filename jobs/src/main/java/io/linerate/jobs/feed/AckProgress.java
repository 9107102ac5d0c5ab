package io.linerate.jobs.feed;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongConsumer;

/**
 * {@code generate}'s progress: a line every interval with the packets or events the broker has acknowledged so far,
 * their share of {@code --count} and their rate. Fed by the producer's acknowledgements ({@link FeedProducer}: the
 * units of each record, on its I/O thread), so a run that stalls on the broker shows it as a rate that falls.
 */
final class AckProgress implements LongConsumer {

    private final PrintStream out;
    private final String unit;
    private final long total;
    private final long intervalNanos;
    private final long startNanos = System.nanoTime();
    private long lastNanos = startNanos;
    private long acked;

    /**
     * @param unit "packets" or "events"
     * @param total units to write, 0 for no end
     */
    AckProgress(PrintStream out, String unit, long total, long intervalNanos) {
        this.out = out;
        this.unit = unit;
        this.total = total;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public void accept(long units) {
        acked += units;
        long now = System.nanoTime();
        if (now - lastNanos < intervalNanos) {
            return;
        }
        lastNanos = now;
        double seconds = (now - startNanos) / 1e9;
        out.printf(Locale.ROOT, "generate: %,d %s acknowledged%s, %,.0f %s/s%n", acked, unit,
                total > 0 ? String.format(Locale.ROOT, " (%.1f%% of %,d)", 100.0 * acked / total, total) : "",
                acked / seconds, unit);
        out.flush();
    }
}
