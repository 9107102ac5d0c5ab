package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Settings of {@link HeavyHittersJob.Builder} that only act together, checked by {@code build()}. */
class HeavyHittersJobBuilderTest {

  /**
   * alertAtFraction's minWindowWeight only delays fraction alerts: with fraction 0 (off) any other value than the
   * default would be ignored, so build() refuses it naming both settings, as the heavy-hitters command refuses
   * --alert-min-window-weight without --alert-fraction; the default (what the command passes when neither is given),
   * and any minimum with a fraction, are taken.
   */
  @Test
  void aMinimumWindowWeightWithoutAnAlertFractionIsRefused() {
    for (long weight : new long[] {0, 5_000, Long.MAX_VALUE}) {
      for (double off : new double[] {0.0, -0.0}) {
        assertThatThrownBy(() -> HeavyHittersJob.builder().alertAtFraction(off, weight).build())
            .as(off + ", " + weight).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("alertMinWindowWeight applies to fraction alerts only (alertFraction), which are off: set an"
                + " alertFraction in (0, 1] or leave alertMinWindowWeight at its default 1000 (got alertFraction "
                + off + " and alertMinWindowWeight " + weight + ")");
      }
    }
    // with alerts at a weight, too: the minimum does not apply to those
    assertThatThrownBy(() -> HeavyHittersJob.builder().alertAtWeight(100).alertAtFraction(0, 5_000).build())
        .hasMessageStartingWith("alertMinWindowWeight applies to fraction alerts only (alertFraction)");
    // a negative minimum is still refused by its own range first
    assertThatThrownBy(() -> HeavyHittersJob.builder().alertAtFraction(0, -1).build())
        .hasMessage("alertMinWindowWeight must be >= 0, got -1");
    HeavyHittersJob.builder().alertAtFraction(0, HeavyHittersJob.DEFAULT_ALERT_MIN_WINDOW_WEIGHT).build();
    HeavyHittersJob.builder().build();
    for (long weight : new long[] {0, 5_000}) {
      assertThat(HeavyHittersJob.builder().alertAtFraction(0.2, weight).build()).isNotNull();
    }
  }
}
