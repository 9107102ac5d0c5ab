package io.linerate.jobs.feed;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of a replay: on a terminal a bar redrawn in place with {@code \r} (percent of bytes, packets/s, ETA) at
 * most 5 times a second; otherwise a plain line every {@code interval}. The percent and ETA need the total; when it
 * is unknown (looping forever) only the bytes read so far, over all passes, are shown.
 */
final class Progress {

    private static final int BAR_WIDTH = 30;
    private static final long TERMINAL_REDRAW_NANOS = 200_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private final long intervalNanos;
    private final long startNanos = System.nanoTime();
    private long lastNanos = startNanos;
    private boolean drawn;

    Progress(PrintStream out, boolean terminal, long intervalNanos) {
        this.out = out;
        this.terminal = terminal;
        this.intervalNanos = terminal ? TERMINAL_REDRAW_NANOS : intervalNanos;
    }

    /**
     * Reports, if the interval has passed.
     *
     * @param done bytes read so far (all passes)
     * @param total bytes to read in all, or −1 when unknown
     */
    void update(long done, long total, long packets) {
        long now = System.nanoTime();
        if (out == null || now - lastNanos < intervalNanos) {
            return;
        }
        draw(now, done, total, packets);
    }

    private void draw(long now, long done, long total, long packets) {
        lastNanos = now;
        double seconds = (now - startNanos) / 1e9;
        double perSecond = seconds > 0 ? packets / seconds : 0;
        String eta = "";
        double fraction = total > 0 ? Math.min(1, (double) done / total) : -1;
        if (fraction > 0 && seconds > 0) {
            eta = " ETA " + clock(seconds / fraction - seconds);
        }
        if (terminal) {
            StringBuilder bar = new StringBuilder("\r[");
            int filled = fraction < 0 ? 0 : (int) (fraction * BAR_WIDTH);
            for (int i = 0; i < BAR_WIDTH; i++) {
                bar.append(i < filled ? '=' : i == filled ? '>' : ' ');
            }
            bar.append(fraction < 0 ? "]   ?  " : String.format(Locale.ROOT, "] %5.1f%%", 100 * fraction));
            bar.append(String.format(Locale.ROOT, " %,d packets, %,.0f packets/s%s   ", packets, perSecond, eta));
            out.print(bar);
            drawn = true;
        } else {
            out.printf(Locale.ROOT, "replay: %s%s read, %d packets, %.0f packets/s%s%n",
                    fraction < 0 ? "" : String.format(Locale.ROOT, "%.1f%%, ", 100 * fraction),
                    FeedSummary.bytes(done), packets, perSecond, eta);
        }
        out.flush();
    }

    /** Draws the bar a last time with the final counts and ends its line (terminal). */
    void finish(long done, long total, long packets) {
        if (out != null && drawn) {
            draw(System.nanoTime(), done, total, packets);
            out.println();
            out.flush();
        }
    }

    static String clock(double seconds) {
        long s = (long) Math.ceil(seconds);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
