package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** A view is shown again only once it changed and the interval passed; the first change is due at once. */
class RedrawThrottleTest {

  @Test
  void dueOnceChangedAndTheIntervalPassed() throws InterruptedException {
    RedrawThrottle hourly = new RedrawThrottle(Duration.ofHours(1));
    assertThat(hourly.due()).as("nothing changed").isFalse();
    hourly.changed(true);
    assertThat(hourly.due()).as("the first change").isTrue();
    assertThat(hourly.pending()).as("shown").isFalse();
    hourly.changed(true);
    assertThat(hourly.due()).as("changed, within the interval").isFalse();
    assertThat(hourly.pending()).as("held back: the demo's final frame shows it").isTrue();

    RedrawThrottle quick = new RedrawThrottle(Duration.ofMillis(1));
    quick.changed(true);
    assertThat(quick.due()).isTrue();
    Thread.sleep(5);
    quick.changed(false);
    assertThat(quick.due()).as("the interval passed, nothing changed").isFalse();
    quick.changed(true);
    assertThat(quick.due()).isTrue();
  }
}
