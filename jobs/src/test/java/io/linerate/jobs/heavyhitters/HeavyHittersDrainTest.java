package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.JobTopics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The drain's shortcut: when the event times fed show that no window can close, it says so at once instead of
 * waiting for a report that cannot come. Without a broker: the shortcut returns before connecting.
 */
class HeavyHittersDrainTest {

  private static final long SLIDE = 10_000;
  private static final long OOO = 2_000;

  /**
   * A report fires when the watermark, at most last − out-of-orderness − 1, reaches the first window's end − 1: so
   * a window can close exactly when last − out-of-orderness ≥ that end (the slide-aligned end after the first time).
   */
  @Test
  void noWindowCanCloseExactlyWhenTheWatermarkCannotReachTheFirstWindowEnd() {
    long first = 1_700_000_003_000L; // its window: [1_700_000_000_000, 1_700_000_010_000)
    long end = 1_700_000_010_000L;
    assertThat(HeavyHittersJob.firstWindowEnd(first, SLIDE)).isEqualTo(end);
    assertThat(HeavyHittersJob.firstWindowEnd(end, SLIDE)).isEqualTo(end + SLIDE);
    assertThat(HeavyHittersJob.firstWindowEnd(end - 1, SLIDE)).isEqualTo(end);
    assertThat(HeavyHittersJob.noWindowCanClose(first, end + OOO - 1, SLIDE, OOO)).isTrue();
    assertThat(HeavyHittersJob.noWindowCanClose(first, end + OOO, SLIDE, OOO)).isFalse();
    // a first packet just before a window's end: a span far shorter than the window still closes one
    assertThat(HeavyHittersJob.noWindowCanClose(end - 1, end + OOO, SLIDE, OOO)).isFalse();
    assertThat(HeavyHittersJob.noWindowCanClose(0, 0, SLIDE, 0)).isTrue();
  }

