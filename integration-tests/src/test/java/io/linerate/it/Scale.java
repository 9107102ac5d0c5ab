package io.linerate.it;

import java.util.Locale;

/**
 * How big the integration tests run: {@link #REDUCED} in the default build ({@code mvn verify}), {@link #FULL}
 * with {@code -Pit-full} (system property {@code linerate.it.scale=full}), the sizes the issue asks for.
 */
public enum Scale {
  /** A few hundred thousand packets per job: the whole module within the default build's budget on 2 cores. */
  REDUCED(300_000, 150_000, 8),
  /** At least 5M packets (and 5M events) per job. */
  FULL(5_000_000, 5_000_000, 40);

  /** Packets of the heavy-hitters and flow-meter input topics. */
  public final long packets;
  /** Events of the dedup input topic. */
  public final long events;
  /** Seconds over which a live input is written (failures are injected meanwhile). */
  public final int feedSeconds;

  Scale(long packets, long events, int feedSeconds) {
    this.packets = packets;
    this.events = events;
    this.feedSeconds = feedSeconds;
  }

  /** The scale of this run, from {@code linerate.it.scale} (default reduced). */
  public static Scale current() {
    String value = System.getProperty("linerate.it.scale", "reduced").trim().toUpperCase(Locale.ROOT);
    try {
      return valueOf(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("linerate.it.scale must be reduced or full, got '" + value + "'", e);
    }
  }
}
