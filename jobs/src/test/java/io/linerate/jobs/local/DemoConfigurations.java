package io.linerate.jobs.local;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.CheckpointingMode;

/** The Flink configuration the demo tests start from: short runs need frequent exactly-once checkpoints. */
public final class DemoConfigurations {

  private DemoConfigurations() {
  }

  /** {@code parallelism}, and an exactly-once checkpoint every 300 ms (the sinks commit at each one). */
  public static Configuration fastCheckpoints(int parallelism) {
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    return conf;
  }
}
