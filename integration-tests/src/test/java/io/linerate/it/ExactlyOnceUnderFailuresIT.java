package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly-once under failures, for each job: while the job consumes a live topic (written at a steady pace over
 * {@link Scale#feedSeconds}), a TaskManager is killed three times at random moments (seeded), each time after the
 * job completed a checkpoint since the previous kill; the job restarts from its latest checkpoint each time. The
 * committed output (read_committed) must equal the failure-free run's ({@link ReferenceRuns}) record for record:
 * a record lost or written twice by a replay, or a state not restored exactly, makes them differ.
 */
class ExactlyOnceUnderFailuresIT {

  static final int FAILURES = 3;

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();

  @TempDir static Path tmp;
  static ReferenceRuns references;
  static TaskManagerKiller killer;
  static ExecutorService writerThread;

  @BeforeAll
  static void setUp(@InjectMiniCluster MiniCluster cluster) {
    references = new ReferenceRuns(Scale.current());
    killer = new TaskManagerKiller(cluster, ItCluster.TASK_MANAGERS);
    writerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "input-writer"));
  }

  @AfterAll
  static void tearDown() {
    writerThread.shutdownNow();
  }

  @ParameterizedTest
  @EnumSource(Workload.class)
  @Timeout(900)
  void committedOutputEqualsTheFailureFreeRun(Workload w, @InjectMiniCluster MiniCluster cluster) throws Exception {
    Scale scale = Scale.current();
    Workload.assumeSelected(w);
    List<List<String>> expected = references.of(w, KAFKA.broker(), cluster, tmp);
    String prefix = "failures-" + w.name().toLowerCase(Locale.ROOT).replace('_', '-');
    JobTopics topics = ItTopics.create(KAFKA.broker(), prefix);
    long units = w.units(scale);
    SplittableRandom random = new SplittableRandom(ReferenceRuns.SEED + w.ordinal());
    long[] killAtMs = killTimes(random, scale.feedSeconds * 1000L);
    System.out.printf(Locale.ROOT, "[%s] %d units over %d s, TaskManager kills at %s ms%n", w, units,
        scale.feedSeconds, Arrays.toString(killAtMs));

    long begin = System.nanoTime();
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS);
        JobRun run = JobRun.of(cluster, w.job(false), topics).parallelism(2)
            .checkpointDir(Files.createDirectories(tmp.resolve(prefix))).start()) {
      run.awaitCheckpointAfter(0, Duration.ofMinutes(2));
      long feedBegin = System.nanoTime();
      Future<Long> feeding = writerThread.submit(
          () -> writer.write(w.traffic(units, ReferenceRuns.SEED).source(), Long.MAX_VALUE,
              units / (double) scale.feedSeconds));
      long checkpointsAtLastKill = run.completedCheckpoints();
      for (long at : killAtMs) {
        long wait = at - (System.nanoTime() - feedBegin) / 1_000_000;
        if (wait > 0) {
          Thread.sleep(wait);
        }
        // a failure only tests recovery from a checkpoint if one completed since the last restart
        run.awaitCheckpointAfter(checkpointsAtLastKill, Duration.ofMinutes(2));
        long restores = run.restoredCheckpoints();
        // a TaskManager may hold none of the job's tasks (after a restart the slots can sit on one): kill again
        // until the job restores from its checkpoint
        for (int attempt = 1; run.restoredCheckpoints() == restores; attempt++) {
          assertThat(attempt).as("TaskManager kills before the job restarted").isLessThanOrEqualTo(4);
          int index = killer.killOne(random);
          System.out.printf(Locale.ROOT, "[%s] killed TaskManager %d at %d ms (feeding %s)%n", w, index,
              (System.nanoTime() - feedBegin) / 1_000_000, feeding.isDone() ? "done" : "in progress");
          run.awaitRestoreAfter(restores, Duration.ofSeconds(5));
        }
        checkpointsAtLastKill = run.completedCheckpoints();
      }
      assertThat(feeding.get()).isEqualTo(units);
      writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
      run.awaitSettled(Duration.ofMinutes(5));
      assertThat(run.restoredCheckpoints())
          .as("restores from a checkpoint (one per TaskManager kill)").isGreaterThanOrEqualTo(FAILURES);
      System.out.printf(Locale.ROOT, "[%s] %d restores, %d checkpoints, settled after %.1f s%n", w,
          run.restoredCheckpoints(), run.completedCheckpoints(), (System.nanoTime() - begin) / 1e9);
    }
    List<List<String>> actual = Outputs.committed(KAFKA.bootstrapServers(), w.outputTopics(topics));
    Outputs.assertSameRecords(w + " output records", actual.get(0), expected.get(0));
    Outputs.assertSameRecords(w + " dead letters", actual.get(1), expected.get(1));
    assertThat(expected.get(0)).as("the reference run produced output").isNotEmpty();
  }

  /** {@value #FAILURES} kill times in [10%, 85%] of the feeding, at least 1.5 s apart. */
  static long[] killTimes(SplittableRandom random, long feedMs) {
    long[] at = new long[FAILURES];
    long span = (long) (feedMs * 0.75) - (FAILURES - 1) * 1500L;
    for (int i = 0; i < FAILURES; i++) {
      at[i] = (long) (random.nextDouble() * span);
    }
    Arrays.sort(at);
    for (int i = 0; i < FAILURES; i++) {
      at[i] += feedMs / 10 + i * 1500L;
    }
    return at;
  }
}