  /**
   * The formula against the operator itself: packets with event times in [first, last] through the job's detector
   * (tumbling and sliding), then the highest watermark Flink's bounded out-of-orderness can give them,
   * last − out-of-orderness − 1. A report must come exactly when {@code noWindowCanClose} says one can.
   */
  @Test
  void theOperatorReportsExactlyWhenTheShortcutSaysAWindowCanClose() throws Exception {
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    for (long[] shape : new long[][] {{10_000, 10_000}, {10_000, 2_500}}) {
      HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofMillis(shape[0]))
          .slide(Duration.ofMillis(shape[1])).outOfOrderness(Duration.ofMillis(OOO)).build();
      long slide = shape[1];
      int reported = 0;
      int silent = 0;
      for (int trial = 0; trial < 60; trial++) {
        long first = 1_700_000_000_000L + random.nextLong(3 * slide);
        long end = HeavyHittersJob.firstWindowEnd(first, slide);
        // last around the boundary end + OOO, on both sides of it
        long last = Math.max(first, end + OOO - 3 + random.nextInt(7));
        try (var harness = new org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness<>(
            job.detector().operator(io.linerate.jobs.format.PacketRecordTypeInfo.INSTANCE,
                org.apache.flink.api.common.typeinfo.Types.INT),
            io.linerate.jobs.format.PacketRecord::observationPoint, org.apache.flink.api.common.typeinfo.Types.INT)) {
          harness.open();
          for (long ts : new long[] {first, (first + last) / 2, last}) {
            harness.processElement(new org.apache.flink.streaming.runtime.streamrecord.StreamRecord<>(
                new io.linerate.jobs.format.PacketRecord().setIpv4(ts, 0x0A000001, 0x0A000002, 1000, 80, 6, 0x10,
                    100, 1), ts));
          }
          harness.processWatermark(last - OOO - 1);
          boolean anyReport = !harness.extractOutputValues().isEmpty();
          assertThat(anyReport).as("slide %d: first %d, last %d", slide, first, last)
              .isEqualTo(!HeavyHittersJob.noWindowCanClose(first, last, slide, OOO));
          if (anyReport) {
            reported++;
          } else {
            silent++;
          }
        }
      }
      assertThat(reported).as("trials with a report").isPositive();
      assertThat(silent).as("trials without").isPositive();
    }
  }

  @Test
  void theDrainReturnsAtOnceWhenNoWindowCanClose() throws Exception {
    HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofMillis(SLIDE))
        .outOfOrderness(Duration.ofMillis(OOO)).build();
    FeedContext feed = new FeedContext("127.0.0.1:9", "packets");
    feed.sent(500);
    feed.eventTimes(1_700_000_003_000L, 1_700_000_005_000L);
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    long start = System.nanoTime();
    boolean drained = job.drain(new JobTopics("127.0.0.1:9", "packets", "reports", "dead-letters"), feed,
        Duration.ofSeconds(60), new PrintStream(text, true, StandardCharsets.UTF_8));
    assertThat(drained).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(text.toString(StandardCharsets.UTF_8))
        .contains("no window can close in this run")
        .contains("2023-11-14T22:13:23Z to 2023-11-14T22:13:25Z")
        .contains("the first window ends at 2023-11-14T22:13:30Z")
        .contains("the watermark stays below 2023-11-14T22:13:23Z");
  }
  /**
   * The job stamps each Kafka record, a packet batch, with its smallest packet time, so its watermark reaches at most
   * the latest batch's smallest time − out-of-orderness − 1, not the latest packet's. A sparse feed whose last batch
   * spans the first window's end (here: batches of 5 s of event time, the last one [10 s, 12.5 s), the first window
   * [0, 10 s), out-of-orderness 2 s) closes no window, and the drain must say so at once instead of waiting out its
   * timeout and calling the output incomplete.
   */
  @Test
  void aLastBatchSpanningTheWindowEndClosesNoWindowAndTheDrainSaysSoAtOnce() throws Exception {
    long start = 1_700_000_000_000L;
    io.linerate.jobs.feed.SyntheticTraffic traffic = io.linerate.jobs.feed.SyntheticTraffic.builder().count(12_500)
        .batchSize(5_000).eventRate(1_000).start(start).observationPoints(1).seed(7).build();
    io.linerate.jobs.feed.TrafficSource source = traffic.source();
    HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofMillis(SLIDE))
        .outOfOrderness(Duration.ofMillis(OOO)).build();
    long latestBatchTime = Long.MIN_VALUE;
    long packets = 0;
    try (var harness = new org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness<>(
        job.detector().operator(io.linerate.jobs.format.PacketRecordTypeInfo.INSTANCE,
            org.apache.flink.api.common.typeinfo.Types.INT),
        io.linerate.jobs.format.PacketRecord::observationPoint, org.apache.flink.api.common.typeinfo.Types.INT)) {
      harness.open();
      for (io.linerate.jobs.feed.TrafficSource.Record r; (r = source.next()) != null; ) {
        io.linerate.jobs.format.PacketBatch b = io.linerate.jobs.format.PacketBatchCodec.decode(r.value());
        latestBatchTime = Math.max(latestBatchTime, b.minTimestamp()); // the job's event time of the record
        for (int i = 0; i < b.size(); i++) {
          io.linerate.jobs.format.PacketRecord p = b.get(i);
          harness.processElement(new org.apache.flink.streaming.runtime.streamrecord.StreamRecord<>(p, p.timestamp()));
          packets++;
        }
      }
      assertThat(latestBatchTime).isEqualTo(start + 10_000);
      assertThat(source.lastEventMillis()).isEqualTo(start + 12_499);
      assertThat(source.lastRecordEventMillis()).isEqualTo(latestBatchTime);
      // the highest watermark the job's bounded out-of-orderness gives these records
      harness.processWatermark(latestBatchTime - OOO - 1);
      assertThat(harness.extractOutputValues()).as("reports at the job's highest watermark").isEmpty();
    }
    FeedContext feed = new FeedContext("127.0.0.1:9", "packets");
    feed.sent(packets);
    // what SyntheticTraffic.feed reports
    feed.eventTimes(source.firstEventMillis(), source.lastEventMillis(), source.lastRecordEventMillis());
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    long begin = System.nanoTime();
    boolean drained = job.drain(new JobTopics("127.0.0.1:9", "packets", "reports", "dead-letters"), feed,
        Duration.ofSeconds(3), new PrintStream(text, true, StandardCharsets.UTF_8));
    assertThat(text.toString(StandardCharsets.UTF_8)).contains("no window can close in this run")
        .contains("the watermark stays below 2023-11-14T22:13:28Z (the last batch's, its earliest packet's time")
        .doesNotContain("incomplete");
    assertThat(drained).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(2));
  }
}
