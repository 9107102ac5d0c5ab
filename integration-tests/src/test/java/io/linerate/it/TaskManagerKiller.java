package io.linerate.it;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.taskexecutor.TaskExecutor;

/**
 * Kills TaskManagers of a MiniCluster the hard way a test can: {@link MiniCluster#terminateTaskManager} (its tasks
 * fail, the job restarts from its latest checkpoint), then starts a fresh one so the cluster keeps its slots.
 * MiniCluster indexes TaskManagers by start order and never reuses an index, so the live ones are tracked here.
 */
public final class TaskManagerKiller {

  private final MiniCluster cluster;
  private final List<Integer> live = new ArrayList<>();
  private int started;
  private int kills;

  /** For a cluster that started {@code taskManagers} TaskManagers and was not touched since. */
  public TaskManagerKiller(MiniCluster cluster, int taskManagers) {
    this.cluster = cluster;
    for (int i = 0; i < taskManagers; i++) {
      live.add(i);
    }
    started = taskManagers;
  }

  /** Terminates a live TaskManager chosen by {@code random}, starts a replacement, returns the killed index. */
  public int killOne(SplittableRandom random) throws Exception {
    return kill(live.get(random.nextInt(live.size())));
  }

  /**
   * Terminates a live TaskManager that runs at least one of {@code run}'s tasks (chosen by {@code random} among
   * those; any live one if none is found, e.g. while the job is being scheduled), starts a replacement, returns
   * the killed index. A job's tasks can sit on one TaskManager (after a restart, before the replacement
   * registered), and killing the other would not fail it.
   */
  public int killOneRunning(SplittableRandom random, JobRun run) throws Exception {
    Set<ResourceID> hosts = run.taskManagersRunningTasks();
    List<Integer> candidates = new ArrayList<>();
    List<TaskExecutor> executors = taskExecutors();
    for (int index : live) {
      if (index < executors.size() && hosts.contains(executors.get(index).getResourceID())) {
        candidates.add(index);
      }
    }
    List<Integer> from = candidates.isEmpty() ? live : candidates;
    return kill(from.get(random.nextInt(from.size())));
  }

  /**
   * MiniCluster's TaskExecutors by index; read reflectively because MiniCluster exposes TaskManagers only by index
   * ({@code terminateTaskManager(int)}), not which one runs which task.
   */
  @SuppressWarnings("unchecked")
  private List<TaskExecutor> taskExecutors() throws ReflectiveOperationException {
    Field field = MiniCluster.class.getDeclaredField("taskManagers");
    field.setAccessible(true);
    synchronized (field.get(cluster)) {
      return new ArrayList<>((List<TaskExecutor>) field.get(cluster));
    }
  }

  private int kill(int index) throws Exception {
    live.remove(Integer.valueOf(index));
    cluster.terminateTaskManager(index).get(60, TimeUnit.SECONDS);
    kills++;
    cluster.startTaskManager();
    live.add(started++);
    return index;
  }

  public int kills() {
    return kills;
  }
}
