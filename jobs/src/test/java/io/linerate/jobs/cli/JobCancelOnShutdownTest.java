package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LocalFlink;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job command run on the cluster in this JVM (the demo jar) cancels its job when the JVM shuts down (Ctrl-C):
 * the sinks then abort the transactions they hold open. Without it the JVM's exit left them open, and
 * {@code read_committed} readers of those partitions, other jobs' output behind them included, waited until the
 * transaction timeout (10 min by default). Real job (dedup) on a local cluster against the embedded broker; the
 * shutdown hook is run directly.
 */
class JobCancelOnShutdownTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  /** The hook of a job run on a cluster that another part of the JVM started (Flink's local executor here). */
  @Test
  @Timeout(180)
  void theShutdownHookCancelsTheJobAndItsOpenTransactionsAreAborted() throws Exception {
    JobTopics topics = topics("cancel");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration());
    job("cancel").define(env, topics);
    JobClient client = env.executeAsync("cancel-test");
    try (Admin admin = admin()) {
      awaitOpenOutput(admin, topics.output());

      ByteArrayOutputStream said = new ByteArrayOutputStream();
      JobEnvironment.cancelling(client, "cancel-test", new PrintStream(said, true, StandardCharsets.UTF_8)).run();

      assertThat(said.toString(StandardCharsets.UTF_8)).contains("cancelling job cancel-test");
      // the job's result: failed with its cancellation (its cluster in this JVM is gone with it)
      assertThat(client.getJobExecutionResult()).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
          .havingRootCause().isInstanceOf(org.apache.flink.runtime.client.JobCancellationException.class);
      assertAborted(admin, topics.output());
    }
  }

  /**
   * The hook of a job run on a {@link LocalFlink} of its own (a job command without a Flink cluster around): the job
   * is cancelled, its transactions aborted, and the cluster stopped, its folder removed before the JVM would exit.
   */
  @Test
  @Timeout(180)
  void onItsOwnLocalClusterTheHookAlsoStopsTheClusterAndRemovesItsFolder() throws Exception {
    JobTopics topics = topics("own");
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    PrintStream sayTo = new PrintStream(said, true, StandardCharsets.UTF_8);
    LocalFlink flink = LocalFlink.builder().slots(1).configuration(configuration()).progress(sayTo::println).start();
    try (Admin admin = admin()) {
      StreamExecutionEnvironment env = new StreamExecutionEnvironment(configuration());
      job("own").define(env, topics);
      JobID id = flink.submit(env, "own-test");
      awaitOpenOutput(admin, topics.output());

      JobEnvironment.cancelling(flink, id, "cmd: ", "own-test", sayTo).run();

      assertThat(said.toString(StandardCharsets.UTF_8)).contains("cmd: cancelling job own-test")
          .contains("local Flink cluster stopped in");
      assertThat(flink.folder()).doesNotExist();
      assertAborted(admin, topics.output());
    } finally {
      flink.close();
    }
  }

  /** Topics {@code <prefix>-in} (200 events of one tenant, all unique), -out, -dups and -dead. */
  private static JobTopics topics(String prefix) {
    String in = prefix + "-in";
    KAFKA.broker().createTopics(1, in, prefix + "-out", prefix + "-dups", prefix + "-dead");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      for (int i = 0; i < 200; i++) {
        producer.send(new ProducerRecord<>(in, "a", "{\"tenant\":\"a\",\"event_id\":\"e" + i + "\",\"ts\":"
            + (1_763_720_000_000L + i) + "}"));
      }
    }
    return new JobTopics(KAFKA.bootstrapServers(), in, prefix + "-out", prefix + "-dead");
  }

  private static Configuration configuration() {
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
    // No checkpoint before the cancel: Flink starts the first one at a random time between the min pause and the
    // interval (CheckpointCoordinator#getRandomInitDelay), so with the min pause at its default of 0 a checkpoint
    // now and then committed the transaction before the test looked at it. Equal, the first one is 2 min away.
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMinutes(2));
    conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMinutes(2));
    return conf;
  }

  private static DedupJob job(String prefix) {
    return DedupJob.builder().keyField("event_id").timestampField("ts").scopeField("tenant")
        .duplicatesTopic(prefix + "-dups").horizon(Duration.ofMinutes(1)).expectedRate(1000).fpp(0.01).build();
  }

  private static Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()));
  }

  /** Waits until the job has written its 200 first occurrences, in a transaction still open. */
  private static void awaitOpenOutput(Admin admin, String out) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (TopicReader.readAll(KAFKA.bootstrapServers(), out, false).size() < 200) {
      assertThat(System.nanoTime()).as("the job writes its 200 first occurrences").isLessThan(deadline);
      Thread.sleep(200);
    }
    assertThat(OutputVisibility.openTransactions(admin, Set.of(out))).as("written, not committed").hasSize(1);
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), out, true)).isEmpty();
  }

  private static void assertAborted(Admin admin, String out) throws Exception {
    assertThat(OutputVisibility.openTransactions(admin, Set.of(out))).as("aborted by the cancelled sink").isEmpty();
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), out, true)).as("nothing committed").isEmpty();
  }
}
