package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo's live view shows the output the drain waited for: it stays open through the drain and prints a final
 * frame after the drain's summary, with a change its redraw interval held back. Before, the demo closed the view as
 * soon as the run's duration was up, before the feeder stopped and the drain, so its last frame (the dedup and flow
 * meter views redraw every 10 s off a terminal) showed a fraction of the output: seen with {@code demo --job dedup
 * --duration 15s}, last frame "4,364 events committed", then "output: 301126 records committed".
 */
class DemoFinalFrameTest {

  /** Counts the committed output records; redrawn at most once an hour, as a slow view (the first at once). */
  static final class CountingView extends TopicView {
    private final RedrawThrottle redraws = new RedrawThrottle(Duration.ofHours(1));
    private long records;

    CountingView(String bootstrapServers, String topic) {
      super(false, bootstrapServers, "linerate-counting-view", topic);
    }

    @Override
    public boolean poll(Duration timeout) {
      for (ConsumerRecord<byte[], String> r : records(timeout)) {
        records++;
        redraws.changed(true);
      }
      return redraws.due();
    }

    @Override
    protected boolean unshownChange() {
      return redraws.pending();
    }

    @Override
    public String render() {
      return "view: " + records + " records committed\n";
    }
  }

  @Test
  @Timeout(120)
  void theViewsLastFrameFollowsTheDrainAndCountsEveryRecordFed() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
    Configuration conf = DemoConfigurations.fastCheckpoints(1);
    PassThroughJob passThrough = new PassThroughJob();
    JobLauncher job = new JobLauncher() { // the pass-through job and its drain, with a live view
      @Override
      public String name() {
        return passThrough.name();
      }

      @Override
      public String description() {
        return passThrough.description();
      }

      @Override
      public void define(StreamExecutionEnvironment env, JobTopics topics) {
        passThrough.define(env, topics);
      }

      @Override
      public boolean drains() {
        return true;
      }

      @Override
      public boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream o)
          throws InterruptedException {
        return passThrough.drain(topics, recordsFed, timeout, o);
      }

      @Override
      public LiveView liveView(JobTopics topics, boolean terminal) {
        return new CountingView(topics.bootstrapServers(), topics.output());
      }
    };
    Demo.Result result = Demo.builder(job, new PassThroughFeeder(200)).flinkConfiguration(conf).slots(1)
        .partitions(1).duration(Duration.ofSeconds(3)).terminal(false).out(out).build().run();
    String text = captured.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertThat(result.succeeded()).as(text).isTrue();
    assertThat(result.drained()).isTrue();
    List<String> lines = text.lines().toList();
    int drainSummary = indexOf(lines, "output: ");
    int lastFrame = lastIndexOf(lines, "view: ");
    int cancelled = indexOf(lines, "job " + job.name() + " CANCELED");
    assertThat(drainSummary).as(text).isNotNegative();
    assertThat(lastFrame).as("the view's last frame follows the drain's summary\n" + text).isGreaterThan(drainSummary)
        .isLessThan(cancelled);
    Matcher m = Pattern.compile("view: (\\d+) records committed").matcher(lines.get(lastFrame));
    assertThat(m.matches()).isTrue();
    assertThat(Long.parseLong(m.group(1))).as("the last frame counts every record fed").isEqualTo(result.recordsFed());
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOf(List<String> lines, String prefix) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }
}
