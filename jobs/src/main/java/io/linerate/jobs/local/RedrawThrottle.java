package io.linerate.jobs.local;

import java.time.Duration;

/**
 * When a {@link LiveView} whose content changes with every record is shown again: once something changed since it
 * was last shown and at least the interval has passed, so a stream of records redraws it at a steady pace.
 */
public final class RedrawThrottle {

  private final long intervalNanos;
  private long shownNanos;
  private boolean changed;

  /** The first change is due at once. */
  public RedrawThrottle(Duration interval) {
    this.intervalNanos = interval.toNanos();
    this.shownNanos = System.nanoTime() - intervalNanos;
  }

  /** Records whether the view changed. */
  public void changed(boolean changed) {
    this.changed |= changed;
  }

  /** Whether a change has not been shown yet (not {@link #due()} so far). */
  public boolean pending() {
    return changed;
  }

  /** Whether to show the view now; if so, it counts as shown. */
  public boolean due() {
    long now = System.nanoTime();
    if (!changed || now - shownNanos < intervalNanos) {
      return false;
    }
    changed = false;
    shownNanos = now;
    return true;
  }
}
