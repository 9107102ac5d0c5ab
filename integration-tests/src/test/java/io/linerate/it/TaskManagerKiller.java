package io.linerate.it;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.apache.flink.runtime.minicluster.MiniCluster;

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
    int index = live.remove(random.nextInt(live.size()));
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
