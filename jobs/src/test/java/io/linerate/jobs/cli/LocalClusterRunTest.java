package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.linerate.jobs.flowmeter.FlowMeterCommand;
import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.ExactlyOnceSource;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.PassThroughJob;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A job command without a Flink cluster around (the demo jar's {@code java -jar ... <job>}) runs its job on a local
 * cluster of its own: it prints the cluster's web UI address, each restart after a failure as it happens (with the
 * failure's root cause) and how many there were, and stops the cluster at the end, its folder removed. Before, such
 * a run restarted in silence (the log aside) and said nothing of a web UI. Real job (a bounded exactly-once copy
 * whose task fails once, in its first attempt) against the embedded broker.
 */
class LocalClusterRunTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  static final int RECORDS = 200;

  @Test
  @Timeout(180)
  void aRestartIsReportedWithItsCauseAndCountedAndTheClusterIsGoneAfterwards() throws Exception {
    KAFKA.broker().createTopics(1, "copy-in", "copy-out", "copy-dead");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>("copy-in", "k", "r" + i));
      }
    }
    CommandLine cl = new CommandLine(new FlowMeterCommand());
    cl.parseArgs("--parallelism", "2", "--checkpoint-interval", "300ms");
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    int exit;
    int restarts;
    try (JobEnvironment environment = JobEnvironment.create(flink(cl), cl.getCommandSpec(), out)) {
      JobLauncher job = new CopyFailingOnce(RECORDS / 2);
      JobTopics topics = new JobTopics(KAFKA.bootstrapServers(), "copy-in", "copy-out", "copy-dead");
      job.define(environment.env(), topics); // as the job commands do
      exit = environment.run(cl.getCommandSpec(), job, topics, true, out);
      restarts = environment.restarts();
    }
    String said = printed.toString(StandardCharsets.UTF_8);
    System.out.print(said);
    System.out.print(err);
    assertThat(exit).as(said + err).isZero();
    Matcher cluster = Pattern.compile("flow-meter: local Flink cluster \\S+, 2 task slots, web UI and REST API on "
        + "http://127\\.0\\.0\\.1:\\d+, files in (\\S+) \\(started in").matcher(said);
    assertThat(cluster.find()).as(said).isTrue();
    assertThat(said).contains("flow-meter: job copy restarts after a failure (from its latest checkpoint, if it has "
            + "one): java.lang.IllegalStateException: transient failure (first attempt only)")
        .containsPattern("flow-meter: job copy finished after \\d+\\.\\d s; it restarted once after a failure")
        .contains("flow-meter: local Flink cluster stopped in");
    assertThat(restarts).isEqualTo(1);
    assertThat(Path.of(cluster.group(1))).doesNotExist();
    List<String> copied = TopicReader.readAll(KAFKA.bootstrapServers(), "copy-out", true);
    assertThat(copied).as("exactly once across the restart").hasSize(RECORDS).doesNotHaveDuplicates();
  }

  private static FlinkOptions flink(CommandLine cl) throws Exception {
    java.lang.reflect.Field f = FlowMeterCommand.class.getDeclaredField("flink");
    f.setAccessible(true);
    return (FlinkOptions) f.get(cl.getCommand());
  }

  /** Copies the input topic (to its end offsets at the start) to the output topic; fails once at record n. */
  private static final class CopyFailingOnce implements JobLauncher {
    private final int n;

    CopyFailingOnce(int n) {
      this.n = n;
    }

    @Override
    public String name() {
      return "copy";
    }

    @Override
    public String description() {
      return "the input topic copied to the output topic, failing once";
    }

    @Override
    public void define(StreamExecutionEnvironment env, JobTopics topics) {
      ExactlyOnceSink.builder(new SimpleStringSchema())
          .bootstrapServers(topics.bootstrapServers())
          .topic(topics.output())
          .jobName(name())
          .transactionTimeout(Duration.ofMinutes(5))
          .sinkTo(ExactlyOnceSource.builder(new SimpleStringSchema())
              .bootstrapServers(topics.bootstrapServers())
              .topics(topics.input())
              .jobName(name())
              .bounded()
              .fromSource(env, WatermarkStrategy.noWatermarks())
              .map(new PassThroughJob.FailOnce(n)));
    }
  }
}
