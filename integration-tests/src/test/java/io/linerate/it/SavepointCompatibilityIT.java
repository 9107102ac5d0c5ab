package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Savepoint compatibility across versions: the savepoint of each job in every fixture set committed as a test
 * resource ({@code savepoints/<version>/<job>}, {@link SavepointFixtures#VERSIONS}, written by
 * {@link WriteSavepointFixtures}: {@code v1} with the first released state format of every operator, {@code v2} with
 * the formats of 2026-11-28, heavy-hitters layout 2 among them) restores in the current build, and the state it
 * carries is used. A third test requires the fixture sets on the class path to be exactly those.
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
   * Restores the job's savepoint of fixture set {@code version}; fails unless it restored from it and the output
   * before plus after the savepoint equals the failure-free run's.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("versionsAndJobs")
  @Timeout(300)
  void restoresTheSavepointAndCompletesTheOutput(String version, Workload w, @InjectMiniCluster MiniCluster cluster)
      throws Exception {
    Workload.assumeSelected(w);
    String fixtureName = version + " " + SavepointFixtures.name(w);
    Path fixture = SavepointFixtures.resourceDir(version, w);
    Properties made = new Properties();
    try (InputStream in = Files.newInputStream(fixture.resolve("fixture.properties"))) {
      made.load(in);
    }
    long units = SavepointFixtures.units(w);
    assertThat(made.getProperty("input.units")).as("%s: fixture input size", fixtureName)
        .isEqualTo(Long.toString(units));
    assertThat(made.getProperty("input.seed")).as("%s: fixture seed", fixtureName)
        .isEqualTo(Long.toString(SavepointFixtures.SEED));
    String prefix = SavepointFixtures.topicPrefix(version, w);
    assertThat(made.getProperty("topics")).as("%s: fixture topics", fixtureName)
        .isEqualTo(String.join(",", prefix + "-in", prefix + "-out", prefix + "-dlq"));
    List<String> before = SavepointFixtures.readLines(fixture.resolve("output.txt.gz"));
    List<String> beforeDlq = SavepointFixtures.readLines(fixture.resolve("dead-letters.txt.gz"));

    // the failure-free run alongside the restored one (2 slots each of the cluster's 4): half the wall time
    Future<List<List<String>>> reference = referenceThread.submit(() -> references.of(w, KAFKA.broker(), cluster, tmp));

    long begin = System.nanoTime();
    JobTopics topics = ItTopics.create(KAFKA.broker(), prefix);
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
      writer.write(w.traffic(units, SavepointFixtures.SEED).source(), Long.MAX_VALUE, 0);
      writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
    }
    String runName = version + "-" + SavepointFixtures.name(w);
    Path savepoint = tmp.resolve("restore-" + runName);
    SavepointFixtures.copyTree(fixture.resolve("savepoint"), savepoint);
    long restores;
    try (JobRun run = JobRun.of(cluster, w.job(false), topics).parallelism(2)
        .checkpointDir(Files.createDirectories(tmp.resolve("checkpoints-" + runName)))
        .fromSavepoint(ItCluster.flinkPath(savepoint)).start()) {
      run.awaitSettled(Duration.ofMinutes(2));
      restores = run.restoredCheckpoints();
    }
    List<List<String>> after = Outputs.committed(KAFKA.bootstrapServers(), w.outputTopics(topics));
    List<List<String>> expected = reference.get(5, TimeUnit.MINUTES);
    System.out.printf(Locale.ROOT, "[SavepointCompatibilityIT] %s: fixture of Flink %s (%d bytes of savepoint), "
            + "%d output records before the savepoint + %d after = %d (reference %d); dead letters %d + %d; "
            + "restored %d time(s), %.1f s%n", fixtureName, made.getProperty("flink.version"),
        SavepointFixtures.size(fixture.resolve("savepoint")), before.size(), after.get(0).size(),
        before.size() + after.get(0).size(), expected.get(0).size(), beforeDlq.size(), after.get(1).size(), restores,
        (System.nanoTime() - begin) / 1e9);

    assertThat(restores).as("%s: the job restored from the savepoint", fixtureName).isGreaterThanOrEqualTo(1);
    assertThat(before).as("%s: output committed before the savepoint", fixtureName).isNotEmpty();
    assertThat(after.get(0)).as("%s: output committed after the restore", fixtureName).isNotEmpty();
    Outputs.assertSameRecords(fixtureName + " output before + after the savepoint", union(before, after.get(0)),
        expected.get(0));
    Outputs.assertSameRecords(fixtureName + " dead letters before + after the savepoint",
        union(beforeDlq, after.get(1)), expected.get(1));
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
    SavepointFixtures.copyTree(SavepointFixtures.resourceDir("v1", Workload.HEAVY_HITTERS).resolve("savepoint"),
        savepoint);
    JobTopics renamed = ItTopics.create(KAFKA.broker(), "compat-renamed-heavy-hitters");
    long begin = System.nanoTime();
    assertThatThrownBy(() -> {
      try (JobRun run = JobRun.of(cluster, Workload.HEAVY_HITTERS.job(false), renamed).parallelism(2).restarts(false)
          .checkpointDir(Files.createDirectories(tmp.resolve("checkpoints-unmapped")))
          .fromSavepoint(ItCluster.flinkPath(savepoint)).start()) {
        run.awaitFinished(Duration.ofSeconds(90));
      }
    }).hasStackTraceContaining("Cannot map checkpoint/savepoint state for operator");
    System.out.printf(Locale.ROOT, "[SavepointCompatibilityIT] restore into renamed operators failed as it must "
        + "(%.1f s)%n", (System.nanoTime() - begin) / 1e9);
  }

  /** Every fixture set × every job, named like {@code v2 heavy-hitters}. */
  static Stream<Arguments> versionsAndJobs() {
    return SavepointFixtures.VERSIONS.stream().flatMap(v -> Arrays.stream(Workload.values())
        .map(w -> Arguments.of(v, Named.of(SavepointFixtures.name(w), w))));
  }

  /**
   * The fixture sets on the class path are exactly {@link SavepointFixtures#VERSIONS}, each with every job: a set
   * committed but not listed would never be restored, a listed one missing would not be noticed.
   */
  @Test
  void everyFixtureSetPresentIsRestored() throws Exception {
    assertThat(SavepointFixtures.versionsPresent()).as("fixture sets under savepoints/")
        .containsExactlyElementsOf(SavepointFixtures.VERSIONS);
    for (String v : SavepointFixtures.VERSIONS) {
      for (Workload w : Workload.values()) {
        assertThat(SavepointFixtures.resourceDir(v, w).resolve("savepoint/_metadata")).as("%s %s", v, w)
            .isRegularFile();
      }
    }
  }

  private static List<String> union(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    Collections.sort(all);
    return all;
  }
}
