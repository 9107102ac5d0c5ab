package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * The failure-free run of each workload's input (its seed, its size, then the end markers), once per test class:
 * the input written before the job starts, the job unbounded at parallelism 2 until its checkpoints have committed
 * the whole topic and the output it closes, then cancelled. What it committed is what every run of the same input
 * with failures, savepoints, rescaling or a broker restart must commit too.
 */
public final class ReferenceRuns {

  /** The seed of every test input. */
  public static final long SEED = 20261121L;

  private final Map<Workload, List<List<String>>> outputs = new EnumMap<>(Workload.class);
  private final java.util.function.ToLongFunction<Workload> units;
  private final String prefix;

  /** Reference runs of the inputs of {@code scale}. */
  public ReferenceRuns(Scale scale) {
    this("reference", w -> w.units(scale));
  }

  /**
   * Reference runs of inputs of {@code units} packets or events per workload, on topics {@code <prefix>-<job>-…}
   * (a class running several reference sets gives each its own prefix).
   */
  public ReferenceRuns(String prefix, java.util.function.ToLongFunction<Workload> units) {
    this.prefix = prefix;
    this.units = units;
  }

  /** The committed output topics (output, dead letters) of the failure-free run; computed at the first call. */
  public synchronized List<List<String>> of(Workload w, KafkaBroker broker, MiniCluster cluster, Path tmp)
      throws Exception {
    List<List<String>> out = outputs.get(w);
    if (out == null) {
      long begin = System.nanoTime();
      String prefix = this.prefix + "-" + w.name().toLowerCase(Locale.ROOT).replace('_', '-');
      JobTopics topics = ItTopics.create(broker, prefix);
      long units = this.units.applyAsLong(w);
      try (InputWriter writer = new InputWriter(broker.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
        writer.write(w.traffic(units, SEED).source(), Long.MAX_VALUE, 0);
        writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
      }
      try (JobRun run = JobRun.of(cluster, w.job(false), topics).parallelism(2)
          .checkpointDir(Files.createDirectories(tmp.resolve(prefix))).start()) {
        run.awaitSettled(Duration.ofMinutes(5));
        // failure-free, or it is no reference: restarts are on by default, so a failure would go unnoticed
        assertThat(run.restoredCheckpoints()).as("%s: restores of the failure-free run", w).isZero();
      }
      out = Outputs.committed(broker.bootstrapServers(), w.outputTopics(topics));
      System.out.printf(Locale.ROOT, "[%s] failure-free run of %d %s: %d output records, %d dead letters (%.1f s)%n",
          w, units, w == Workload.DEDUP ? "events" : "packets", out.get(0).size(), out.get(1).size(),
          (System.nanoTime() - begin) / 1e9);
      // the inputs are well-formed: a dead letter here is a good record the job refused (late, or over the
      // detector's open sub-windows), and every run compared with this one would be judged against it
      assertThat(out.get(1)).as("%s: dead letters of the failure-free run", w)
          .isEmpty();
      // and complete: every comparison with it would pass against an empty or partial output (empty equals empty)
      assertThat(accounted(w, broker.bootstrapServers(), topics.output()))
          .as("%s: the failure-free run's output accounts for its input", w).isEqualTo(expectedAccount(w, units));
      outputs.put(w, out);
    }
    return out;
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /**
   * What the committed output adds up to: the flow meter's packets over its flow records (the end markers' flows,
   * an hour ahead, never time out), the heavy hitters' window weight over its reports (packets; the markers'
   * windows never close), dedup's output records (one per event, unique or duplicate, the 4 markers included).
   */
  static long accounted(Workload w, String bootstrapServers, String outputTopic) {
    long[] sum = {0};
    CommittedRecords.forEach(bootstrapServers, outputTopic, value -> {
      if (w == Workload.DEDUP) {
        sum[0]++;
        return;
      }
      try {
        com.fasterxml.jackson.databind.JsonNode n = JSON.readTree(value);
        if (w == Workload.FLOW_METER) {
          sum[0] += n.get("packets").asLong();
        } else if (io.linerate.jobs.format.OutputJson.HEAVY_HITTER_REPORT.equals(n.path("type").asText())) {
          sum[0] += n.get("total_weight").asLong(); // alerts share the topic
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return sum[0];
  }

  /** What {@link #accounted} must be for an input of {@code units} packets or events and its end markers. */
  static long expectedAccount(Workload w, long units) {
    return w == Workload.DEDUP ? units + Workload.PARTITIONS : units;
  }
}
