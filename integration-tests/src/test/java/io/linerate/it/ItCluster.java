package io.linerate.it;

import io.linerate.flink.cluster.TestCluster;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The Flink cluster of the integration tests: a MiniCluster of 2 TaskManagers with 2 slots each. */
public final class ItCluster {

  public static final int TASK_MANAGERS = 2;
  public static final int SLOTS_PER_TASK_MANAGER = 2;

  private ItCluster() {
  }

  /** One cluster per test class: {@code @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();}. */
  public static MiniClusterExtension extension() {
    return extension(new Configuration());
  }

  /**
   * The cluster with {@code extra} settings added (e.g. a metric reporter); {@link ClusterMetrics} is always on.
   * Checkpoints of jobs that name no folder go to a new one ({@link TestCluster#newCheckpointFolder}, which says
   * why).
   */
  public static MiniClusterExtension extension(Configuration extra) {
    Configuration conf = new Configuration(extra);
    conf.addAll(ClusterMetrics.configuration());
    conf.set(RestOptions.BIND_PORT, "0");
    if (!conf.contains(CheckpointingOptions.CHECKPOINTS_DIRECTORY)) {
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, flinkPath(TestCluster.newCheckpointFolder()));
    }
    // spread a job's slots over the TaskManagers: a parallelism-2 job then runs on both, and killing either fails it
    conf.set(TaskManagerOptions.TASK_MANAGER_LOAD_BALANCE_MODE, TaskManagerOptions.TaskManagerLoadBalanceMode.SLOTS);
    return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
        .setConfiguration(conf)
        .setNumberTaskManagers(TASK_MANAGERS)
        .setNumberSlotsPerTaskManager(SLOTS_PER_TASK_MANAGER)
        .build());
  }

  /**
   * A local folder as Flink reads a path option or argument: {@code file:/a b/c}, not the URI {@code file:///a%20b/c},
   * whose {@code %20} Flink would take as three characters of a folder's name.
   */
  public static String flinkPath(java.nio.file.Path folder) {
    return TestCluster.flinkPath(folder);
  }
}
