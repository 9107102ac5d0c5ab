package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Savepoint compatibility across versions: the savepoint of each job committed as a test resource
 * ({@code savepoints/v1/<job>}, written with the first released state format of every operator by
 * {@link WriteSavepointFixtures}) restores in the current build, and the state it carries is used.
 *
 * <p>On this class's fresh broker, the topics of the savepoint's run are created again (same names: the Kafka
 * source's state names topic, partition and offset; the operator uids of source and sinks derive from them), the
 * same whole input is written (the savepoint's part, the rest, the end markers: the part the savepoint consumed has
 * the same offsets), and the job is restored from a copy of the fixture at parallelism 2 with Flink's defaults
 * ({@code execution.state-recovery.ignore-unclaimed-state} false: state of an operator the job lacks fails the
 * restore instead of being dropped). When it has settled, the output committed before the savepoint (the fixture's
 * files) plus what the restored job committed must equal, record for record, the failure-free run of the whole
 * input ({@link ReferenceRuns} on other topics, run alongside). A second test restores a savepoint into operators
 * with other uids and requires the restore to fail.
 *
 * <p>Why it can fail: a state format the current build cannot read (or reads differently) fails the restore or
 * changes the output; a changed uid fails the restore; state that does not come back makes the windows, flows and
 * dedup decisions open at the savepoint wrong: a heavy-hitters window counted from the savepoint on only, a flow
 * split in two records, duplicates of events seen before the savepoint reported as unique; source offsets not
 * restored replay or skip input. The transactions of the savepoint's sink belong to a broker that is gone: the
 * restore must neither fail nor hang on them: it does not because the fixtures hold no pending transaction (one
 * would fail the restored job with {@code InvalidPidMappingException}, and this test with it; docs/STATE-FORMAT.md,
 * "Savepoint fixtures").
 */
class SavepointCompatibilityIT {

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();

  @TempDir static Path tmp;
  static ReferenceRuns references;
  static ExecutorService referenceThread;

  @BeforeAll
  static void setUp() {
    references = new ReferenceRuns("compat-reference", SavepointFixtures::units);
    referenceThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "reference-run"));
  }

  @AfterAll
  static void tearDown() {
    referenceThread.shutdownNow();
  }

  /**
   * Restores the job's v1 savepoint; fails unless it restored from it and the output before plus after the
   * savepoint equals the failure-free run's.
   */
  @ParameterizedTest
  @EnumSource(Workload.class)
  @Timeout(300)
  void restoresTheV1SavepointAndCompletesTheOutput(Workload w, @InjectMiniCluster MiniCluster cluster)
      throws Exception {
    Workload.assumeSelected(w);
    Path fixture = SavepointFixtures.resourceDir(w);
    Properties made = new Properties();
    try (InputStream in = Files.newInputStream(fixture.resolve("fixture.properties"))) {
      made.load(in);
    }
    long units = SavepointFixtures.units(w);
    assertThat(made.getProperty("input.units")).as("fixture input size").isEqualTo(Long.toString(units));
    assertThat(made.getProperty("input.seed")).as("fixture seed").isEqualTo(Long.toString(SavepointFixtures.SEED));
    List<String> before = SavepointFixtures.readLines(fixture.resolve("output.txt.gz"));
    List<String> beforeDlq = SavepointFixtures.readLines(fixture.resolve("dead-letters.txt.gz"));

    // the failure-free run alongside the restored one (2 slots each of the cluster's 4): half the wall time
    Future<List<List<String>>> reference = referenceThread.submit(() -> references.of(w, KAFKA.broker(), cluster, tmp));

    long begin = System.nanoTime();
    JobTopics topics = ItTopics.create(KAFKA.broker(), SavepointFixtures.topicPrefix(w));
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
      writer.write(w.traffic(units, SavepointFixtures.SEED).source(), Long.MAX_VALUE, 0);
      writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
    }
    Path savepoint = tmp.resolve("restore-" + SavepointFixtures.name(w));
    SavepointFixtures.copyTree(fixture.resolve("savepoint"), savepoint);
    long restores;
    try (JobRun run = JobRun.of(cluster, w.job(false), topics).parallelism(2)
        .checkpointDir(Files.createDirectories(tmp.resolve("checkpoints-" + SavepointFixtures.name(w))))
        .fromSavepoint(savepoint.toUri().toString()).start()) {
      run.awaitSettled(Duration.ofMinutes(2));
      restores = run.restoredCheckpoints();
    }
    List<List<String>> after = Outputs.committed(KAFKA.bootstrapServers(), w.outputTopics(topics));
    List<List<String>> expected = reference.get(5, TimeUnit.MINUTES);
    System.out.printf(Locale.ROOT, "[SavepointCompatibilityIT] %s: fixture %s (Flink %s, %d bytes of savepoint), "
            + "%d output records before the savepoint + %d after = %d (reference %d); dead letters %d + %d; "
            + "restored %d time(s), %.1f s%n", w, SavepointFixtures.VERSION, made.getProperty("flink.version"),
        SavepointFixtures.size(fixture.resolve("savepoint")), before.size(), after.get(0).size(),
        before.size() + after.get(0).size(), expected.get(0).size(), beforeDlq.size(), after.get(1).size(), restores,
        (System.nanoTime() - begin) / 1e9);

    assertThat(restores).as("the job restored from the savepoint").isGreaterThanOrEqualTo(1);
    assertThat(before).as("output committed before the savepoint").isNotEmpty();
    assertThat(after.get(0)).as("output committed after the restore").isNotEmpty();
    Outputs.assertSameRecords(w + " output before + after the savepoint", union(before, after.get(0)),
        expected.get(0));
    Outputs.assertSameRecords(w + " dead letters before + after the savepoint", union(beforeDlq, after.get(1)),
        expected.get(1));
  }

  /**
   * The savepoint's state is bound to operator uids: restored into a job whose Kafka source and sinks have other
   * uids (they derive from the topic names), the restore must fail, naming the operator whose state has no place,
   * not start with that state dropped ({@code ignore-unclaimed-state} stays false). Fails if the job starts.
   */
  @Test
  @Timeout(120)
  void stateOfAMissingOperatorFailsTheRestore(@InjectMiniCluster MiniCluster cluster) throws Exception {
    Path savepoint = tmp.resolve("restore-unmapped");
    SavepointFixtures.copyTree(SavepointFixtures.resourceDir(Workload.HEAVY_HITTERS).resolve("savepoint"), savepoint);
    JobTopics renamed = ItTopics.create(KAFKA.broker(), "compat-renamed-heavy-hitters");
    long begin = System.nanoTime();
    assertThatThrownBy(() -> {
      try (JobRun run = JobRun.of(cluster, Workload.HEAVY_HITTERS.job(false), renamed).parallelism(2).restarts(false)
          .checkpointDir(Files.createDirectories(tmp.resolve("checkpoints-unmapped")))
          .fromSavepoint(savepoint.toUri().toString()).start()) {
        run.awaitFinished(Duration.ofSeconds(90));
      }
    }).hasStackTraceContaining("Cannot map checkpoint/savepoint state for operator");
    System.out.printf(Locale.ROOT, "[SavepointCompatibilityIT] restore into renamed operators failed as it must "
        + "(%.1f s)%n", (System.nanoTime() - begin) / 1e9);
  }

  private static List<String> union(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    Collections.sort(all);
    return all;
  }
}
