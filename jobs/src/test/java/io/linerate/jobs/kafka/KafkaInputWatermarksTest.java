package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.Decoded;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.ManualClock;
import org.apache.flink.util.clock.RelativeClock;
import org.junit.jupiter.api.Test;

/**
 * The watermarks of {@link KafkaInput#watermarks}, driven as the Kafka source drives them: one generator per
 * partition, combined by Flink's {@link WatermarkOutputMultiplexer} (the source's watermark is the smallest of its
 * active partitions'), the idleness measured on a manual clock.
 */
class KafkaInputWatermarksTest {

  private static final Duration IDLENESS = Duration.ofSeconds(1);

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final WatermarkStrategy<Decoded<Long>> strategy = KafkaInput.watermarks(v -> v, options());

  private static KafkaJobOptions options() {
    return new KafkaJobOptions(Duration.ZERO, IDLENESS);
  }

  /**
   * Partition 0 gets events; partition 1 one event, then nothing but undecodable records for five times the
   * idleness: partition 1 goes idle, and the combined watermark follows partition 0 instead of staying at partition
   * 1's last event.
   */
  @Test
  void aPartitionOfDeadLettersOnlyGoesIdleAndNoLongerHoldsTheWatermark() {
    Recorded combined = new Recorded(null);
    WatermarkOutputMultiplexer source = new WatermarkOutputMultiplexer(combined);
    source.registerNewOutput("0");
    source.registerNewOutput("1");
    Recorded p1 = new Recorded(source.getDeferredOutput("1"));
    WatermarkOutput p0 = source.getDeferredOutput("0");
    WatermarkGenerator<Decoded<Long>> events = strategy.createWatermarkGenerator(context());
    WatermarkGenerator<Decoded<Long>> deadLetters = strategy.createWatermarkGenerator(context());
    TimestampAssigner<Decoded<Long>> timestamps = strategy.createTimestampAssigner(timestampContext());

    long eventTime = 1_763_720_000_000L;
    Decoded<Long> first = Decoded.of(eventTime);
    deadLetters.onEvent(first, timestamps.extractTimestamp(first, eventTime), p1);
    for (int step = 0; step < 25; step++) { // 5 s of wall clock, 200 ms apart
      clock.advanceTime(Duration.ofMillis(200));
      eventTime += 200;
      Decoded<Long> value = Decoded.of(eventTime);
      events.onEvent(value, timestamps.extractTimestamp(value, eventTime), p0);
      Decoded<Long> dead = Decoded.dead(new DeadLetter("in", 1, step, eventTime, "bad", -1, new byte[0], 0));
      deadLetters.onEvent(dead, timestamps.extractTimestamp(dead, eventTime), p1);
      events.onPeriodicEmit(p0);
      deadLetters.onPeriodicEmit(p1);
      source.onPeriodicEmit();
    }

    assertThat(p1.idle).as("the partition of dead letters marked idle").isPositive();
    assertThat(p1.watermarks).as("dead letters never move a watermark").containsOnly(1_763_720_000_000L - 1);
    assertThat(combined.watermarks).as("the source's watermark follows the partition of events").isNotEmpty();
    assertThat(combined.watermarks.get(combined.watermarks.size() - 1)).isEqualTo(eventTime - 1);
  }

  /** Events keep a partition active however long: only a partition without decoded values goes idle. */
  @Test
  void eventsKeepAPartitionActive() {
    Recorded out = new Recorded(null);
    WatermarkGenerator<Decoded<Long>> events = strategy.createWatermarkGenerator(context());
    for (int step = 0; step < 25; step++) {
      clock.advanceTime(Duration.ofMillis(200));
      events.onEvent(Decoded.of(1_000L + step), 1_000L + step, out);
      events.onPeriodicEmit(out);
    }
    assertThat(out.idle).isZero();
    assertThat(out.watermarks).last().isEqualTo(1_000L + 24 - 1);
  }

  private WatermarkGeneratorSupplier.Context context() {
    return new WatermarkGeneratorSupplier.Context() {
      @Override
      public MetricGroup getMetricGroup() {
        return new UnregisteredMetricsGroup();
      }

      @Override
      public RelativeClock getInputActivityClock() {
        return clock;
      }
    };
  }

  /**
   * docs/FORMATS.md: a JSON format without a {@code timestampField} gives {@code Event.NO_TIMESTAMP}, "use the Kafka
   * record time". Read through {@link KafkaInput}, such an event must be stamped with its Kafka record's time, not
   * with {@code Long.MIN_VALUE} (which no event-time window or watermark can use).
   */
  @Test
  void anEventWithoutItsOwnTimeIsStampedWithTheKafkaRecordTime() throws Exception {
    io.linerate.jobs.format.JsonEventFormat noTime = io.linerate.jobs.format.JsonEventFormat.builder().keyField("k")
        .build();
    io.linerate.jobs.format.Event e = noTime.decode("{\"k\":\"a\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(e.timestamp).isEqualTo(io.linerate.jobs.format.Event.NO_TIMESTAMP);
    WatermarkStrategy<Decoded<io.linerate.jobs.format.Event>> events =
        KafkaInput.watermarks(event -> event.timestamp, options());
    long kafkaTime = 1_763_720_000_123L;
    assertThat(events.createTimestampAssigner(timestampContext()).extractTimestamp(Decoded.of(e), kafkaTime))
        .isEqualTo(kafkaTime);
    // an event with its own time keeps it
    io.linerate.jobs.format.Event timed = io.linerate.jobs.format.JsonEventFormat.builder().keyField("k")
        .timestampField("ts").build().decode("{\"k\":\"a\",\"ts\":5}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(events.createTimestampAssigner(timestampContext()).extractTimestamp(Decoded.of(timed), kafkaTime))
        .isEqualTo(5);
  }

  private static TimestampAssignerSupplier.Context timestampContext() {
    return UnregisteredMetricsGroup::new;
  }

  /** What a generator emitted, passed on to {@code next} when there is one. */
  private static final class Recorded implements WatermarkOutput {
    final List<Long> watermarks = new ArrayList<>();
    final WatermarkOutput next;
    int idle;

    Recorded(WatermarkOutput next) {
      this.next = next;
    }

    @Override
    public void emitWatermark(Watermark watermark) {
      watermarks.add(watermark.getTimestamp());
      if (next != null) {
        next.emitWatermark(watermark);
      }
    }

    @Override
    public void markIdle() {
      idle++;
      if (next != null) {
        next.markIdle();
      }
    }

    @Override
    public void markActive() {
      if (next != null) {
        next.markActive();
      }
    }
  }
}
