package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.kafka.ExactlyOnceSource;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo without a checkpoint directory (the CLI's default: Flink's {@code jobmanager} checkpoint storage) must
 * still checkpoint a job whose state passes 5 MiB per subtask: the JobManager storage refuses state above
 * {@code JobManagerCheckpointStorage.DEFAULT_MAX_STATE_SIZE} (5 MiB, not configurable), and the dedup demo's
 * filters passed it 20 s into the run (then 3.9 MB per tenant, 4 tenants, at the default --rate; since each tenant
 * is sized for its share of the rate, 0.99 MB, they pass it from about 1.35 times the default rate): every
 * checkpoint then failed and the job restarted in a loop, its output never committed.
 */
class DemoCheckpointStorageTest {

  /** Kafka input, one key, a 6 MiB state value: every checkpoint holds 6 MiB of keyed state. */
  static final class BigStateJob implements JobLauncher {
    @Override
    public String name() {
      return "big-state";
    }

    @Override
    public String description() {
      return "6 MiB of keyed state";
    }

    @Override
    public void define(StreamExecutionEnvironment env, JobTopics topics) {
      ExactlyOnceSource.builder(new SimpleStringSchema()).bootstrapServers(topics.bootstrapServers())
          .topics(topics.input()).jobName(name()).fromSource(env, WatermarkStrategy.noWatermarks())
          .keyBy(s -> 0, Types.INT)
          .map(new Hold())
          .sinkTo(new DiscardingSink<>());
    }
  }

  static final class Hold extends RichMapFunction<String, String> {
    private transient ValueState<byte[]> held;

    @Override
    public void open(OpenContext context) {
      held = getRuntimeContext().getState(new ValueStateDescriptor<>("held", byte[].class));
    }

    @Override
    public String map(String value) throws Exception {
      if (held.value() == null) {
        byte[] b = new byte[6 << 20];
        new java.util.Random(1).nextBytes(b);
        held.update(b);
      }
      return value;
    }
  }

  @Test
  void withoutACheckpointDirectoryCheckpointsGoToTheClustersFolderEvenWithASpaceInItsName() {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "jobmanager");
    Demo demo = Demo.builder(new BigStateJob(), new PassThroughFeeder(1)).flinkConfiguration(conf).build();
    java.nio.file.Path cluster = java.nio.file.Path.of("/tmp", "linerate demo", "cluster");
    String dir = demo.jobConfiguration(cluster).get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
    // read as Flink reads the option: its folder must be the cluster's, not one named "linerate%20demo"
    assertThat(java.nio.file.Path.of(new org.apache.flink.core.fs.Path(dir).toUri().getPath())).as(dir)
        .isEqualTo(cluster.resolve("checkpoints"));
  }

  @Test
  @Timeout(120)
  void aStateAboveFiveMebibytesCheckpointsWithoutACheckpointDirectory() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
    Configuration conf = DemoConfigurations.fastCheckpoints(1);
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "jobmanager"); // what FlinkOptions sets without --checkpoint-dir
    Demo.Result result = Demo.builder(new BigStateJob(), new PassThroughFeeder(200)).flinkConfiguration(conf)
        .slots(1).partitions(1).duration(Duration.ofSeconds(3)).progressInterval(Duration.ofMillis(500))
        .terminal(false).out(out).build().run();
    String text = captured.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertThat(text).doesNotContain("after a failure");
    Matcher m = Pattern.compile("checkpoints (\\d+)").matcher(text);
    int last = 0;
    while (m.find()) {
      last = Integer.parseInt(m.group(1));
    }
    assertThat(last).as("completed checkpoints").isGreaterThanOrEqualTo(2);
    assertThat(result.succeeded()).as(String.valueOf(result)).isTrue();
    assertThat(text).contains("everything it started is stopped and its files removed");
  }
}
