package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes the newest savepoint fixture set of {@link SavepointCompatibilityIT}, {@link SavepointFixtures#CURRENT},
 * into {@code src/test/resources/savepoints/<version>/}. It runs only on demand, never in the default build (which
 * must not rewrite fixtures):
 *
 * <pre>
 * mvn -B -o verify -pl integration-tests -am -DskipFuzz -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=WriteSavepointFixtures -Dfailsafe.failIfNoSpecifiedTests=false \
 *     -Dlinerate.it.writeSavepointFixtures=true
 * </pre>
 *
 * <p>It never overwrites: a job whose fixture directory of that version exists fails before it runs (a committed
 * fixture stands for the savepoints users have; to pin a newer format, add a version to
 * {@link SavepointFixtures#VERSIONS}).
 *
 * <p>For each job: fixed topic names ({@link SavepointFixtures#topicPrefix}), the first {@link SavepointFixtures#split}
 * packets or events of the seeded input, the job unbounded at parallelism 2 until its checkpoints committed that
 * input and what it closes, then stop-with-savepoint (no drain: open windows, flows and dedup filters stay in the
 * state). The savepoint is written with a file-state threshold of 1 MB, so every state handle is inlined in
 * {@code _metadata} (or, if larger, a file of the folder referenced by a relative path): the folder can be moved.
 * Keyed state is compressed ({@code execution.checkpointing.snapshot-compression}; the flag is in the savepoint, a
 * restore reads it whatever its own setting): the flow tables' sparse slot arrays shrink to a few percent.
 * The savepoint is taken settled, with no output since the last checkpoint: a savepoint holding pending Kafka
 * transactions does not restore on another broker (docs/STATE-FORMAT.md). Then the committed output, sorted, and
 * how it was made. A format change never rewrites a fixture set: it adds the next version (docs/STATE-FORMAT.md,
 * "Savepoint fixtures").
 */
@EnabledIfSystemProperty(named = "linerate.it.writeSavepointFixtures", matches = "true")
class WriteSavepointFixtures {

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();

  @TempDir static Path tmp;

  /** The command that writes a fixture set, recorded in its {@code fixture.properties}. */
  static final String COMMAND = "mvn -B -o verify -pl integration-tests -am -DskipFuzz -Dtest=none "
      + "-Dsurefire.failIfNoSpecifiedTests=false -Dit.test=WriteSavepointFixtures "
      + "-Dfailsafe.failIfNoSpecifiedTests=false -Dlinerate.it.writeSavepointFixtures=true";

  /**
   * Writes one job's fixture of {@link SavepointFixtures#CURRENT}; fails if that fixture exists, if the job
   * committed nothing or if the savepoint is not self-contained.
   */
  @ParameterizedTest
  @EnumSource(Workload.class)
  @Timeout(300)
  void writeFixture(Workload w, @InjectMiniCluster MiniCluster cluster) throws Exception {
    Workload.assumeSelected(w);
    String version = SavepointFixtures.CURRENT;
    Path dir = SavepointFixtures.sourceDir(version, w);
    if (Files.exists(dir)) {
      throw new IllegalStateException("savepoint fixture " + version + " of " + w + " exists (" + dir + "): fixtures "
          + "are never rewritten; to pin a newer format add a version to SavepointFixtures.VERSIONS "
          + "(docs/STATE-FORMAT.md, Savepoint fixtures); delete it by hand only if it was never committed");
    }
    long begin = System.nanoTime();
    String prefix = SavepointFixtures.topicPrefix(version, w);
    JobTopics topics = ItTopics.create(KAFKA.broker(), prefix);
    long units = SavepointFixtures.units(w);
    long written;
    long records;
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
      written = writer.write(w.traffic(units, SavepointFixtures.SEED).source(), SavepointFixtures.split(w), 0);
      records = writer.records();
    }
    String savepoint;
    try (JobRun run = JobRun.of(cluster, w.job(false), topics).parallelism(2)
        .checkpointDir(Files.createDirectories(tmp.resolve(prefix + "-checkpoints")))
        .set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("1mb"))
        .set(ExecutionOptions.SNAPSHOT_COMPRESSION, true).start()) {
      run.awaitSettled(Duration.ofMinutes(2));
      savepoint = run.stopWithSavepoint(tmp.resolve(prefix + "-savepoints"));
    }
    List<List<String>> out = Outputs.committed(KAFKA.bootstrapServers(), w.outputTopics(topics));
    assertThat(out.get(0)).as("output committed before the savepoint").isNotEmpty();

    // Flink returns its own form of the path ("file:/a b/c", unescaped): read as Flink reads it
    Path savepointDir = Path.of(new org.apache.flink.core.fs.Path(savepoint).toUri().getPath());
    // no path of the checkout or the home folder: state handles are inlined (their names keep the temporary folder
    // they were written to, file:/tmp/junit-<n>/..., never opened: the restore reads a copy after that folder is
    // gone) or files of the folder by relative path
    String metadata = new String(Files.readAllBytes(savepointDir.resolve("_metadata")), StandardCharsets.ISO_8859_1);
    Path checkout = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();
    assertThat(metadata).as("%s: _metadata of the savepoint", w)
        .doesNotContain(checkout.toString(), System.getProperty("user.home") + "/");

    Files.createDirectories(dir.getParent());
    Files.createDirectory(dir); // fails if it appeared meanwhile: never overwrite
    SavepointFixtures.copyTree(savepointDir, dir.resolve("savepoint"));
    SavepointFixtures.writeLines(dir.resolve("output.txt.gz"), out.get(0));
    SavepointFixtures.writeLines(dir.resolve("dead-letters.txt.gz"), out.get(1));
    Properties p = new Properties();
    p.setProperty("job", w.job(false).name());
    p.setProperty("workload", w.name());
    p.setProperty("input.seed", Long.toString(SavepointFixtures.SEED));
    p.setProperty("input.units", Long.toString(units));
    p.setProperty("input.unit", w == Workload.DEDUP ? "events" : "packets");
    p.setProperty("input.split.units", Long.toString(written));
    p.setProperty("input.split.records", Long.toString(records));
    p.setProperty("topics", String.join(",", topics.names()));
    p.setProperty("parallelism", "2");
    p.setProperty("snapshot-compression", "true");
    p.setProperty("flink.version", EnvironmentInformation.getVersion());
    p.setProperty("linerate.version", System.getProperty("linerate.version", "unknown"));
    p.setProperty("written", Instant.now().toString());
    p.setProperty("output.records", Integer.toString(out.get(0).size()));
    p.setProperty("dead-letters.records", Integer.toString(out.get(1).size()));
    p.setProperty("command", COMMAND);
    try (OutputStream o = Files.newOutputStream(dir.resolve("fixture.properties"))) {
      p.store(o, "savepoint fixture " + version + " of " + w
          + ", written by io.linerate.it.WriteSavepointFixtures; see docs/STATE-FORMAT.md, Savepoint fixtures");
    }
    try (var files = Files.list(dir.resolve("savepoint"))) {
      assertThat(files.map(f -> f.getFileName().toString())).as("savepoint files").contains("_metadata");
    }
    System.out.printf(Locale.ROOT, "[WriteSavepointFixtures] %s: %d of %d %s before the savepoint, %d output "
            + "records, %d dead letters, savepoint %d bytes, fixture %d bytes in %s (%.1f s)%n", w, written, units,
        p.getProperty("input.unit"), out.get(0).size(), out.get(1).size(),
        SavepointFixtures.size(dir.resolve("savepoint")), SavepointFixtures.size(dir), dir,
        (System.nanoTime() - begin) / 1e9);
  }
}
