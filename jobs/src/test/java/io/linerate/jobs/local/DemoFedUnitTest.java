package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.linerate.jobs.feed.SyntheticTraffic;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo's progress lines count what the feeder counts ({@link FeedContext#sent(long)}): the synthetic traffic
 * and the pcap replay count packets (many to a Kafka record), the dedup traffic events. The lines must say so, not
 * "records": 20,000 packets a second are about 20 records.
 */
class DemoFedUnitTest {

  @Test
  void eachFeederNamesWhatItCounts(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path capture = java.nio.file.Files.write(dir.resolve("x.pcap"), new byte[] {1});
    assertThat(SyntheticTraffic.builder().format(SyntheticTraffic.Format.PACKETS).build().unit()).isEqualTo("packets");
    assertThat(SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).build().unit()).isEqualTo("events");
    assertThat(io.linerate.jobs.feed.PcapReplay.builder(java.util.List.of(capture)).build()
        .unit()).isEqualTo("packets");
    assertThat(new PassThroughFeeder(1).unit()).isEqualTo("records");
  }

  @Test
  @Timeout(120)
  void theStatusLinesCountTheFeedersUnit() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
    Configuration conf = DemoConfigurations.fastCheckpoints(1);
    PassThroughJob copy = new PassThroughJob();
    JobLauncher job = new JobLauncher() { // the pass-through pipeline without its drain (it counts records)
      @Override
      public String name() {
        return copy.name();
      }

      @Override
      public String description() {
        return copy.description();
      }

      @Override
      public void define(StreamExecutionEnvironment env, JobTopics topics) {
        copy.define(env, topics);
      }
    };
    SyntheticTraffic packets = SyntheticTraffic.builder().format(SyntheticTraffic.Format.PACKETS).count(0)
        .rate(2_000).batchSize(200).eventRate(2_000).start(System.currentTimeMillis()).build();
    Demo.builder(job, packets).flinkConfiguration(conf).slots(1).partitions(1)
        .duration(Duration.ofSeconds(2)).progressInterval(Duration.ofMillis(500)).terminal(false).out(out)
        .build().run();
    String text = captured.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertThat(text).containsPattern("fed [\\d,]+ packets  job RUNNING")
        .containsPattern("feeder stopped: [\\d,]+ packets fed")
        .doesNotContainPattern("fed [\\d,]+ records").doesNotContain("records fed");
  }
}
