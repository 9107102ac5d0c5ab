package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint timeout {@link ExactlyOnceSink#checkCheckpointing} sets must keep every transaction within the
 * transaction timeout. A transaction opens when the barrier of checkpoint n passes the sink and commits when
 * checkpoint n+1 completes; with one checkpoint at a time, n+1 is triggered only once n has completed, so a slow
 * checkpoint n delays it: the transaction can live two checkpoint durations, not the interval plus one. The
 * end-to-end check against a broker is {@code TransactionLifetimeIT} in integration-tests ({@code -Pit-full}).
 */
class TransactionLifetimeTest {

  /**
   * The budget holds in every case: a transaction's longest life, max(interval, timeout + min pause) + timeout,
   * stays within the transaction timeout less the margin; and a transaction timeout below 30 s is refused.
   */
  @Test
  void theCheckpointTimeoutBoundsATransactionsLife() {
    for (long tt : new long[] {30_000, 60_000, 100_000, 600_000, 900_000}) {
      long margin = Math.max(10_000, tt / 10);
      for (long interval : new long[] {10, 1_000, 10_000, 60_000, 300_000, 720_000}) {
        for (long minPause : new long[] {0, 5_000}) {
          long timeout = ExactlyOnceSink.checkpointTimeoutFor(Duration.ofMillis(interval), Duration.ofMillis(minPause),
              Duration.ofMillis(tt)).toMillis();
          if (timeout >= ExactlyOnceSink.MIN_CHECKPOINT_TIMEOUT.toMillis()) {
            assertThat(Math.max(interval, timeout + minPause) + timeout).as("tt %d interval %d", tt, interval)
                .isLessThanOrEqualTo(tt - margin);
          }
        }
      }
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(100);
    assertThatThrownBy(() -> ExactlyOnceSink.checkCheckpointing(
            env.getCheckpointConfig(), Duration.ofSeconds(25)))
        .hasMessageStartingWith("the sink's transactionTimeout (PT25S) must be at least PT30S");
  }

  /**
   * With failed checkpoints tolerated, a transaction lives until the first checkpoint that completes, through every
   * failed one before it: (f + 1)·max(interval, timeout + min pause) + timeout must stay within the transaction
   * timeout less the margin. The sink's check ignored the setting and left the budget of f = 0.
   */
  @Test
  void toleratedCheckpointFailuresShortenTheBudget() {
    for (long tt : new long[] {30_000, 60_000, 600_000, 900_000}) {
      long margin = Math.max(10_000, tt / 10);
      for (long interval : new long[] {10, 1_000, 10_000, 60_000}) {
        for (long minPause : new long[] {0, 5_000}) {
          for (int f : new int[] {0, 1, 2, 5}) {
            long timeout = ExactlyOnceSink.checkpointTimeoutFor(Duration.ofMillis(interval),
                Duration.ofMillis(minPause), f, Duration.ofMillis(tt)).toMillis();
            if (timeout >= ExactlyOnceSink.MIN_CHECKPOINT_TIMEOUT.toMillis()) {
              assertThat((f + 1) * Math.max(interval, timeout + minPause) + timeout)
                  .as("tt %d interval %d min pause %d tolerated failures %d", tt, interval, minPause, f)
                  .isLessThanOrEqualTo(tt - margin);
            }
          }
        }
      }
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(10_000);
    env.getCheckpointConfig().setTolerableCheckpointFailureNumber(2);
    ExactlyOnceSink.checkCheckpointing(env.getCheckpointConfig(), Duration.ofMinutes(10));
    // life 540 s over 3 spans: min(540 - 3·10, 540 / 4) = 135 s
    assertThat(env.getCheckpointConfig().getCheckpointTimeout()).isEqualTo(135_000);

    env.getCheckpointConfig().setTolerableCheckpointFailureNumber(100);
    assertThatThrownBy(() -> ExactlyOnceSink.checkCheckpointing(env.getCheckpointConfig(), Duration.ofMinutes(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("execution.checkpointing.tolerable-failed-checkpoints (100) is too many for the "
            + "sink's transactionTimeout (PT10M)");
  }
}
