package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.DeadLetterReplay;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad input in the stream, for each job: its seeded traffic with malformed records interleaved at
 * {@link BadInput#MALFORMED_SHARE} of the records, in the traffic's partitions, of every kind of
 * {@link MalformedValues} (bad magic, version, flags, truncated, impossible count or length, random bytes, empty and
 * null values; invalid JSON, missing, null or mistyped key, timestamp and scope fields), read by the bounded job
 * with restarts off, so a single failure fails the run. Sizes of {@link Scale}: 300k packets or 150k events per job in the default build
 * (about 45 s for the class on 2 cores), 5M with {@code -Pit-full}.
 */
class BadInputIT {

  /** Keeps the metrics of finished jobs: the decoders' counters are read after the bounded run ends. */
  static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK =
      ItCluster.extension(METRICS.addToConfiguration(new Configuration()));

  @TempDir static Path tmp;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The malformed records land in the dead-letter topic, one {@code dead_letter} each, with their topic, partition,
   * offset and Kafka timestamp as the producer's acknowledgement gave them, a reason naming the defect (and equal to
   * what the format's decoder says here), the error offset the format fixes for the defect, the value's length and
   * its first 4096 bytes; nothing else is in that topic (no well-formed record, no rejected or late packet). Every
   * well-formed record is counted: heavy hitters report, per observation point and window, exactly the packets the
   * well-formed batches hold there (decoded here); the flow records add up to their packets and bytes per
   * observation point; dedup writes one unique event or probable duplicate per well-formed event (the multisets of
   * key and timestamp are equal) and each unique key once. The job finishes without a restore from a checkpoint
   * (restarts are off: a failure would fail it), its {@code numRestarts} is 0, and the decoder's
   * {@code malformedRecords} and {@code recordsDecoded} and the splitter's {@code deadLetters} counters equal the
   * numbers written. It fails if a malformed record fails the job, is lost, misplaced or mis-described, if a
   * well-formed record is dead-lettered, lost or counted twice, or if the counters disagree with the topics.
   */
  @ParameterizedTest
  @EnumSource(Workload.class)
  @Timeout(900)
  void malformedRecordsAreDeadLetteredAndEveryWellFormedOneIsCounted(Workload w,
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Workload.assumeSelected(w);
    long units = w.units(Scale.current());
    String prefix = "bad-input-" + w.name().toLowerCase(Locale.ROOT).replace('_', '-');
    JobTopics topics = ItTopics.create(KAFKA.broker(), prefix);
    long begin = System.nanoTime();
    BadInput in;
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
      in = BadInput.write(w, units, ReferenceRuns.SEED, writer, topics.input());
    }
    System.out.printf(Locale.ROOT, "[BadInputIT] %s: %d %s in %d well-formed records, %d malformed records (%.2f%%) "
        + "of %d kinds: %s, written in %.1f s%n", w, in.wellFormedUnits, w == Workload.DEDUP ? "events" : "packets",
        in.wellFormedRecords, in.malformed.size(), 100.0 * in.malformed.size() / (in.malformed.size()
        + in.wellFormedRecords), kinds(in).size(), kinds(in), (System.nanoTime() - begin) / 1e9);
    int defects = w == Workload.DEDUP ? MalformedValues.EventDefect.values().length
        : MalformedValues.BatchDefect.values().length;
    assertThat(kinds(in)).as("every kind of malformed record was written").hasSize(defects);

    long runBegin = System.nanoTime();
    JobStatus status;
    long restored;
    try (JobRun run = JobRun.of(cluster, w.job(true), topics).parallelism(2).restarts(false)
        .checkpointDir(Files.createDirectories(tmp.resolve(prefix))).start()) {
      run.awaitFinished(Duration.ofMinutes(10));
      status = run.status();
      restored = run.restoredCheckpoints();
      System.out.printf(Locale.ROOT, "[BadInputIT] %s: bounded run with restarts off ended %s after %.1f s, "
          + "%d checkpoints completed, %d restored%n", w, status, (System.nanoTime() - runBegin) / 1e9,
          run.completedCheckpoints(), restored);
      checkMetrics(w, in, run);
    }
    assertThat(status).as("final status of the bounded run").isEqualTo(JobStatus.FINISHED);
    assertThat(restored).as("restores from a checkpoint").isZero();

    checkDeadLetters(w, in, topics);
    switch (w) {
      case HEAVY_HITTERS -> checkHeavyHitters(in, topics);
      case FLOW_METER -> checkFlows(in, topics);
      case DEDUP -> checkDedup(in, topics);
      default -> throw new AssertionError(w);
    }
    System.out.printf(Locale.ROOT, "[BadInputIT] %s: checked in %.1f s in all%n", w, (System.nanoTime() - begin) / 1e9);
  }

  private static Map<String, Integer> kinds(BadInput in) {
    Map<String, Integer> kinds = new TreeMap<>();
    in.malformed.forEach(m -> kinds.merge(m.defect().name(), 1, Integer::sum));
    return kinds;
  }

  /** One dead letter per malformed record, as described; nothing else in the dead-letter topic. */
  private static void checkDeadLetters(Workload w, BadInput in, JobTopics topics) throws Exception {
    Map<String, BadInput.Malformed> expected = new HashMap<>();
    in.malformed.forEach(m -> expected.put(m.partition() + "@" + m.offset(), m));
    Map<String, JsonNode> actual = new HashMap<>();
    forEachCommitted(topics.deadLetter(), value -> {
      JsonNode d = json(value);
      assertThat(d.path("type").asText()).as("type of a record of the dead-letter topic: %s", d)
          .isEqualTo("dead_letter");
      String at = d.path("partition").asInt() + "@" + d.path("offset").asLong();
      assertThat(actual.put(at, d)).as("second dead letter for %s: %s", at, d).isNull();
    });
    assertThat(actual.keySet()).as("partition@offset of the dead letters (those of the malformed records)")
        .containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (BadInput.Malformed m : in.malformed) {
      JsonNode d = actual.get(m.partition() + "@" + m.offset());
      DeadLetter e = m.expected();
      String what = m.defect() + " at " + m.partition() + "@" + m.offset() + ": " + d;
      assertThat(d.path("topic").asText()).as(what).isEqualTo(topics.input());
      assertThat(d.path("timestamp").asLong()).as("Kafka timestamp of " + what).isEqualTo(m.timestamp());
      assertThat(d.path("reason").asText()).as("reason of " + what).isEqualTo(e.reason)
          .containsPattern(m.defect().reason());
      assertThat(d.path("error_offset").asLong()).as("error offset of " + what).isEqualTo(e.errorOffset);
      int length = m.value() == null ? -1 : m.value().length;
      assertThat(d.path("value_length").asInt()).as("value length of " + what).isEqualTo(length);
      assertThat(d.path("value_truncated").asBoolean()).as(what)
          .isEqualTo(length > KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES);
      byte[] kept = m.value() == null ? new byte[0]
          : Arrays.copyOf(m.value(), Math.min(length, KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES));
      assertThat(Base64.getDecoder().decode(d.path("value_base64").asText())).as("kept bytes of " + what)
          .isEqualTo(kept);
      checkKeyAndHeaders(m, d, what);
    }
    System.out.printf(Locale.ROOT, "[BadInputIT] %s: %d dead letters, one per malformed record, as written; "
        + "truncated values: %d%n", w, actual.size(),
        in.malformed.stream().filter(m -> m.value() != null && m.value().length > 4096).count());
    Map<String, String> reasons = new TreeMap<>();
    in.malformed.forEach(m -> reasons.putIfAbsent(m.defect().name(), m.expected().reason));
    reasons.forEach((kind, reason) -> System.out.printf(Locale.ROOT, "[BadInputIT] %s:   %s -> \"%s\"%n", w, kind,
        reason.length() > 110 ? reason.substring(0, 110) + "..." : reason));
  }

  /**
   * The dead letter's key and headers are the record's, the headers cut to the first
   * {@link KafkaDecoding#MAX_DEAD_LETTER_HEADERS}; one that kept the whole record replays as it was written.
   */
  private static void checkKeyAndHeaders(BadInput.Malformed m, JsonNode d, String what) throws Exception {
    int keyLength = m.key() == null ? -1 : m.key().length;
    assertThat(d.path("key_length").asInt()).as("key length of " + what).isEqualTo(keyLength);
    assertThat(d.path("key_truncated").asBoolean()).as("key truncated, " + what)
        .isEqualTo(keyLength > KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES);
    if (m.key() != null && keyLength <= KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES) {
      assertThat(Base64.getDecoder().decode(d.path("key_base64").asText())).as("key of " + what).isEqualTo(m.key());
    }
    int kept = Math.min(m.headers().size(), KafkaDecoding.MAX_DEAD_LETTER_HEADERS);
    assertThat(d.path("header_count").asInt()).as("header count of " + what).isEqualTo(m.headers().size());
    assertThat(d.path("headers_truncated").asBoolean()).as("headers truncated, " + what)
        .isEqualTo(kept < m.headers().size());
    assertThat(d.path("headers").size()).as("headers kept of " + what).isEqualTo(kept);
    for (int i = 0; i < kept; i++) {
      Header h = m.headers().get(i);
      JsonNode j = d.path("headers").get(i);
      assertThat(j.path("key").asText()).as("header %d of %s", i, what).isEqualTo(h.key());
      assertThat(j.path("value_base64").isNull() ? null : Base64.getDecoder().decode(j.path("value_base64").asText()))
          .as("value of header %d of %s", i, what).isEqualTo(h.value());
    }
    if (!d.path("value_truncated").asBoolean() && !d.path("key_truncated").asBoolean() && kept == m.headers().size()) {
      ProducerRecord<byte[], byte[]> replay = DeadLetterReplay.record(JSON.writeValueAsBytes(d));
      assertThat(replay.partition()).as("replayed partition, " + what).isEqualTo(m.partition());
      assertThat(replay.timestamp()).as("replayed timestamp, " + what).isEqualTo(m.timestamp());
      assertThat(replay.key()).as("replayed key, " + what).isEqualTo(m.key());
      assertThat(replay.value()).as("replayed value, " + what).isEqualTo(m.value());
      assertThat(replay.headers().toArray()).as("replayed headers, " + what)
          .containsExactly(m.headers().toArray(new Header[0]));
    }
  }

  /** Per observation point and window, total_weight = the well-formed packets there; their sum = all of them. */
  private static void checkHeavyHitters(BadInput in, JobTopics topics) {
    Map<String, Long> reported = new TreeMap<>();
    long[] alerts = new long[1];
    forEachCommitted(topics.output(), value -> {
      JsonNode r = json(value);
      if (r.path("type").asText().equals("heavy_hitter_alert")) {
        alerts[0]++;
        return;
      }
      assertThat(r.path("type").asText()).isEqualTo("heavy_hitter_report");
      assertThat(r.path("window_end").asLong() - r.path("window_start").asLong()).isEqualTo(BadInput.WINDOW_MS);
      String key = BadInput.PacketTruth.windowKey(r.path("scope").asLong(), r.path("window_start").asLong());
      assertThat(reported.put(key, r.path("total_weight").asLong())).as("second report of " + key).isNull();
    });
    long sum = reported.values().stream().mapToLong(Long::longValue).sum();
    System.out.printf(Locale.ROOT, "[BadInputIT] HEAVY_HITTERS: %d reports (and %d alerts) weighing %d packets in "
        + "all; well-formed packets: %d%n", reported.size(), alerts[0], sum, in.packets.packets);
    assertThat(reported).as("total_weight per observation point@window").isEqualTo(in.packets.perWindow);
    assertThat(sum).as("packets over all reports").isEqualTo(in.packets.packets).isEqualTo(in.wellFormedUnits);
  }

  /** Packets and bytes of the flow records per observation point = those of the well-formed batches. */
  private static void checkFlows(BadInput in, JobTopics topics) {
    Map<Integer, long[]> metered = new TreeMap<>();
    long[] flows = new long[1];
    forEachCommitted(topics.output(), value -> {
      JsonNode f = json(value);
      assertThat(f.path("type").asText()).isEqualTo("flow");
      long[] sums = metered.computeIfAbsent(f.path("scope").asInt(), k -> new long[2]);
      sums[0] += f.path("packets").asLong();
      sums[1] += f.path("bytes").asLong();
      flows[0]++;
    });
    long packets = metered.values().stream().mapToLong(s -> s[0]).sum();
    long bytes = metered.values().stream().mapToLong(s -> s[1]).sum();
    System.out.printf(Locale.ROOT, "[BadInputIT] FLOW_METER: %d flow records of %d packets, %d bytes; well-formed: "
        + "%d packets, %d bytes%n", flows[0], packets, bytes, in.packets.packets, in.packets.bytes);
    assertThat(packets).as("packets over all flow records").isEqualTo(in.packets.packets)
        .isEqualTo(in.wellFormedUnits);
    assertThat(bytes).as("bytes over all flow records").isEqualTo(in.packets.bytes);
    assertThat(toLists(metered)).as("{packets, bytes} per observation point").isEqualTo(toLists(in.packets.perPoint));
  }

  private static Map<Integer, List<Long>> toLists(Map<Integer, long[]> sums) {
    Map<Integer, List<Long>> out = new TreeMap<>();
    sums.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
    return out;
  }

  /**
   * One unique event or probable duplicate per well-formed event, each unique key once. Events are compared as
   * 64-bit hashes of (key, timestamp), sorted: equal multisets give equal arrays; a false pass needs a lost event and
   * an extra, different one with the same hash (at most (2n)²/2⁶⁵ for n events: below 10⁻⁵ at 5M). Likewise two
   * unique keys with one hash would fail the test wrongly, with the same small probability.
   */
  private static void checkDedup(BadInput in, JobTopics topics) {
    BadInput.EventTruth out = new BadInput.EventTruth();
    BadInput.EventTruth uniques = new BadInput.EventTruth();
    long[] duplicates = new long[1];
    forEachCommitted(topics.output(), value -> {
      JsonNode e = json(value);
      String type = e.path("type").asText();
      assertThat(type).isIn("unique_event", "probable_duplicate");
      out.add(e.path("key").asText(), e.path("timestamp").asLong());
      if (type.equals("unique_event")) {
        uniques.add(e.path("key").asText(), e.path("timestamp").asLong());
      } else {
        duplicates[0]++;
      }
    });
    long[] inputKeys = Arrays.copyOf(in.events.keys, in.events.n);
    long distinct = Arrays.stream(inputKeys).distinct().count();
    System.out.printf(Locale.ROOT, "[BadInputIT] DEDUP: %d unique events + %d probable duplicates = %d; well-formed "
        + "events: %d with %d distinct keys%n", uniques.n, duplicates[0], out.n, in.events.n, distinct);
    assertThat(out.n).as("unique events + probable duplicates").isEqualTo(in.events.n)
        .isEqualTo(in.wellFormedUnits);
    long[] expected = Arrays.copyOf(in.events.keyAndTime, in.events.n);
    long[] actual = Arrays.copyOf(out.keyAndTime, out.n);
    Arrays.sort(expected);
    Arrays.sort(actual);
    assertThat(Arrays.equals(actual, expected)).as("the output events are the well-formed events (key, timestamp)")
        .isTrue();
    long[] uniqueKeys = Arrays.copyOf(uniques.keys, uniques.n);
    assertThat(Arrays.stream(uniqueKeys).distinct().count()).as("distinct keys among the unique events")
        .isEqualTo(uniques.n);
    // and each key's first occurrence passes unless flagged falsely, with probability at most fpp = 0.001 each
    // (the job's target): at most the binomial mean + 6 standard deviations + 1 of the distinct keys are missing
    double falseFlags = 0.001 * distinct;
    assertThat((double) uniques.n).as("unique events, against the %d distinct keys", distinct)
        .isGreaterThanOrEqualTo(distinct - (falseFlags + 6 * Math.sqrt(falseFlags) + 1));
  }

  /**
   * The decoder's counters (source, {@code deserializer} group: the operators have {@code malformedRecords} counters
   * of their own, for elements they reject, that must stay out of the sum) and the splitter's, summed over subtasks,
   * and the job's {@code numRestarts}, from the metric reporter of the cluster.
   */
  private static void checkMetrics(Workload w, BadInput in, JobRun run) {
    Map<String, Metric> metrics = METRICS.getMetricsByIdentifiers(run.id());
    Map<String, Long> sums = new TreeMap<>();
    metrics.forEach((id, metric) -> {
      for (String name : List.of("malformedRecords", "recordsDecoded", "deadLetters", "numRestarts")) {
        if (id.endsWith("." + name)) {
          long v = metric instanceof Counter c ? c.getCount()
              : ((Number) ((Gauge<?>) metric).getValue()).longValue();
          System.out.printf(Locale.ROOT, "[BadInputIT] %s metric %s = %d%n", w, id, v);
          if (!name.equals("malformedRecords") || id.contains(".deserializer.")) {
            sums.merge(name, v, Long::sum);
          }
        }
      }
    });
    assertThat(sums).as("metrics of %s", w).containsEntry("malformedRecords", (long) in.malformed.size())
        .containsEntry("deadLetters", (long) in.malformed.size())
        .containsEntry("recordsDecoded", in.wellFormedRecords)
        .containsEntry("numRestarts", 0L);
  }

  private static JsonNode json(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + new String(value, java.nio.charset.StandardCharsets.UTF_8), e);
    }
  }

  /** Every committed record of {@code topic} (read_committed, to the end offsets now), without keeping them. */
  private static void forEachCommitted(String topic, Consumer<byte[]> each) {
    CommittedRecords.forEach(KAFKA.bootstrapServers(), topic, each);
  }
}
