package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.cluster.TestCluster;
import io.linerate.jobs.cli.Main;
import io.linerate.jobs.format.DeadLetterReplay;
import io.linerate.jobs.kafka.ConfiguredTopics;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The {@code dedup} job end to end, started as users start it ({@code linerate dedup ...} through
 * {@link Main#commandLine()}; {@code getExecutionEnvironment()} = the MiniCluster here), from a real Kafka topic to
 * real Kafka topics read back with {@code read_committed}.
 *
 * <p>Input: JSON events of three tenants (the scope field) whose new keys are the SAME strings in every tenant (so
 * a job that ignored the scope would flag two thirds of them), each tenant in timestamp order, 1 ms apart, a chosen
 * fraction (30 %) being repeats of a key of the same tenant seen at most 1.5 s earlier (horizon 2 s); plus garbage.
 * The expected rate is the tenants' actual distinct-key rate (700 per second), so the filters run at their sizing
 * load and false positives do occur. The key is composite, {@code --key-field tenant --key-field event_id} (within a
 * scope the tenant part is the same for every event, so the guarantees are those of the event id alone), and each
 * envelope's key must be the JSON array of the two texts. Checked against the ground truth computed here:
 * <ul>
 *   <li>zero duplicates passed: no (tenant, key) appears twice among the unique events;</li>
 *   <li>conservation: every valid event is in exactly one of the unique and duplicates topics;</li>
 *   <li>flagged uniques (distinct (tenant, key) with no unique event) ≤ p·n + 4·√(p·n), n the number of distinct
 *       keys: the binomial count of false positives, each new key flagged with probability ≤ p (the operator's
 *       guarantee while a tenant stays within the expected rate),
 *       has mean ≤ p·n and standard deviation ≤ √(p·n), so the bound is 4 standard deviations above the mean;</li>
 *   <li>every garbage value is a dead letter with the reason naming what is wrong.</li>
 * </ul>
 */
class DedupJobTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @RegisterExtension
  static final MiniClusterExtension FLINK = TestCluster.twoSlots(noRestarts());

  private static final String[] TENANTS = {"acme", "globex", "initech"};
  private static final double DUPLICATE_RATIO = 0.3;
  private static final double FPP = 0.02;

  /** A failing job fails the test at once instead of restarting until the timeout. */
  static Configuration noRestarts() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return conf;
  }

  @Test
  @Timeout(120)
  void noDuplicatePassesAndFewUniquesAreFlagged() throws Exception {
    String in = "dd-events";
    String out = "dd-unique";
    String dups = "dd-duplicates";
    String dead = "dd-dead";
    KAFKA.broker().createTopics(2, in, out, dups, dead);

    SplittableRandom rnd = new SplittableRandom(11);
    long t0 = 1_763_720_000_000L;
    List<ProducerRecord<String, String>> records = new ArrayList<>();
    Set<String> distinct = new HashSet<>();
    long valid = 0;
    long repeats = 0;
    Map<String, List<long[]>> seen = new HashMap<>(); // tenant -> (key number, timestamp)
    Map<String, Integer> next = new HashMap<>();
    for (int i = 0; i < 6_000; i++) {
      String tenant = TENANTS[i % TENANTS.length];
      long ts = t0 + i / TENANTS.length; // each tenant: one event per ms
      List<long[]> past = seen.computeIfAbsent(tenant, t -> new ArrayList<>());
      long keyNumber;
      if (!past.isEmpty() && rnd.nextDouble() < DUPLICATE_RATIO) {
        long[] earlier;
        do { // a key of this tenant first seen at most 4 s before
          earlier = past.get(past.size() - 1 - rnd.nextInt(Math.min(past.size(), 1_500)));
        } while (ts - earlier[1] > 1_500);
        keyNumber = earlier[0];
        repeats++;
      } else {
        keyNumber = next.merge(tenant, 1, Integer::sum);
        past.add(new long[] {keyNumber, ts});
        distinct.add(tenant + "/e" + keyNumber);
      }
      valid++;
      records.add(new ProducerRecord<>(in, tenant, "{\"tenant\":\"" + tenant + "\",\"event_id\":\"e" + keyNumber
          + "\",\"ts\":" + ts + ",\"payload\":{\"n\":" + i + "}}"));
      if (i % 1500 == 700) {
        records.add(new ProducerRecord<>(in, tenant, "{not json"));
        records.add(new ProducerRecord<>(in, tenant, "{\"tenant\":\"" + tenant + "\",\"event_id\":\"x\"}"));
        records.add(new ProducerRecord<>(in, tenant, "{\"event_id\":\"y\",\"ts\":" + ts + "}"));
      }
    }
    produce(records);

    int exit = Main.commandLine().execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", in, "--output-topic", out, "--duplicates-topic", dups, "--dead-letter-topic", dead,
        "--parallelism", "2", "--checkpoint-interval", "300ms", "--key-field", "tenant", "--key-field", "event_id",
        "--timestamp-field", "ts",
        "--scope-field", "tenant", "--horizon", "2s", "--expected-rate", "700", "--fpp", String.valueOf(FPP),
        "--generations", "4", "--seed", "42", "--out-of-orderness", "0s", "--idleness", "0s", "--bounded");
    assertThat(exit).as("exit code of linerate dedup").isZero();

    ObjectMapper json = new ObjectMapper();
    Map<String, Integer> uniques = new HashMap<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), out, true)) {
      JsonNode n = json.readTree(v);
      assertThat(n.get("type").asText()).isEqualTo("unique_event");
      // the composite key (tenant, event_id): the JSON array of the two fields' texts
      String tenant = n.get("event").get("tenant").asText();
      String id = n.get("event").get("event_id").asText();
      assertThat(n.get("key").asText()).isEqualTo("[\"" + tenant + "\",\"" + id + "\"]");
      uniques.merge(tenant + "/" + id, 1, Integer::sum);
    }
    long duplicates = 0;
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), dups, true)) {
      JsonNode n = json.readTree(v);
      assertThat(n.get("type").asText()).isEqualTo("probable_duplicate");
      duplicates++;
    }
    List<String> reasons = new ArrayList<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), dead, true)) {
      reasons.add(json.readTree(v).get("reason").asText());
    }

    long n = distinct.size();
    long flagged = n - uniques.size();
    double pn = FPP * n;
    System.out.printf(Locale.ROOT,
        "dedup job: %d events (%d repeats), %d distinct keys: %d passed, %d flagged, %d new keys flagged "
        + "(bound %.0f), %d dead letters%n", valid, repeats, n, uniques.values().stream().mapToInt(i -> i).sum(),
        duplicates, flagged, pn + 4 * Math.sqrt(pn), reasons.size());
    assertThat(uniques.values()).as("zero duplicates passed").allMatch(c -> c == 1);
    assertThat(distinct).containsAll(uniques.keySet());
    assertThat(uniques.size() + duplicates).as("each valid event once").isEqualTo(valid);
    assertThat((double) flagged).as("flagged uniques ≤ p·n + 4√(p·n)").isLessThanOrEqualTo(pn + 4 * Math.sqrt(pn));
    assertThat(reasons).hasSize(12).allSatisfy(r -> assertThat(r).satisfiesAnyOf(
        s -> assertThat(s).startsWith("bad JSON"),
        s -> assertThat(s).isEqualTo("timestamp field ts is missing"),
        // no tenant: the key's first field is read before the scope
        s -> assertThat(s).isEqualTo("key field tenant is missing")));
    assertThat(reasons).anyMatch(r -> r.startsWith("key field tenant"));
    // what the demo calls once its feeder stopped: one committed output record per fed record
    DedupJob job = DedupJob.builder().duplicatesTopic(dups).build();
    assertThat(job.drain(new JobTopics(KAFKA.bootstrapServers(), in, out, dead), records.size(),
        java.time.Duration.ofSeconds(10), System.out)).isTrue();
  }

  /**
   * An event whose envelope would be longer than the sinks can write (the input value just below Kafka's 1 MiB
   * limit, the envelope adding the 200-character key and its fields) is a dead letter with the reason, and the job
   * goes on: the events around it pass. Before the check the producer refused the envelope
   * (RecordTooLargeException), the job failed, and a restarted job read the same event again.
   */
  @Test
  @Timeout(120)
  void anEventTooLargeForTheOutputIsADeadLetter() throws Exception {
    String in = "big-events";
    String out = "big-unique";
    String dead = "big-dead";
    KAFKA.broker().createTopics(1, in, out, dead);
    String key = "k".repeat(200);
    String prefix = "{\"id\":\"" + key + "\",\"ts\":1763720000000,\"pad\":\"";
    String big = prefix + "x".repeat(1_048_300 - prefix.length() - 2) + "\"}";
    produce(List.of(new ProducerRecord<>(in, "{\"id\":\"a\",\"ts\":1763720000000}"), new ProducerRecord<>(in, big),
        new ProducerRecord<>(in, "{\"id\":\"b\",\"ts\":1763720000001}")));

    int exit = Main.commandLine().execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", in, "--output-topic", out, "--duplicates-topic", "", "--dead-letter-topic", dead,
        "--checkpoint-interval", "300ms", "--timestamp-field", "ts", "--idleness", "0s", "--bounded");
    assertThat(exit).as("exit code of linerate dedup").isZero();

    ObjectMapper json = new ObjectMapper();
    List<String> keys = new ArrayList<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), out, true)) {
      keys.add(json.readTree(v).get("key").asText());
    }
    assertThat(keys).containsExactly("a", "b");
    List<JsonNode> letters = new ArrayList<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), dead, true)) {
      letters.add(json.readTree(v));
    }
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).get("reason").asText()).startsWith("event too large for the output: ")
        .contains("max.request.size");
    assertThat(letters.get(0).get("offset").asLong()).isEqualTo(1);
    assertThat(letters.get(0).get("value_length").asInt()).isEqualTo(big.length());
  }

  /**
   * A malformed event's dead letter keeps the record's key and headers (repeated names, a null value, a null key
   * included), and {@link DeadLetterReplay} writes it again as it was: read back from Kafka, the replayed records
   * have the original keys, values and headers, in order. Before, the dead letter dropped the key and headers. The
   * dead-letter records themselves stay without key or headers (FORMATS.md says why).
   */
  @Test
  @Timeout(120)
  void aDeadLetterReplaysAsItsOriginalRecord() throws Exception {
    String in = "replay-events";
    String out = "replay-unique";
    String dead = "replay-dead";
    String again = "replay-again";
    KAFKA.broker().createTopics(1, in, out, dead, again);
    byte[] utf8Key = "tenant-é".getBytes(StandardCharsets.UTF_8);
    List<ProducerRecord<byte[], byte[]>> bad = List.of(
        new ProducerRecord<>(in, null, null, utf8Key, "{not json".getBytes(StandardCharsets.UTF_8),
            List.of(new RecordHeader("trace", new byte[] {1, 2, 3}), new RecordHeader("none", null),
                new RecordHeader("trace", new byte[0]))),
        new ProducerRecord<>(in, null, null, null, "{\"id\":7}".getBytes(StandardCharsets.UTF_8),
            List.of(new RecordHeader("content-type", "application/json".getBytes(StandardCharsets.UTF_8)))),
        new ProducerRecord<>(in, null, null, new byte[] {0, -1}, "[]".getBytes(StandardCharsets.UTF_8),
            List.<Header>of()));
    List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(bad);
    all.add(1, new ProducerRecord<>(in, "{\"id\":\"a\",\"ts\":1763720000000}".getBytes(StandardCharsets.UTF_8)));
    List<Long> timestamps = new ArrayList<>();
    for (org.apache.kafka.clients.producer.RecordMetadata m : produceBytes(all)) {
      timestamps.add(m.timestamp());
    }
    timestamps.remove(1);

    int exit = Main.commandLine().execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", in, "--output-topic", out, "--duplicates-topic", "", "--dead-letter-topic", dead,
        "--checkpoint-interval", "300ms", "--timestamp-field", "ts", "--idleness", "0s", "--bounded");
    assertThat(exit).as("exit code of linerate dedup").isZero();

    List<ProducerRecord<byte[], byte[]>> replays = new ArrayList<>();
    TopicReader.forEachRecord(KAFKA.bootstrapServers(), dead, true, r -> {
      assertThat(r.key()).as("key of a dead-letter record").isNull();
      assertThat(r.headers().toArray()).as("headers of a dead-letter record").isEmpty();
      replays.add(DeadLetterReplay.record(r.value(), again));
    });
    assertThat(replays).hasSize(bad.size());
    produceBytes(replays);
    List<ConsumerRecord<byte[], byte[]>> back = new ArrayList<>();
    TopicReader.forEachRecord(KAFKA.bootstrapServers(), again, true, back::add);
    assertThat(back).hasSize(bad.size());
    for (int i = 0; i < bad.size(); i++) {
      ProducerRecord<byte[], byte[]> o = bad.get(i);
      ConsumerRecord<byte[], byte[]> r = back.get(i);
      assertThat(r.key()).as("key of replayed record %d", i).isEqualTo(o.key());
      assertThat(r.value()).as("value of replayed record %d", i).isEqualTo(o.value());
      assertThat(r.headers().toArray()).as("headers of replayed record %d", i).containsExactly(o.headers().toArray());
      assertThat(r.timestamp()).as("timestamp of replayed record %d", i).isEqualTo(timestamps.get(i));
    }
  }

  /**
   * With {@code --output-format raw} the job is a dedup stage in front of a stream: each first occurrence is written
   * to the output topic as the record that came in, with its key (binary, null), value, headers (repeated names, a
   * null value, none) and Kafka timestamp, and each probable duplicate to the duplicates topic likewise; a consumer
   * partitioning by key or reading headers sees the records it would see without the stage. A record with more
   * headers than a raw record may carry is a dead letter naming the limit. Before, the raw records had the value
   * only: no key, no headers, the time of writing.
   */
  /**
   * Raw output to a topic whose message.timestamp.before.max.ms can refuse the input records' timestamps: the command
   * warns naming the topic and the bound; with a duplicates topic too small for the sinks it also refuses, before
   * the job is submitted (so this test runs no Flink job). Before, neither was said, and the sink failed the job.
   */
  @Test
  @Timeout(60)
  void rawOutputTopicsAreCheckedBeforeTheJobIsSubmitted() throws Exception {
    KAFKA.broker().createTopics(1, "chk-events", "chk-dead");
    ConfiguredTopics.create(KAFKA.bootstrapServers(), "chk-unique", Map.of("message.timestamp.before.max.ms",
        "86400000"));
    ConfiguredTopics.create(KAFKA.bootstrapServers(), "chk-dups", Map.of("max.message.bytes", "500000"));
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "chk-events",
        "--output-topic", "chk-unique", "--duplicates-topic", "chk-dups", "--dead-letter-topic", "chk-dead",
        "--output-format", "raw", "--bounded");
    assertThat(exit).as("exit code of linerate dedup; error output: %s", err).isEqualTo(1);
    assertThat(err.toString())
        .contains("warning: raw output topic 'chk-unique' has message.timestamp.type CreateTime and "
            + "message.timestamp.before.max.ms 86400000")
        .contains("dedup: the job is not submitted: raw duplicates topic 'chk-dups' has max.message.bytes 500000 "
            + "(set on the topic), below the 1048576 bytes");
  }

  @Test
  @Timeout(120)
  void rawOutputKeepsTheRecordsKeyHeadersAndTimestamp() throws Exception {
    String in = "raw-events";
    String out = "raw-unique";
    String dups = "raw-duplicates";
    String dead = "raw-dead";
    KAFKA.broker().createTopics(1, in, out, dups, dead);
    long t0 = System.currentTimeMillis() - 3_600_000; // an hour old: not the time the job writes them
    List<Header> many = new ArrayList<>();
    for (int i = 0; i <= RawRecordDecoder.MAX_HEADERS; i++) {
      many.add(new RecordHeader("h" + i, new byte[] {(byte) i}));
    }
    List<ProducerRecord<byte[], byte[]>> records = List.of(
        raw(in, t0, "tenant-é".getBytes(StandardCharsets.UTF_8), "{\"id\":\"a\",\"ts\":1763720000000, \"n\":0}",
            new RecordHeader("trace", new byte[] {1, 2, 3}), new RecordHeader("none", null),
            new RecordHeader("trace", new byte[0])),
        raw(in, t0 + 1, null, "{\"id\":\"b\",\"ts\":1763720000001,\"n\":1}",
            new RecordHeader("content-type", "application/json".getBytes(StandardCharsets.UTF_8))),
        raw(in, t0 + 2, new byte[] {0, -1}, "{\"id\":\"a\",\"ts\":1763720000002,\"n\":2}",
            new RecordHeader("trace", new byte[] {9})),
        raw(in, t0 + 3, new byte[] {7}, "{\"id\":\"c\",\"ts\":1763720000003,\"n\":3}"),
        new ProducerRecord<>(in, null, t0 + 4, "k".getBytes(StandardCharsets.UTF_8),
            "{\"id\":\"d\",\"ts\":1763720000004,\"n\":4}".getBytes(StandardCharsets.UTF_8), many));
    produceBytes(records);

    int exit = Main.commandLine().execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(),
        "--input-topic", in, "--output-topic", out, "--duplicates-topic", dups, "--dead-letter-topic", dead,
        "--output-format", "raw", "--checkpoint-interval", "300ms", "--timestamp-field", "ts", "--idleness", "0s",
        "--bounded");
    assertThat(exit).as("exit code of linerate dedup").isZero();

    assertSameRecords(out, List.of(records.get(0), records.get(1), records.get(3)));
    assertSameRecords(dups, List.of(records.get(2)));
    List<JsonNode> letters = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), dead, true)) {
      letters.add(json.readTree(v));
    }
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).get("reason").asText()).isEqualTo("record has " + many.size() + " headers, more than "
        + "the " + RawRecordDecoder.MAX_HEADERS + " a raw output record may carry");
    assertThat(letters.get(0).get("header_count").asInt()).isEqualTo(many.size());
  }

  private static ProducerRecord<byte[], byte[]> raw(String topic, long timestamp, byte[] key, String value,
      Header... headers) {
    return new ProducerRecord<>(topic, null, timestamp, key, value.getBytes(StandardCharsets.UTF_8),
        List.of(headers));
  }

  /** The records of {@code topic} (one partition) have the keys, values, headers and timestamps of {@code sent}. */
  private static void assertSameRecords(String topic, List<ProducerRecord<byte[], byte[]>> sent) {
    List<ConsumerRecord<byte[], byte[]>> back = new ArrayList<>();
    TopicReader.forEachRecord(KAFKA.bootstrapServers(), topic, true, back::add);
    assertThat(back).as("records of %s", topic).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      ProducerRecord<byte[], byte[]> o = sent.get(i);
      ConsumerRecord<byte[], byte[]> r = back.get(i);
      assertThat(r.value()).as("value of %s record %d", topic, i).isEqualTo(o.value());
      assertThat(r.key()).as("key of %s record %d", topic, i).isEqualTo(o.key());
      assertThat(r.headers().toArray()).as("headers of %s record %d", topic, i)
          .containsExactly(o.headers().toArray());
      assertThat(r.timestamp()).as("timestamp of %s record %d", topic, i).isEqualTo(o.timestamp());
    }
  }

  private static List<org.apache.kafka.clients.producer.RecordMetadata> produceBytes(
      List<ProducerRecord<byte[], byte[]>> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 40_000,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
      records.forEach(r -> sent.add(producer.send(r)));
      List<org.apache.kafka.clients.producer.RecordMetadata> acks = new ArrayList<>();
      for (java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> f : sent) {
        acks.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
      }
      return acks;
    }
  }

  /**
   * Writes the records and waits for each acknowledgement, so that a record the broker does not take fails the test
   * with the broker's reason within 40 s instead of a flush that waits out the producer's 2-minute delivery timeout
   * (once seen in CI: the test's own timeout hit while flushing, no reason given).
   */
  private static void produce(List<ProducerRecord<String, String>> records) throws Exception {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 40_000,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      records.forEach(r -> sent.add(producer.send(r)));
      for (java.util.concurrent.Future<?> f : sent) {
        f.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }
}
