package io.linerate.it;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for the test cluster (it runs in the test JVM) that follows the Kafka source's
 * {@code KafkaSourceReader.topic.<t>.partition.<p>.currentOffset} gauges: the offset of the last record the source
 * emitted from each partition ({@link #of}). Put on every {@link ItCluster}.
 *
 * <p>Why not the offsets the source commits to its consumer group: the connector queues each commit behind the
 * split reader's {@code poll}, which blocks for up to 10 s once a topic is drained, so the committed offsets trail
 * the reading by up to 10 s at the end of every run (measured: each part of a rescale test took 11–12 s, however
 * small its input).
 */
public final class ReadOffsets implements MetricReporter {

  /** The gauge's value before the source emitted any record of the partition (the connector's INITIAL_OFFSET). */
  public static final long NONE = -1;

  private static final String GAUGE = "currentOffset";
  /** Live gauges (a partition can have two for a moment while a failed task is replaced) and what they measure. */
  private static final Map<Metric, String> LIVE = new ConcurrentHashMap<>();

  /** The cluster setting that installs this reporter. */
  public static Configuration configuration() {
    Configuration conf = new Configuration();
    conf.setString("metrics.reporter.read-offsets.factory.class", Factory.class.getName());
    return conf;
  }

  /** The offset of the last record job {@code job} emitted from {@code topic}'s partition, or {@link #NONE}. */
  public static long of(JobID job, String topic, int partition) {
    String key = key(job.toString(), topic, String.valueOf(partition));
    long offset = NONE;
    for (Map.Entry<Metric, String> e : LIVE.entrySet()) {
      if (e.getValue().equals(key)) {
        offset = Math.max(offset, ((Number) ((Gauge<?>) e.getKey()).getValue()).longValue());
      }
    }
    return offset;
  }

  private static String key(String job, String topic, String partition) {
    return job + "|" + topic + "|" + partition;
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
    if (GAUGE.equals(name) && metric instanceof Gauge && vars.containsKey("<job_id>") && vars.containsKey("<topic>")
        && vars.containsKey("<partition>")) {
      LIVE.put(metric, key(vars.get("<job_id>"), vars.get("<topic>"), vars.get("<partition>")));
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    LIVE.remove(metric);
  }

  /** Found by Flink through {@code META-INF/services}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new ReadOffsets();
    }
  }
}
