package io.linerate.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.jobs.feed.TrafficSource;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * Measures one flow-meter input on the test cluster, twice: an unbounded run that holds the state of the whole
 * input (no end markers, so the tables stay as the traffic left them), where the latest checkpoint's size and the
 * JVM's used heap are read; then a bounded run of the same topic, timed from the moment all its tasks run to its
 * finish, whose output (its own topics) is read to count flow records, evictions and packets.
 */
final class FlowMeterRun {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one input did: sizes in bytes, time in seconds, counts of the bounded run's output. */
  record Result(String name, String input, long packets, long emptyCheckpoint, long heldCheckpoint, long heapBaseline,
      long heapHeld, double boundedSeconds, long flowRecords, long evictedRecords, long packetsOut,
      long rejectedPackets, long deadLetters, long evictionsMetric) {

    long heapGrowth() {
      return heapHeld - heapBaseline;
    }

    double packetsPerSecond() {
      return packets / boundedSeconds;
    }

    @Override
    public String toString() {
      String state = heldCheckpoint == 0 ? "state not measured" : String.format(Locale.ROOT,
          "checkpoint empty %d B, holding the input %d B; heap %+.1f MiB (%.1f -> %.1f MiB)", emptyCheckpoint,
          heldCheckpoint, heapGrowth() / 1048576.0, heapBaseline / 1048576.0, heapHeld / 1048576.0);
      return String.format(Locale.ROOT, "%s: %d packets; %s; bounded run %.2f s = %.0f packets/s; %d flow records"
          + " (%d evicted, metric %d), %d packets out, %d rejected, %d dead letters", name, packets, state,
          boundedSeconds, packetsPerSecond(), flowRecords, evictedRecords, evictionsMetric, packetsOut,
          rejectedPackets, deadLetters);
    }
  }

  private FlowMeterRun() {
  }

