package io.linerate.it;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for the test cluster (it runs in the test JVM): remembers every counter the jobs register, by
 * job id and name, and keeps a counter's last value when its task goes away (a finished bounded job), so a test can
 * read what the operators counted ({@link #sum}). Put on a cluster with {@link #configuration()}.
 */
public final class CounterReporter implements MetricReporter {

  private static final Map<String, Counter> LIVE = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> REMOVED = new ConcurrentHashMap<>();

  /** The cluster setting that installs this reporter. */
  public static Configuration configuration() {
    Configuration conf = new Configuration();
    conf.setString("metrics.reporter.counters.factory.class", Factory.class.getName());
    return conf;
  }

  /** The sum of the counters named {@code name} of job {@code job} (every subtask, live or finished). */
  public static long sum(JobID job, String name) {
    String prefix = job + "|" + name + "|";
    long live = LIVE.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().getCount()).sum();
    return live + REMOVED.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().get()).sum();
  }

  private static String id(String name, MetricGroup group) {
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
    if (metric instanceof Counter && group.getAllVariables().containsKey("<job_id>")) {
      LIVE.put(id(name, group), (Counter) metric);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    String id = id(name, group);
    Counter counter = LIVE.remove(id);
    if (counter != null) {
      REMOVED.computeIfAbsent(id, k -> new AtomicLong()).addAndGet(counter.getCount());
    }
  }

  /** Found by Flink through {@code META-INF/services}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new CounterReporter();
    }
  }
}
