package io.linerate.jobs.local;

import java.io.PrintStream;
import java.time.Duration;

/**
 * What a job shows while the demo runs (the heavy-hitters job: a refreshing top-k table read from its output
 * topic). Used from the demo's own thread only: poll, then print when something changed.
 */
public interface LiveView extends AutoCloseable {

    /** Reads new output for at most {@code timeout}; true if the view changed. */
    boolean poll(Duration timeout);

    /** Prints the view: redrawn in place on a terminal, as a new block otherwise. */
    void print(PrintStream out);

    @Override
    void close();
}
