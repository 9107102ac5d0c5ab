package io.linerate.it;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.runtime.metrics.scope.ScopeFormat;

/**
 * The metric reporter of every test cluster ({@link ItCluster}; it runs in the test JVM), which remembers two kinds of
 * metric by job:
 * <ul>
 *   <li>every counter, by name, keeping a counter's last value when its task goes away (a finished bounded job),
 *       so a test can read what the operators counted ({@link #counterSum});</li>
 *   <li>the Kafka source's {@code KafkaSourceReader.topic.<t>.partition.<p>.currentOffset} gauges: the offset of
 *       the last record the source emitted from each partition ({@link #readOffset});</li>
 *   <li>the live gauges named in {@link #GAUGES}: the scheduler's {@code numRestarts} of the job, and the operators'
 *       write-back cache gauges (a pass-through cache, on the heap backend, holds nothing), summed over subtasks by
 *       {@link #gaugeSum}.</li>
 * </ul>
 *
 * <p>Why the read offsets and not the offsets the source commits to its consumer group: the connector queues each
 * commit behind the split reader's {@code poll}, which blocks for up to 10 s once a topic is drained, so the
 * committed offsets trail the reading by up to 10 s at the end of every run (measured: each part of a rescale test
 * took 11–12 s, however small its input).
 */
public final class ClusterMetrics implements MetricReporter {

  /** {@link #readOffset} before the source emitted any record of the partition (the connector's INITIAL_OFFSET). */
  public static final long NO_OFFSET = -1;

  private static final String OFFSET_GAUGE = "currentOffset";
  /**
   * Gauges {@link #gaugeSum} reads: the job's restarts (Flink's scheduler), what the operators' write-back caches
   * hold, read from, wrote to the state backend and evicted ({@code io.linerate.flink.state.WriteBackCache}), and
   * the heavy-hitter operator's bytes of the key it used last ({@code stateBytesPerKey}).
   */
  public static final java.util.Set<String> GAUGES =
      java.util.Set.of("numRestarts", "cachedScopes", "cachedBytes", "stateReads", "stateWrites", "stateEvictions",
          "stateBytesPerKey");
  /** Live gauges of {@link #GAUGES}, to "job id|name". */
  private static final Map<Metric, String> NAMED = new ConcurrentHashMap<>();
  private static final Map<String, Counter> LIVE = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> REMOVED = new ConcurrentHashMap<>();
  /**
   * Live offset gauges, by what they measure: job, topic, partition, and the attempt number of the task that
   * registered it (a partition can have two gauges for a moment while a failed task is replaced; the old attempt's
   * may be ahead of the new one's, which restarted from a checkpoint).
   */
  private static final Map<Metric, OffsetGauge> OFFSETS = new ConcurrentHashMap<>();

  private record OffsetGauge(String partition, int attempt) {
  }

  /** The cluster setting that installs this reporter. */
  public static Configuration configuration() {
    Configuration conf = new Configuration();
    conf.setString("metrics.reporter.cluster-metrics.factory.class", Factory.class.getName());
    return conf;
  }

  /** The sum of the counters named {@code name} of job {@code job} (every subtask, live or finished). */
  public static long counterSum(JobID job, String name) {
    String prefix = job + "|" + name + "|";
    long live = LIVE.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().getCount()).sum();
    return live + REMOVED.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().get()).sum();
  }

  /**
   * The offset of the last record job {@code job} emitted from {@code topic}'s partition, as the newest task attempt
   * reading it reports, or {@link #NO_OFFSET}.
   */
  public static long readOffset(JobID job, String topic, int partition) {
    String key = job + "|" + topic + "|" + partition;
    int newest = -1;
    long offset = NO_OFFSET;
    for (Map.Entry<Metric, OffsetGauge> e : OFFSETS.entrySet()) {
      OffsetGauge g = e.getValue();
      if (g.partition().equals(key) && g.attempt() >= newest) {
        long value = ((Number) ((Gauge<?>) e.getKey()).getValue()).longValue();
        offset = g.attempt() > newest ? value : Math.max(offset, value);
        newest = g.attempt();
      }
    }
    return offset;
  }

  /**
   * The sum of the live gauges named {@code name} (one of {@link #GAUGES}) of job {@code job}, over every subtask
   * running now; -1 if there is none (a job not yet running, or between a failure and its restart).
   */
  public static long gaugeSum(JobID job, String name) {
    if (!GAUGES.contains(name)) {
      throw new IllegalArgumentException(name + " is not one of the gauges followed: " + GAUGES);
    }
    String id = job + "|" + name;
    long sum = 0;
    boolean found = false;
    for (Map.Entry<Metric, String> e : NAMED.entrySet()) {
      if (e.getValue().equals(id)) {
        sum += ((Number) ((Gauge<?>) e.getKey()).getValue()).longValue();
        found = true;
      }
    }
    return found ? sum : -1;
  }

  /**
   * The values of the live gauges named {@code name} (one of {@link #GAUGES}) of job {@code job}, one per subtask
   * running now, sorted; empty if there is none.
   */
  public static java.util.List<Long> gaugeValues(JobID job, String name) {
    if (!GAUGES.contains(name)) {
      throw new IllegalArgumentException(name + " is not one of the gauges followed: " + GAUGES);
    }
    String id = job + "|" + name;
    return NAMED.entrySet().stream().filter(e -> e.getValue().equals(id))
        .map(e -> ((Number) ((Gauge<?>) e.getKey()).getValue()).longValue()).sorted().toList();
  }

  private static String counterId(String name, MetricGroup group) {
    return group.getAllVariables().get("<job_id>") + "|" + name + "|" + group.getMetricIdentifier(name);
  }

  @Override
  public void open(MetricConfig config) {
  }

  @Override
  public void close() {
  }

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    Map<String, String> vars = group.getAllVariables();
    if (!vars.containsKey("<job_id>")) {
      return;
    }
    if (metric instanceof Counter) {
      LIVE.put(counterId(name, group), (Counter) metric);
    } else if (GAUGES.contains(name) && metric instanceof Gauge) {
      NAMED.put(metric, vars.get("<job_id>") + "|" + name);
    } else if (OFFSET_GAUGE.equals(name) && metric instanceof Gauge && vars.containsKey("<topic>")
        && vars.containsKey("<partition>")) {
      String attempt = vars.get(ScopeFormat.SCOPE_TASK_ATTEMPT_NUM);
      OFFSETS.put(metric, new OffsetGauge(vars.get("<job_id>") + "|" + vars.get("<topic>") + "|"
          + vars.get("<partition>"), attempt == null ? 0 : Integer.parseInt(attempt)));
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    if (OFFSETS.remove(metric) != null || NAMED.remove(metric) != null || !(metric instanceof Counter)) {
      return;
    }
    // by identity: a replacement attempt of the task may already have registered a counter under the same id
    String id = counterId(name, group);
    if (LIVE.remove(id, metric)) {
      REMOVED.computeIfAbsent(id, k -> new AtomicLong()).addAndGet(((Counter) metric).getCount());
    }
  }

  /** Found by Flink through {@code META-INF/services}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new ClusterMetrics();
    }
  }
}