  /**
   * Runs {@code input} (a fresh source on each call of the supplier) through {@code unbounded} (state and heap)
   * then {@code bounded} (time and output) on topics named after {@code prefix}.
   */
  static Result measure(String prefix, Supplier<TrafficSource> input, FlowMeterJob unbounded, FlowMeterJob bounded,
      KafkaBroker broker, MiniCluster cluster, Path tmp) throws Exception {
    JobTopics topics = ItTopics.create(broker, prefix);
    long empty;
    long held;
    long baseline = usedHeapAfterGc();
    long heap;
    long packets;
    long t0 = System.nanoTime();
    try (JobRun run = JobRun.of(cluster, unbounded, topics).restarts(false)
        .checkpointDir(Files.createDirectories(tmp.resolve(prefix + "-state"))).start()) {
      run.awaitCheckpointAfter(0, Duration.ofMinutes(1));
      empty = run.latestCheckpointStateSize();
      long t1 = System.nanoTime();
      try (InputWriter writer = new InputWriter(broker.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
        packets = writer.write(input.get(), Long.MAX_VALUE, 0);
      }
      long t2 = System.nanoTime();
      awaitMetered(run, packets, Duration.ofMinutes(3));
      long t3 = System.nanoTime();
      heap = usedHeapAfterGc();
      held = run.latestCheckpointStateSize();
      System.out.printf(Locale.ROOT, "[BoundedMemoryUnderAttackIT] %s: unbounded run: first checkpoint after %.1f s,"
          + " input written in %.1f s, settled %.1f s later, heap read in %.1f s%n", prefix, (t1 - t0) / 1e9,
          (t2 - t1) / 1e9, (t3 - t2) / 1e9, (System.nanoTime() - t3) / 1e9);
    }
    return timedBoundedRun(prefix, topics.input(), packets, empty, held, baseline, heap, bounded, broker, cluster, tmp);
  }

  /**
   * Waits until the flow meter has metered {@code packets} packets (its {@code itemsProcessed} counters, read through
   * {@link ClusterMetrics}), then for two checkpoints completed after that: the second was triggered after the last
   * packet was metered, so it holds the state of the whole input.
   */
  static void awaitMetered(JobRun run, long packets, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (ClusterMetrics.counterSum(run.id(), "itemsProcessed") < packets) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("job " + run.id() + " metered " + ClusterMetrics.counterSum(run.id(), "itemsProcessed")
            + " of " + packets + " packets within " + timeout + " (status " + run.status() + ")");
      }
      Thread.sleep(20);
    }
    run.awaitCheckpointAfter(run.completedCheckpoints() + 1, Duration.ofMinutes(1));
  }

  /** A bounded run of {@code input} (already written), timed ({@link #runningToFinished}), its output counted. */
  static Result timedBoundedRun(String prefix, String input, long packets, long empty, long held, long baseline,
      long heap, FlowMeterJob bounded, KafkaBroker broker, MiniCluster cluster, Path tmp) throws Exception {
    JobTopics own = ItTopics.create(broker, prefix + "-bounded");
    JobTopics topics = new JobTopics(broker.bootstrapServers(), input, own.output(), own.deadLetter());
    double seconds;
    long metric;
    try (JobRun run = JobRun.of(cluster, bounded, topics).restarts(false)
        .checkpointDir(Files.createDirectories(tmp.resolve(prefix + "-bounded"))).start()) {
      seconds = runningToFinished(run, cluster);
      metric = ClusterMetrics.counterSum(run.id(), "evictions");
    }
    long t1 = System.nanoTime();
    // counted as read, not collected: under attack at the full scale the output is millions of records
    long[] counts = new long[3]; // records, evicted, packets
    TopicReader.forEachValue(broker.bootstrapServers(), topics.output(), true, value -> {
      JsonNode flow = readTree(value);
      counts[0]++;
      counts[2] += flow.get("packets").asLong();
      if ("evicted".equals(flow.get("export_reason").asText())) {
        counts[1]++;
      }
    });
    long records = counts[0];
    long evicted = counts[1];
    long packetsOut = counts[2];
    long rejected = 0;
    long deadLetters = 0;
    List<String> dlq = TopicReader.readAll(broker.bootstrapServers(), topics.deadLetter(), true);
    for (String value : dlq) {
      if ("rejected".equals(JSON.readTree(value).get("type").asText())) {
        rejected++;
      } else {
        deadLetters++;
      }
    }
    System.out.printf(Locale.ROOT, "[BoundedMemoryUnderAttackIT] %s: bounded run %.1f s, output read in %.1f s%n",
        prefix, seconds, (System.nanoTime() - t1) / 1e9);
    return new Result(prefix, input, packets, empty, held, baseline, heap, seconds, records, evicted, packetsOut, rejected,
        deadLetters, metric);
  }

  private static JsonNode readTree(byte[] json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON flow record", e);
    }
  }

  /** Another bounded run of {@code input} (already written), timed ({@link #runningToFinished}); output not read. */
  static double timeBoundedRun(String prefix, String input, FlowMeterJob bounded, KafkaBroker broker,
      MiniCluster cluster, Path tmp) throws Exception {
    JobTopics own = ItTopics.create(broker, prefix);
    JobTopics topics = new JobTopics(broker.bootstrapServers(), input, own.output(), own.deadLetter());
    try (JobRun run = JobRun.of(cluster, bounded, topics).restarts(false)
        .checkpointDir(Files.createDirectories(tmp.resolve(prefix))).start()) {
      return runningToFinished(run, cluster);
    }
  }

  /**
   * Seconds from the moment every task of the job runs to its finish: the processing of the input (the Kafka
   * clients' connection included), not the scheduling and deployment before it, which is the same for any input.
   */
  static double runningToFinished(JobRun run, MiniCluster cluster) throws Exception {
    long submitted = System.nanoTime();
    long running = 0;
    while (running == 0) {
      JobStatus s = run.status();
      if (s == JobStatus.RUNNING && allTasksRunning(run, cluster)) {
        running = System.nanoTime();
      } else if (s.isGloballyTerminalState()) {
        throw new AssertionError("job " + run.id() + " ended " + s + " before all its tasks ran");
      } else {
        Thread.sleep(5);
      }
    }
    run.awaitFinished(Duration.ofMinutes(5));
    long finished = System.nanoTime();
    System.out.printf(Locale.ROOT, "[BoundedMemoryUnderAttackIT] job %s: %.2f s from submission to all tasks running,"
        + " %.2f s from then to finished%n", run.id(), (running - submitted) / 1e9, (finished - running) / 1e9);
    return (finished - running) / 1e9;
  }

  private static boolean allTasksRunning(JobRun run, MiniCluster cluster) throws Exception {
    for (var vertex : cluster.getExecutionGraph(run.id()).get(30, TimeUnit.SECONDS).getAllExecutionVertices()) {
      ExecutionState state = vertex.getExecutionState();
      if (state != ExecutionState.RUNNING && state != ExecutionState.FINISHED) {
        return false;
      }
    }
    return true;
  }

  /** Used heap of this JVM (the MiniCluster's and the embedded broker's too) after full collections. */
  static long usedHeapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
