package io.linerate.jobs.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.linerate.jobs.cli.Main;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A job command run as the demo jar runs it: no Flink cluster around, so {@code getExecutionEnvironment()} starts a
 * local cluster in this JVM (no {@code MiniClusterExtension} here), against the embedded broker. The flow meter at
 * its default capacity (100,000 flows) holds about 9 MB of state per subtask, above the 5 MiB the JobManager's
 * checkpoint storage takes: without {@code --checkpoint-dir} its output must still be committed, never silently lost.
 */
class CheckpointStorageCommandTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = cl.execute(args);
    } finally {
      System.setOut(stdout);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    System.out.print(err);
    return new Run(exit, out, err.toString());
  }

  static final int BATCHES = 500;
  static final int FLOWS = 100_000;
  static final int FLOWS_PER_BATCH = 1000;

  private static long packets(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).get("packets").asLong();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** One observation point, {@link #FLOWS} IPv4 flows, {@link #BATCHES} batches of 1000 packets. */
  private static void produce(String topic) {
    produceTo(KAFKA.bootstrapServers(), topic, BATCHES);
  }

  /** {@code batches} batches of 1000 packets of one observation point, over {@link #FLOWS} flows. */
  static void produceTo(String bootstrapServers, String topic, int batches) {
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      long t = 1_763_720_000_000L;
      for (int b = 0; b < batches; b++) {
        PacketBatch batch = new PacketBatch(0);
        for (int i = 0; i < 1000; i++) {
          int flow = (b * 1000 + i) % FLOWS;
          batch.addIpv4(t + b, 0x0A000000 | flow, 0xC0A80001, 1000 + flow % 60_000, 80, 6, 2, 100);
        }
        producer.send(new ProducerRecord<>(topic, "op0", PacketBatchCodec.encode(batch)));
      }
      producer.flush();
    }
  }

  /**
   * A transaction left open on the output topic (as by an earlier run under the same --job-name whose transactional
   * id lies beyond the ids the sink probes and aborts at start) hides the bounded run's committed output from
   * read_committed readers until it ends. Before: exit 0 while such readers saw none of the records; now exit 1
   * naming the partition and the offset, and the records become readable once the transaction is aborted.
   */
  @Test
  @Timeout(120)
  void aBoundedRunWhoseOutputAnOpenTransactionHidesExitsNonZero() {
    KAFKA.broker().createTopics(1, "hang-in", "hang-out", "hang-dead");
    produceTo(KAFKA.bootstrapServers(), "hang-in", 20);
    try (KafkaProducer<String, byte[]> lingering = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "linerate-flow-meter.rep.hang-out-0-50",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      lingering.initTransactions();
      lingering.beginTransaction();
      lingering.send(new ProducerRecord<>("hang-out", "x", new byte[] {1}));
      lingering.flush();
      Run r = run("flow-meter", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "hang-in",
          "--output-topic", "hang-out", "--dead-letter-topic", "hang-dead", "--checkpoint-interval", "500ms",
          "--job-name", "rep", "--bounded");
      int committed = TopicReader.readAll(KAFKA.bootstrapServers(), "hang-out", true).size();
      int written = TopicReader.readAll(KAFKA.bootstrapServers(), "hang-out", false).size() - 1;
      assertThat(written).as("flow records written").isGreaterThanOrEqualTo(FLOWS_PER_BATCH);
      assertThat(r.exitCode() == 0 && committed < written)
          .as("exit code %d with %d of %d flow records readable", r.exitCode(), committed, written).isFalse();
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.err()).contains("flow-meter: the job finished, but read_committed consumers cannot read all of "
          + "its output yet: hang-out-0: a transaction open since offset 0 (producer id ");
      lingering.abortTransaction();
    }
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), "hang-out", true)).hasSizeGreaterThanOrEqualTo(
        FLOWS_PER_BATCH);
  }

  /**
   * Before: the command set Flink's {@code jobmanager} checkpoint storage, every checkpoint failed ("Size of the
   * state is larger than the maximum permitted memory-backed state") and the bounded job still exited 0 with none of
   * its flow records committed; at this input size it restarted in a loop instead, every attempt's state passing
   * 5 MiB before the end (a timeout here). Now the local cluster checkpoints to a temporary folder, says so, and
   * removes it when the command ends.
   */
  @Test
  @Timeout(120)
  void aBoundedFlowMeterAboveFiveMebibytesCommitsItsOutputWithoutACheckpointDirectory() {
    KAFKA.broker().createTopics(1, "big-in", "big-out", "big-dead");
    produce("big-in");
    Run r = run("flow-meter", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "big-in",
        "--output-topic", "big-out", "--dead-letter-topic", "big-dead", "--checkpoint-interval", "100ms",
        "--bounded");
    java.util.List<String> committed = TopicReader.readAll(KAFKA.bootstrapServers(), "big-out", true);
    long written = TopicReader.readAll(KAFKA.bootstrapServers(), "big-out", false).size();
    assertThat(written).as("flow records written").isGreaterThanOrEqualTo(FLOWS);
    assertThat(r.exitCode() == 0 && committed.size() < written)
        .as("exit code %d with %d of %d flow records committed; stderr: %s", r.exitCode(), committed.size(),
            written, r.err())
        .isFalse();
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(committed).hasSize((int) written);
    assertThat(committed.stream().mapToLong(CheckpointStorageCommandTest::packets).sum())
        .as("packets in committed flow records").isEqualTo(BATCHES * 1000L);
    java.util.regex.Matcher line = java.util.regex.Pattern.compile(
        "flow-meter: checkpoints go to (.+?) \\(a temporary folder, removed when the command ends; "
            + "--checkpoint-dir keeps them\\)").matcher(r.out());
    assertThat(line.find()).as(r.out()).isTrue();
    // what runs, and that it ended: the command says both (flow-meter printed neither before)
    assertThat(r.out()).contains("flow-meter: reading topic 'big-in' on " + KAFKA.bootstrapServers()
        + " up to its end offsets at the start; writing output topic 'big-out', dead-letter topic 'big-dead'; "
        + "Ctrl-C cancels the job").containsPattern("flow-meter: job flow-meter finished after \\d+\\.\\d s: 500 records read \\(those "
            + "before a restore from a checkpoint or savepoint included\\), 0 of them dead letters \\(to topic "
            + "'big-dead'\\)");
    assertThat(java.nio.file.Path.of(line.group(1))).doesNotExist();
  }
}
