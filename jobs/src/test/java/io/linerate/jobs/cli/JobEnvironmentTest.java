package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.linerate.jobs.flowmeter.FlowMeterCommand;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * Where a job command's checkpoints go without {@code --checkpoint-dir}: never to the JobManager's memory (5 MiB
 * per task at most, lost with the JobManager). A cluster is stood in for by a context environment as
 * {@code flink run} installs one (its configuration: the cluster's, merged with the job's; target {@code remote});
 * no job is submitted.
 */
class JobEnvironmentTest {

  /** Installs a context environment factory as {@code flink run} does; only for these tests. */
  static final class ClusterContext extends StreamExecutionEnvironment {
    static void install(Configuration cluster) {
      initializeContextEnvironment(conf -> {
        Configuration merged = new Configuration(cluster);
        merged.set(DeploymentOptions.TARGET, "remote");
        merged.addAll(conf);
        return new StreamExecutionEnvironment(merged);
      });
    }

    static void reset() {
      resetContextEnvironment();
    }
  }

  @AfterEach
  void noContext() {
    ClusterContext.reset();
  }

  private static CommandLine flowMeter(String... args) {
    CommandLine cl = new CommandLine(new FlowMeterCommand());
    cl.parseArgs(args);
    return cl;
  }

  private static FlinkOptions flink(CommandLine cl) throws Exception {
    java.lang.reflect.Field f = FlowMeterCommand.class.getDeclaredField("flink");
    f.setAccessible(true);
    return (FlinkOptions) f.get(cl.getCommand());
  }

  @Test
  void onAClusterWithoutADirectoryTheCommandRefusesNamingTheOption() throws Exception {
    ClusterContext.install(new Configuration());
    CommandLine cl = flowMeter();
    assertThatThrownBy(() -> JobEnvironment.create(flink(cl), cl.getCommandSpec(), System.out))
        .isInstanceOf(ParameterException.class)
        .hasMessageStartingWith("--checkpoint-dir is needed: neither it nor the Flink configuration "
            + "(execution.checkpointing.dir) names a checkpoint directory")
        .hasMessageContaining("refuses more than 5 MiB of state per task");
  }

  @Test
  void theClustersDirectoryIsKept() throws Exception {
    Configuration cluster = new Configuration();
    cluster.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "s3://bucket/cluster-checkpoints");
    ClusterContext.install(cluster);
    CommandLine cl = flowMeter();
    try (JobEnvironment e = JobEnvironment.create(flink(cl), cl.getCommandSpec(), System.out)) {
      assertThat(e.temporaryCheckpoints()).isNull();
      assertThat(e.env().getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
          .isEqualTo("s3://bucket/cluster-checkpoints");
      // before: the command set execution.checkpointing.storage=jobmanager over the cluster's directory
      assertThat(e.env().getConfiguration().getOptional(CheckpointingOptions.CHECKPOINT_STORAGE)).isEmpty();
    }
    CommandLine given = flowMeter("--checkpoint-dir", "file:///var/checkpoints");
    try (JobEnvironment e = JobEnvironment.create(flink(given), given.getCommandSpec(), System.out)) {
      assertThat(e.temporaryCheckpoints()).isNull();
      assertThat(e.env().getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
          .isEqualTo("file:///var/checkpoints");
      assertThat(e.env().getConfiguration().get(CheckpointingOptions.CHECKPOINT_STORAGE)).isEqualTo("filesystem");
    }
  }

  @Test
  void onTheLocalClusterATemporaryFolderIsUsedAnnouncedAndRemoved() throws Exception {
    CommandLine cl = flowMeter();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Path dir;
    try (JobEnvironment e = JobEnvironment.create(flink(cl), cl.getCommandSpec(),
        new PrintStream(printed, true, StandardCharsets.UTF_8))) {
      dir = e.temporaryCheckpoints();
      assertThat(dir).isDirectory();
      Files.writeString(Files.createDirectories(dir.resolve("job/chk-1")).resolve("_metadata"), "x");
      String configured = e.env().getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
      // the folder as Flink reads the option (a URI's "%20" would be three characters of a folder name to Flink)
      assertThat(configured).startsWith("file:" + dir);
      assertThat(Path.of(new org.apache.flink.core.fs.Path(configured).toUri().getPath())).isEqualTo(dir);
      assertThat(e.env().getConfiguration().get(CheckpointingOptions.CHECKPOINT_STORAGE)).isEqualTo("filesystem");
    }
    assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("flow-meter: checkpoints go to " + dir
        + " (a temporary folder, removed when the command ends; --checkpoint-dir keeps them)"
        + System.lineSeparator());
    assertThat(dir).doesNotExist();
  }
}
