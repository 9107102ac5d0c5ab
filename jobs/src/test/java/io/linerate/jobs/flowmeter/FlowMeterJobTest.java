package io.linerate.jobs.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.cluster.TestCluster;
import io.linerate.jobs.cli.Main;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.ConfiguredTopics;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.flink.test.junit5.MiniClusterExtension;
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
 * The {@code flow-meter} job end to end, started as users start it ({@code linerate flow-meter ...} through
 * {@link Main#commandLine()}, {@code getExecutionEnvironment()} = the MiniCluster here), from a real Kafka topic to
 * real Kafka topics read back with {@code read_committed}: packet batches of three observation points, IPv4 flows
 * (metered) and IPv6 packets (refused by an {@code ipv4-only} table), plus garbage values.
 *
 * <p>Checked against the exact ground truth computed here: per (observation point, 5-tuple) the records' packets,
 * bytes and TCP flags add up to what was sent, the smallest first / largest last timestamp are the flow's first
 * and last packet; every IPv6 packet is one {@code rejected} dead letter, every garbage value one
 * {@code dead_letter} with its reason; so every packet sent is accounted for exactly once. A short idle timeout makes
 * flows leave in several records (the per-flow sums must still hold).
 */
class FlowMeterJobTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @RegisterExtension
  static final MiniClusterExtension FLINK = TestCluster.twoSlots(noRestarts());

  /** A failing job fails the test at once instead of restarting until the timeout. */
  static org.apache.flink.configuration.Configuration noRestarts() {
    org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
    conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "none");
    return conf;
  }

  record Flow(long packets, long bytes, int flags, long first, long last) {
    Flow merge(Flow o) {
      return new Flow(packets + o.packets, bytes + o.bytes, flags | o.flags, Math.min(first, o.first),
          Math.max(last, o.last));
    }
  }

  /**
   * An output topic whose max.message.bytes is below what the job's sinks may write: the command refuses before the
   * job is submitted, naming the topic and both values (before, the sink failed on the first large record, and again
   * on every restart). No Flink job runs.
   */
  @Test
  @Timeout(60)
  void anOutputTopicTooSmallForTheSinksIsRefusedBeforeTheJobIsSubmitted() throws Exception {
    KAFKA.broker().createTopics(1, "fm-small-in", "fm-small-dead");
    ConfiguredTopics.create(KAFKA.bootstrapServers(), "fm-small-out", Map.of("max.message.bytes", "100000"));
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("flow-meter", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", "fm-small-in", "--output-topic", "fm-small-out", "--dead-letter-topic", "fm-small-dead",
        "--bounded");
    assertThat(exit).as("exit code of linerate flow-meter; error output: %s", err).isEqualTo(1);
    assertThat(err.toString()).contains("flow-meter: the job is not submitted: output topic 'fm-small-out' has "
        + "max.message.bytes 100000 (set on the topic), below the 1048576 bytes of the largest record the job may "
        + "write to it").doesNotContain("fm-small-dead");
  }

  @Test
  @Timeout(120)
  void everyPacketIsInExactlyOneFlowRecordOrDeadLetter() throws Exception {
    String in = "fm-packets";
    String out = "fm-flows";
    String dead = "fm-dead";
    KAFKA.broker().createTopics(2, in, out, dead);

    SplittableRandom rnd = new SplittableRandom(7);
    Map<String, Flow> truth = new HashMap<>();
    long ipv6Packets = 0;
    long t0 = 1_763_720_000_000L;
    long[] clock = {t0, t0, t0};
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
    for (int b = 0; b < 150; b++) {
      int op = b % 3;
      PacketBatch batch = new PacketBatch(op);
      for (int i = 0; i < 30; i++) {
        clock[op] += rnd.nextInt(20); // ~10 ms apart: with a 200 ms idle timeout rare flows leave several times
        int flow = (int) Math.min(39, Math.round(Math.abs(rnd.nextGaussian()) * 12));
        int protocol = flow % 3 == 0 ? 17 : 6;
        int flags = protocol == 6 ? 1 << rnd.nextInt(8) : 0;
        if (flow % 7 == 6) {
          batch.addIpv6(clock[op], 0x20010db800000000L, flow, 0x20010db800000000L, 1, 5000 + flow, 443, protocol,
              flags, rnd.nextInt(40, 1500));
          ipv6Packets++;
          continue;
        }
        int length = rnd.nextInt(20, 1500);
        batch.addIpv4(clock[op], 0x0A000000 | flow, 0xC0A80001, 1000 + flow, 80, protocol, flags, length);
        PacketRecord p = batch.get(batch.size() - 1);
        truth.merge(key(op, p.srcAddress(), p.dstAddress(), p.srcPort(), p.dstPort(), p.protocol()),
            new Flow(1, length, flags, clock[op], clock[op]), Flow::merge);
      }
      records.add(new ProducerRecord<>(in, "op" + op, PacketBatchCodec.encode(batch)));
      if (b % 50 == 10) {
        byte[] badVersion = PacketBatchCodec.encode(batch);
        badVersion[2] = 9;
        records.add(new ProducerRecord<>(in, "op" + op, badVersion));
        records.add(new ProducerRecord<>(in, "op" + op, "not a batch".getBytes(StandardCharsets.UTF_8)));
        byte[] truncated = PacketBatchCodec.encode(batch);
        records.add(new ProducerRecord<>(in, "op" + op, java.util.Arrays.copyOf(truncated, truncated.length - 5)));
      }
    }
    long garbage = records.stream().filter(r -> r.value().length < 20 || r.value()[2] != 1
        || !decodes(r.value())).count();
    produce(records);

    int exit = Main.commandLine().execute("flow-meter", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", in, "--output-topic", out, "--dead-letter-topic", dead, "--parallelism", "2",
        "--checkpoint-interval", "300ms", "--capacity", "64", "--idle-timeout", "200ms", "--active-timeout", "5s",
        "--tick", "100ms", "--key-format", "ipv4-only", "--seed", "0x1234", "--out-of-orderness", "50ms",
        "--idleness", "0s", "--bounded");
    assertThat(exit).as("exit code of linerate flow-meter").isZero();


    ObjectMapper json = new ObjectMapper();
    Map<String, Flow> metered = new HashMap<>();
    long flowRecords = 0;
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), out, true)) {
      JsonNode n = json.readTree(v);
      assertThat(n.get("type").asText()).isEqualTo("flow");
      flowRecords++;
      metered.merge(key(n.get("scope").asInt(), n.get("src_addr").asText(), n.get("dst_addr").asText(),
          n.get("src_port").asInt(), n.get("dst_port").asInt(), n.get("protocol").asInt()),
          new Flow(n.get("packets").asLong(), n.get("bytes").asLong(), n.get("tcp_flags").asInt(),
              n.get("first_timestamp").asLong(), n.get("last_timestamp").asLong()), Flow::merge);
    }
    long rejected = 0;
    List<String> reasons = new ArrayList<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), dead, true)) {
      JsonNode n = json.readTree(v);
      if (n.get("type").asText().equals("rejected")) {
        rejected++;
        assertThat(n.get("record").get("ip_version").asInt()).isEqualTo(6);
        assertThat(n.get("reason").asText()).containsIgnoringCase("ipv6");
      } else {
        assertThat(n.get("type").asText()).isEqualTo("dead_letter");
        reasons.add(n.get("reason").asText());
      }
    }
    System.out.printf(Locale.ROOT,
        "flow-meter job: %d IPv4 flows in %d flow records, %d IPv6 packets rejected, %d dead letters%n",
        truth.size(), flowRecords, rejected, reasons.size());
    assertThat(metered).isEqualTo(truth);
    assertThat(flowRecords).as("a 200 ms idle timeout splits some flows").isGreaterThan(truth.size());
    assertThat(rejected).isEqualTo(ipv6Packets);
    assertThat(reasons).hasSize((int) garbage).allSatisfy(r -> assertThat(r).satisfiesAnyOf(
        s -> assertThat(s).startsWith("unknown version 9"),
        s -> assertThat(s).startsWith("bad magic"),
        s -> assertThat(s).containsIgnoringCase("truncated")));
  }

  private static boolean decodes(byte[] value) {
    try {
      PacketBatchCodec.decode(value);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static String key(int op, String src, String dst, int sport, int dport, int protocol) {
    return op + " " + src + " " + dst + " " + sport + " " + dport + " " + protocol;
  }

  private static void produce(List<ProducerRecord<String, byte[]>> records) {
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      records.forEach(producer::send);
      producer.flush();
    }
  }
}
