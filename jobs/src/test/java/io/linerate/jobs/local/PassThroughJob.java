package io.linerate.jobs.local;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.ExactlyOnceSource;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The minimal {@link JobLauncher}: copies the input topic to the output topic with the exactly-once Kafka source
 * ({@code read_committed}, offsets in checkpoints) and sink (one transaction per checkpoint). The demo's job until
 * the heavy-hitters job lands; also what the demo's tests run. {@link #drain} waits until the output, read with
 * {@code read_committed}, holds as many records as were fed.
 */
public final class PassThroughJob implements JobLauncher {

  /** The transaction timeout of the sink: the broker's maximum (15 min) is far above any demo checkpoint interval. */
  private static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(5);

  /** Records after which the task's first attempt fails once (0: never). */
  private final int failOnceAfter;

  public PassThroughJob() {
    this(0);
  }

  /** A pass-through whose task fails once, in its first attempt, at record {@code failOnceAfter}. */
  PassThroughJob(int failOnceAfter) {
    this.failOnceAfter = failOnceAfter;
  }

  @Override
  public String name() {
    return "pass-through";
  }

  @Override
  public String description() {
    return "pass-through demo until the heavy-hitters job lands: the input topic copied to the output topic, "
        + "exactly once";
  }

  @Override
  public void define(StreamExecutionEnvironment env, JobTopics topics) {
    DataStream<String> in = ExactlyOnceSource.builder(new SimpleStringSchema())
        .bootstrapServers(topics.bootstrapServers())
        .topics(topics.input())
        .jobName(name())
        .fromSource(env, WatermarkStrategy.noWatermarks());
    ExactlyOnceSink.builder(new SimpleStringSchema())
        .bootstrapServers(topics.bootstrapServers())
        .topic(topics.output())
        .jobName(name())
        .transactionTimeout(TRANSACTION_TIMEOUT)
        .sinkTo(failOnceAfter > 0 ? in.map(new FailOnce(failOnceAfter)) : in);
  }

  /** Fails once, in the first attempt of the task, at its n-th record: a transient fault the job recovers from. */
  public static final class FailOnce extends org.apache.flink.api.common.functions.RichMapFunction<String, String> {
    private final int n;
    private int seen;

    public FailOnce(int n) {
      this.n = n;
    }

    @Override
    public String map(String value) {
      if (getRuntimeContext().getTaskInfo().getAttemptNumber() == 0 && ++seen == n) {
        throw new IllegalStateException("transient failure (first attempt only)");
      }
      return value;
    }
  }

  @Override
  public boolean drains() {
    return true;
  }

  @Override
  public boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream out)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long committed;
    while ((committed = committedRecords(topics.bootstrapServers(), topics.output())) < recordsFed
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    boolean complete = committed == recordsFed;
    out.printf(Locale.ROOT, "output: %d records committed in %s (read_committed), %d fed: %s%n", committed,
        topics.output(), recordsFed, complete ? "each fed record copied once"
            : committed < recordsFed ? "incomplete after " + timeout : "more than fed (duplicates)");
    return complete;
  }

  /** Counts the records a {@code read_committed} consumer reads in {@code topic} from its beginning to its end. */
  static long committedRecords(String bootstrapServers, String topic) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "linerate-demo-drain");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    Duration wait = Duration.ofSeconds(10);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, wait).stream()
          .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // with read_committed the end offset is the last stable offset: everything before it is decided
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, wait);
      long count = 0;
      long deadline = System.nanoTime() + wait.toNanos();
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())
          && System.nanoTime() < deadline) {
        count += consumer.poll(Duration.ofMillis(100)).count();
      }
      return count;
    }
  }
}
