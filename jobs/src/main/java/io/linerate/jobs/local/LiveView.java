package io.linerate.jobs.local;

import java.io.PrintStream;
import java.time.Duration;

/**
 * What a job shows while the demo runs (the heavy-hitters job: a refreshing top-k table read from its output
 * topic). Used from the demo's own thread only: poll, then print when something changed; after the drain,
 * {@link #printFinal}; closed when the demo stops the job.
 */
public interface LiveView extends AutoCloseable {

    /** Reads new output for at most {@code timeout}; true if the view changed. */
    boolean poll(Duration timeout);

    /** Prints the view: redrawn in place on a terminal, as a new block otherwise. */
    void print(PrintStream out);

    /**
     * Called once the demo has drained the job (or found nothing to drain), before it stops anything: reads the
     * output committed since the last {@link #poll} and prints the view once more if it changed since it was last
     * printed, as a new block below the lines printed since (never in place over them). Without it the view's last
     * frame was its last one before the feeder stopped, up to a redraw interval older still, and the output the
     * drain waited for never reached it. The default does nothing: for a view whose job's drain prints the final
     * state itself.
     */
    default void printFinal(PrintStream out) {
    }

    @Override
    void close();
}
