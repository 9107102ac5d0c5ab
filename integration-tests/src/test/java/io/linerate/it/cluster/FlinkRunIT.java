package io.linerate.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.it.InputWriter;
import io.linerate.it.ItCluster;
import io.linerate.it.ItTopics;
import io.linerate.it.JobRun;
import io.linerate.it.Outputs;
import io.linerate.it.ReferenceRuns;
import io.linerate.it.Workload;
import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar users submit ({@code jobs/target/linerate-jobs-<version>.jar}, system property
 * {@code linerate.jobs.jar}) runs on a real standalone Flink session cluster through Flink's own CLI, as
 * {@code flink run} runs it: a JobManager and a TaskManager (2 slots) in JVMs of their own, whose class path is
 * what flink-dist's {@code lib/} holds ({@link FlinkDistClassPath}: Flink and its dependencies, no linerate, no
 * Kafka connector or clients, no Jackson or picocli), so every class of the job comes from the submitted jar and is
 * loaded by Flink's user-code class loader on the TaskManager.
 */
class FlinkRunIT {

  /** Packets of the input: 5 s of event time at {@link Workload#EVENT_RATE}, 40 windows of 8 observation points. */
  static final long PACKETS = 100_000;

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();

  @TempDir Path tmp;

  /**
   * {@code flink run <job jar> heavy-hitters --bounded --parallelism 2 ...} (attached) on the standalone cluster
   * over a seeded input of {@value #PACKETS} packets, with the options of {@link Workload#HEAVY_HITTERS}.
   *
   * <p>Proves: the shaded jar holds everything the job needs at run time on a cluster that supplies only Flink (a
   * class missing from it, or one that clashes with the cluster's, fails the job or the CLI: exit code not 0); the
   * CLI submits to the cluster named in {@code FLINK_CONF_DIR} (the REST API lists the job FINISHED, at parallelism
   * 2); the committed output is complete — the {@code total_weight} N of the reports adds up to the packets written
   * (every packet lands in exactly one tumbling window of its observation point; no dead letters) — and equals,
   * record for record, the same job run by {@link JobRun} on the MiniCluster with the same input: the jar on a
   * cluster computes what the tests of every other class prove about the job.
   */
  @Test
  @Timeout(300)
  void shadedJarRunsOnAStandaloneClusterThroughTheCli(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
    Workload.assumeSelected(Workload.HEAVY_HITTERS);
    Path jar = Path.of(System.getProperty("linerate.jobs.jar", "linerate.jobs.jar not set"));
    assertThat(jar).as("the job jar (mvn package in jobs/ builds it)").isRegularFile();
    FlinkDistClassPath cp = FlinkDistClassPath.ofThisJvm();
    cp.assertNoJobClasses();
    System.out.printf(Locale.ROOT, "[FlinkRunIT] cluster class path: %d jars; left out: %s%n", cp.kept.size(),
        cp.droppedNames());

    long begin = System.nanoTime();
    try (StandaloneFlink cluster = StandaloneFlink.start(Files.createDirectories(tmp.resolve("flink")), cp.classPath())) {
      // while the cluster starts: the input, and the same job on the MiniCluster
      JobTopics topics = ItTopics.create(KAFKA.broker(), "flinkrun");
      long written;
      try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
        written = writer.write(Workload.HEAVY_HITTERS.traffic(PACKETS, ReferenceRuns.SEED).source(), Long.MAX_VALUE, 0);
      }
      JobTopics mini = ItTopics.create(KAFKA.broker(), "flinkrun-minicluster");
      JobTopics miniTopics = new JobTopics(KAFKA.bootstrapServers(), topics.input(), mini.output(), mini.deadLetter());
      long miniBegin = System.nanoTime();
      try (JobRun run = JobRun.of(miniCluster, Workload.HEAVY_HITTERS.job(true), miniTopics).parallelism(2)
          .restarts(false).checkpointDir(Files.createDirectories(tmp.resolve("minicluster-checkpoints"))).start()) {
        run.awaitFinished(Duration.ofMinutes(2));
      }
      List<List<String>> expected = Outputs.committed(KAFKA.bootstrapServers(),
          Workload.HEAVY_HITTERS.outputTopics(miniTopics));
      System.out.printf(Locale.ROOT, "[FlinkRunIT] %d packets written; MiniCluster run: %d records (%.1f s)%n",
          written, expected.get(0).size(), (System.nanoTime() - miniBegin) / 1e9);

      cluster.awaitReady(Duration.ofSeconds(90));
      System.out.printf(Locale.ROOT, "[FlinkRunIT] standalone cluster up: REST on localhost:%d (%.1f s)%n",
          cluster.restPort(), (System.nanoTime() - begin) / 1e9);

      long runBegin = System.nanoTime();
      int exit = cluster.flink(Duration.ofMinutes(3), "run", jar.toString(), "heavy-hitters",
          "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", topics.input(),
          "--output-topic", topics.output(), "--alerts-topic", topics.output(),
          "--dead-letter-topic", topics.deadLetter(),
          "--window", "1s", "--top-k", "10", "--phi", "0.01", "--alert-weight", "400",
          "--out-of-orderness", "100ms", "--idleness", "0s", "--bounded",
          "--parallelism", "2", "--checkpoint-interval", "500ms",
          "--checkpoint-dir", ItCluster.flinkPath(Files.createDirectories(tmp.resolve("cluster-checkpoints"))));
      if (exit != 0) {
        throw cluster.failure("flink run exited with code " + exit);
      }
      System.out.printf(Locale.ROOT, "[FlinkRunIT] flink run ended with 0 after %.1f s%n",
          (System.nanoTime() - runBegin) / 1e9);

      JsonNode jobs = cluster.get("/jobs/overview").path("jobs");
      assertThat(jobs.size()).as("jobs on the cluster: %s", jobs).isEqualTo(1);
      assertThat(jobs.get(0).path("name").asText()).isEqualTo("heavy-hitters");
      assertThat(jobs.get(0).path("state").asText()).as("%s", jobs).isEqualTo("FINISHED");
      int parallelism = 0;
      for (JsonNode v : cluster.get("/jobs/" + jobs.get(0).path("jid").asText()).path("vertices")) {
        parallelism = Math.max(parallelism, v.path("parallelism").asInt());
      }
      assertThat(parallelism).as("the job's parallelism on the cluster").isEqualTo(2);

      List<List<String>> actual = Outputs.committed(KAFKA.bootstrapServers(),
          Workload.HEAVY_HITTERS.outputTopics(topics));
      long reports = 0;
      long weight = 0;
      ObjectMapper json = new ObjectMapper();
      for (String record : actual.get(0)) {
        JsonNode r = json.readTree(record);
        if (r.path("type").asText().equals("heavy_hitter_report")) {
          reports++;
          weight += r.path("total_weight").asLong();
        }
      }
      System.out.printf(Locale.ROOT, "[FlinkRunIT] cluster run: %d records (%d reports, N summing to %d), "
          + "%d dead letters; whole test %.1f s%n", actual.get(0).size(), reports, weight, actual.get(1).size(),
          (System.nanoTime() - begin) / 1e9);
      assertThat(reports).as("reports committed by the cluster run").isPositive();
      assertThat(weight).as("packets counted by the reports").isEqualTo(written);
      assertThat(actual.get(1)).as("dead letters").isEmpty();
      Outputs.assertSameRecords("output of flink run vs the MiniCluster run", actual.get(0), expected.get(0));
      Outputs.assertSameRecords("dead letters of flink run vs the MiniCluster run", actual.get(1), expected.get(1));
      printTail(cluster, "cli", 5);
    }
  }

  private static void printTail(StandaloneFlink cluster, String name, int lines) {
    List<String> out = new ArrayList<>();
    for (String line : StandaloneFlink.tail(cluster.log(name), lines).split("\\R")) {
      out.add("[FlinkRunIT] " + name + ": " + line);
    }
    System.out.println(String.join(System.lineSeparator(), out));
  }
}
