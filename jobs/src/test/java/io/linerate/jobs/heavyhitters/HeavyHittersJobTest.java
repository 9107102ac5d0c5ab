package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.cluster.TestCluster;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.JobTopics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The heavy-hitters job end to end: encoded packet batches (Zipf flows with fixed seeds, injected heavy flows,
 * garbage records, one batch sent after its window) in a real Kafka topic → the job on a MiniCluster (parallelism
 * 2, checkpointing on, exactly-once sinks, bounded source) → reports, alerts and dead letters read back with
 * {@code read_committed}, compared with the exact per-window counts computed here.
 *
 * <p>Why it can fail: a report with a wrong N, a missing window or observation point, an item above φ·N not
 * listed (recall below 1), a bound that excludes the true weight, an error above N/m (Space-Saving, Metwally et al.
 * 2005), a missed alert, or garbage that is not dead-lettered with its position and reason.
 */
class HeavyHittersJobTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @RegisterExtension
  static final MiniClusterExtension FLINK = TestCluster.twoSlots();

  static final long WINDOW_MS = 10_000;
  /** Aligned to the window: 2025-11-21T10:00:00Z. */
  static final long T0 = 1_763_719_200_000L;
  static final int WINDOWS = 3;
  static final int PACKETS_PER_WINDOW = 2_000;
  static final int BATCH = 50;
  static final int FLOWS = 2_000;
  static final double SKEW = 1.1;
  static final double PHI = 0.02;
  static final int K = 5;

  /** Per observation point and window start: exact weight per item text. */
  final Map<Integer, Map<Long, Map<String, Long>>> truth = new HashMap<>();
  final Set<String> garbagePositions = new HashSet<>();
  PacketItem item;
  HeavyHittersJob.Weight weight;
  int lateSent;

  /**
   * Bounded: the job reads the topic to its end and finishes; every window is reported at the end of the input.
   * The late batch (window 0, sent after windows 1 and 2 of its partition) is late exactly when a periodic
   * watermark past window 0 was emitted before it was read — all of the batch or none, both checked.
   */
  @Test
  @Timeout(150)
  void boundedRunOfFlowsByBytes() throws Exception {
    item = PacketItem.FIVE_TUPLE;
    weight = HeavyHittersJob.Weight.BYTES;
    JobTopics topics = topics("b");
    KafkaProducer<Integer, byte[]> producer = producer();
    try (producer) {
      produceWindows(producer, topics.input());
      produceLateBatch(producer, topics.input());
    }
    HeavyHittersJob job = job(topics, true, 150_000);
    StreamExecutionEnvironment env = environment();
    job.define(env, topics);
    env.executeAsync(job.name()).getJobExecutionResult().get(120, TimeUnit.SECONDS);
    check(job, topics, false, 150_000);
  }

  /**
   * Unbounded, cancelled once the expected output is committed: the late batch is sent only after the reports of
   * window 0 were committed (so the watermark had passed it: late for certain), followed by one batch per
   * partition far ahead (not counted in the truth) that moves the watermark past windows 1 and 2.
   */
  @Test
  @Timeout(150)
  void unboundedRunOfSourceAddressesByPacketsWithLatePackets() throws Exception {
    item = PacketItem.SRC_ADDRESS;
    weight = HeavyHittersJob.Weight.PACKETS;
    JobTopics topics = topics("u");
    HeavyHittersJob job = job(topics, false, 300);
    StreamExecutionEnvironment env = environment();
    job.define(env, topics);
    JobClient client = env.executeAsync(job.name());
    try (KafkaProducer<Integer, byte[]> producer = producer()) {
      produceWindows(producer, topics.input());
      awaitRecords(topics.output(), r -> r.stream().filter(v -> v.contains("\"window_start\":" + T0 + ",")).count() == 2);
      produceLateBatch(producer, topics.input());
      for (int op = 0; op < 2; op++) {
        PacketBatch ahead = new PacketBatch(op);
        ahead.addIpv4(T0 + 10 * WINDOW_MS, 0x0B000001, 0x0B000002, 1, 2, 6, 0, 100);
        send(producer, topics.input(), op, PacketBatchCodec.encode(ahead));
      }
    }
    awaitRecords(topics.output(), r -> r.size() >= 2 * WINDOWS);
    awaitRecords(topics.deadLetter(), r -> r.size() >= garbagePositions.size() + lateSent);
    // every sink has committed what it wrote (the alerts, not awaited above, included): its records are all below
    // the last stable offset (a fixed wait of 1 s assumed the next checkpoints would commit them by then)
    for (String topic : List.of(topics.output(), topics.deadLetter(), job.alertsTopic(topics))) {
      TopicReader.awaitNoOpenTransaction(KAFKA.bootstrapServers(), topic);
    }
    client.cancel().get(60, TimeUnit.SECONDS);
    check(job, topics, true, 300);
  }

  /**
   * The {@code heavy-hitters} command itself, as {@code flink run} executes it: options parsed, the job built and
   * run through {@code StreamExecutionEnvironment.getExecutionEnvironment(..)} (here the test cluster's context
   * environment, as the cluster's under {@code flink run}), {@code --bounded} so it returns.
   */
  @Test
  @Timeout(150)
  void theCommandRunsTheSameJob() throws Exception {
    item = PacketItem.FIVE_TUPLE;
    weight = HeavyHittersJob.Weight.PACKETS;
    JobTopics topics = topics("c");
    try (KafkaProducer<Integer, byte[]> producer = producer()) {
      produceWindows(producer, topics.input());
    }
    String[] args = {"--bootstrap-servers", topics.bootstrapServers(), "--input-topic", topics.input(),
        "--output-topic", topics.output(), "--dead-letter-topic", topics.deadLetter(), "--alerts-topic", "c-alerts",
        "--window", "10s", "--top-k", "" + K, "--phi", "" + PHI, "--alert-weight", "300", "--out-of-orderness", "1s",
        "--parallelism", "2", "--checkpoint-interval", "200ms", "--bounded", "--job-name", "hh_c"};
    String[] all = new String[args.length + 1];
    all[0] = "heavy-hitters";
    System.arraycopy(args, 0, all, 1, args.length);
    assertThat(io.linerate.jobs.cli.Main.commandLine().execute(all)).isZero();
    HeavyHittersCommand parsed = new HeavyHittersCommand();
    new picocli.CommandLine(parsed).parseArgs(args);
    check(parsed.job(), topics, false, 300);
    // --job-name reached the sinks: the broker knows their transactional ids under the named prefix only
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.<String, Object>of("bootstrap.servers", topics.bootstrapServers()))) {
      List<String> ids = admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
          .map(org.apache.kafka.clients.admin.TransactionListing::transactionalId).toList();
      assertThat(ids).as("transactional ids").anyMatch(id -> id.startsWith("linerate-heavy-hitters.hh_c."
          + topics.output())).noneMatch(id -> id.startsWith("linerate-heavy-hitters-" + topics.output()));
    }
  }

  /**
   * A partition that from some point on receives nothing but undecodable records must not stall the watermark:
   * unbounded, idleness 2 s. Partition 1 gets one batch at the start of window 0 (its watermark is then just below
   * it), then a garbage record every 50 ms for the whole run; once the job has dead-lettered some of it, partition 0
   * gets the packets of window 0 and a batch far past it. Dead letters are no input activity, so partition 1 goes
   * idle (2 s after its batch) and window 0 is reported while the garbage still flows. Before the fix every garbage
   * record counted as activity: partition 1 never went idle, its watermark stayed below window 0's end and the
   * window never closed. (A fixed 3 s of garbage before partition 0's packets added nothing: the garbage flows until
   * the report comes or the 30 s wait runs out, and partition 1 can only go idle while it flows.)
   */
  @Test
  @Timeout(150)
  void aPartitionOfGarbageOnlyDoesNotStallTheReports() throws Exception {
    JobTopics topics = topics("g");
    HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofMillis(WINDOW_MS)).topK(K).phi(PHI)
        .outOfOrderness(Duration.ofSeconds(1)).idleness(Duration.ofSeconds(2)).alertsTopic("g-alerts")
        .transactionTimeout(Duration.ofMinutes(1)).build();
    StreamExecutionEnvironment env = environment();
    job.define(env, topics);
    JobClient client = env.executeAsync(job.name());
    boolean reported = false;
    java.util.concurrent.ScheduledExecutorService garbage = java.util.concurrent.Executors
        .newSingleThreadScheduledExecutor();
    try (KafkaProducer<Integer, byte[]> producer = producer()) {
      send(producer, topics.input(), 1, PacketBatchCodec.encode(flowBatch(1, T0, 1)));
      garbage.scheduleAtFixedRate(() -> producer.send(new ProducerRecord<>(topics.input(), 1, 1,
          "not a batch".getBytes(StandardCharsets.UTF_8))), 0, 50, TimeUnit.MILLISECONDS);
      awaitRecords(topics.deadLetter(), r -> !r.isEmpty());
      send(producer, topics.input(), 0, PacketBatchCodec.encode(flowBatch(0, T0, BATCH)));
      send(producer, topics.input(), 0, PacketBatchCodec.encode(flowBatch(0, T0 + 3 * WINDOW_MS, 1)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!reported && System.nanoTime() < deadline) {
        Thread.sleep(500);
        reported = TopicReader.readAll(KAFKA.bootstrapServers(), topics.output(), true).stream()
            .anyMatch(v -> v.contains("\"window_start\":" + T0 + ","));
      }
      garbage.shutdown();
      assertThat(garbage.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      garbage.shutdownNow();
      client.cancel().get(60, TimeUnit.SECONDS);
    }
    assertThat(reported).as("window 0 reported while partition 1 receives only garbage").isTrue();
  }

  /** {@code n} packets of one flow at observation point {@code op}, 100 ms apart from {@code start}. */
  private static PacketBatch flowBatch(int op, long start, int n) {
    PacketBatch batch = new PacketBatch(op);
    for (int i = 0; i < n; i++) {
      batch.addIpv4(start + i * 100L, 0x0A000001, 0xC0A80001, 1024, 443, 6, 0, 100);
    }
    return batch;
  }

  /**
   * When the event times fed close a window, a drain that saw no report within its timeout did not complete (the
   * demo then exits 1): an empty output topic on a real broker, a minute of event time fed.
   */
  @Test
  void aDueReportThatNeverCameIsAFailedDrain() throws Exception {
    JobTopics topics = topics("due");
    HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofSeconds(1))
        .outOfOrderness(Duration.ofMillis(200)).build();
    io.linerate.jobs.local.FeedContext feed = new io.linerate.jobs.local.FeedContext(KAFKA.bootstrapServers(),
        topics.input());
    feed.sent(100_000);
    feed.eventTimes(1_700_000_003_000L, 1_700_000_063_000L);
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    boolean drained = job.drain(topics, feed, Duration.ofSeconds(2),
        new java.io.PrintStream(text, true, StandardCharsets.UTF_8));
    assertThat(drained).isFalse();
    assertThat(text.toString(StandardCharsets.UTF_8)).contains("no report within 2 s")
        .contains("the output is incomplete");
  }

  private static JobTopics topics(String prefix) throws InterruptedException {
    JobTopics topics = new JobTopics(KAFKA.bootstrapServers(), prefix + "-packets", prefix + "-reports",
        prefix + "-dead-letters");
    String[] names = {topics.input(), topics.output(), topics.deadLetter(), prefix + "-alerts"};
    try {
      KAFKA.broker().createTopics(2, names);
    } catch (IllegalStateException e) {
      // EmbeddedKafka describes the topics right after creating them, and a describe can still meet
      // UnknownTopicOrPartition while the new topics' metadata propagates: the topics were created, wait for them
      if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
        throw e;
      }
      awaitTopics(names);
    }
    return topics;
  }

  private static void awaitTopics(String... names) throws InterruptedException {
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.<String, Object>of("bootstrap.servers", KAFKA.bootstrapServers()))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try {
          admin.describeTopics(List.of(names)).allTopicNames().get(10, TimeUnit.SECONDS);
          return;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException retry) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError("topics " + List.of(names) + " not visible", retry);
          }
          Thread.sleep(50);
        }
      }
    }
  }

  private HeavyHittersJob job(JobTopics topics, boolean bounded, long alertAt) {
    return HeavyHittersJob.builder()
        .window(Duration.ofMillis(WINDOW_MS))
        .topK(K).phi(PHI)
        .item(item)
        .weight(weight)
        .alertAtWeight(alertAt)
        .outOfOrderness(Duration.ofSeconds(1))
        .alertsTopic(topics.input().replace("-packets", "-alerts"))
        .bounded(bounded)
        .transactionTimeout(Duration.ofMinutes(1))
        .build();
  }

  private static StreamExecutionEnvironment environment() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(200);
    return env;
  }

  private static void awaitRecords(String topic, java.util.function.Predicate<List<String>> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    List<String> values;
    while (!done.test(values = TopicReader.readAll(KAFKA.bootstrapServers(), topic, true))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("topic " + topic + " holds only " + values);
      }
      Thread.sleep(200);
    }
  }

  private void check(HeavyHittersJob job, JobTopics topics, boolean lateForCertain, long alertAt) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> reports = read(json, topics.output());
    List<JsonNode> alertNodes = read(json, job.alertsTopic(topics));
    List<JsonNode> dead = read(json, topics.deadLetter());
    int m = job.detector().capacity();
    System.out.printf(Locale.ROOT,
        "heavy-hitters job (%s by %s): %d reports, %d alerts, %d dead-letter records; m = %d%n",
        item, weight, reports.size(), alertNodes.size(), dead.size(), m);

    List<JsonNode> late = dead.stream().filter(n -> n.get("type").asText().equals(OutputJson.REJECTED)).toList();
    assertThat(late).allMatch(n -> n.get("reason").asText().equals(HeavyHittersJob.LATE_REASON));
    if (lateForCertain) {
      assertThat(late).hasSize(lateSent);
    } else {
      assertThat(late.size()).as("late packets: all of the late batch or none").isIn(0, lateSent);
    }
    System.out.printf(Locale.ROOT, "late batch: %d of %d packets dead-lettered as late%n", late.size(), lateSent);
    if (!late.isEmpty()) {
      // dead-lettered as late: counted in no window, so not in the truth either
      Map<String, Long> w0 = truth.get(0).get(T0);
      for (JsonNode n : late) {
        JsonNode p = n.get("record");
        assertThat(p.get("timestamp").asLong()).isBetween(T0, T0 + WINDOW_MS - 1);
        String key = item == PacketItem.SRC_ADDRESS ? p.get("src_addr").asText()
            : p.get("src_addr").asText() + " " + p.get("dst_addr").asText() + " " + p.get("src_port").asInt()
                + " " + p.get("dst_port").asInt() + " " + p.get("protocol").asInt();
        w0.merge(key, weight == HeavyHittersJob.Weight.BYTES ? -p.get("length").asLong() : -1L, Long::sum);
      }
      w0.values().removeIf(v -> v == 0);
    }

    // garbage: one dead letter per garbage record, at its partition and offset, with a reason
    List<JsonNode> letters = dead.stream().filter(n -> n.get("type").asText().equals(OutputJson.DEAD_LETTER)).toList();
    assertThat(letters).extracting(n -> n.get("partition").asInt() + "@" + n.get("offset").asLong())
        .containsExactlyInAnyOrderElementsOf(garbagePositions);
    assertThat(letters).extracting(n -> n.get("reason").asText()).allMatch(r -> !r.isBlank())
        .anyMatch(r -> r.startsWith("bad magic")).anyMatch(r -> r.startsWith("unknown version 7"))
        .anyMatch(r -> r.contains("no value"));
    assertThat(dead).hasSize(letters.size() + late.size());

    // one report per observation point and window with data, N exact, recall 1.0 above φN, bounds hold
    Map<String, JsonNode> byWindow = new HashMap<>();
    long maxItems = ReportSize.maxItems(job.detector());
    long maxBytes = ReportSize.maxBytes(maxItems, item, job.detector().phi());
    for (JsonNode r : reports) {
      assertThat(r.get("type").asText()).isEqualTo(OutputJson.HEAVY_HITTER_REPORT);
      // the bound the job was built against (ReportSize), on the operator's real reports
      assertThat((long) r.get("items").size()).as("items of " + r).isLessThanOrEqualTo(maxItems);
      assertThat((long) json.writeValueAsBytes(r).length).as("JSON bytes of " + r).isLessThanOrEqualTo(maxBytes);
      assertThat(byWindow.put(r.get("scope").asInt() + "@" + r.get("window_start").asLong(), r)).as("duplicate").isNull();
    }
    Set<String> expectedWindows = new HashSet<>();
    int heavyChecked = 0;
    for (var op : truth.entrySet()) {
      for (var w : op.getValue().entrySet()) {
        String key = op.getKey() + "@" + w.getKey();
        expectedWindows.add(key);
        JsonNode r = byWindow.get(key);
        assertThat(r).as("report of " + key).isNotNull();
        long n = w.getValue().values().stream().mapToLong(Long::longValue).sum();
        assertThat(r.get("total_weight").asLong()).as("N of " + key).isEqualTo(n);
        assertThat(r.get("window_end").asLong()).isEqualTo(w.getKey() + WINDOW_MS);
        assertThat(r.get("complete").asBoolean()).isTrue();
        Map<String, JsonNode> listed = new HashMap<>();
        r.get("items").forEach(i -> listed.put(i.get("item").asText(), i));
        assertThat(listed.size()).isGreaterThanOrEqualTo(K);
        for (var item : w.getValue().entrySet()) {
          if (item.getValue() >= PHI * n) {
            heavyChecked++;
            assertThat(listed).as("recall: " + item.getKey() + " weighs " + item.getValue() + " >= phi*N in " + key)
                .containsKey(item.getKey());
            assertThat(listed.get(item.getKey()).get("heavy").asBoolean()).isTrue();
          }
        }
        for (JsonNode i : listed.values()) {
          long trueWeight = w.getValue().getOrDefault(i.get("item").asText(), 0L);
          assertThat(trueWeight).as("bounds of " + i + " in " + key)
              .isBetween(i.get("lower_bound").asLong(), i.get("upper_bound").asLong());
          // Space-Saving: upper − lower ≤ c_min ≤ N/m
          assertThat(i.get("upper_bound").asLong() - i.get("lower_bound").asLong()).isLessThanOrEqualTo(n / m);
        }
        assertThat(r.get("unmonitored_bound").asLong()).isLessThan((long) (PHI * n));
        // more distinct items than counters: the tracker evicted, so the bounds are tested, not trivially exact
        assertThat(w.getValue().size()).isGreaterThan(m);
        assertThat(r.get("unmonitored_bound").asLong()).isPositive();
      }
    }
    assertThat(byWindow.keySet()).containsExactlyInAnyOrderElementsOf(expectedWindows);
    assertThat(heavyChecked).as("heavy items checked").isGreaterThan(12);

    // alerts: each item whose true weight in a window reaches the threshold is alerted once in that window
    // (the estimate is an upper bound, so it crosses no later than the true weight does); an alerted item's true
    // weight is at least threshold − N/m
    Map<String, JsonNode> alerted = new HashMap<>();
    for (JsonNode a : alertNodes) {
      String key = a.get("scope").asInt() + "@" + a.get("window_start").asLong() + " " + a.get("item").asText();
      assertThat(alerted.put(key, a)).as("one alert per item and window: " + key).isNull();
    }
    int mustAlert = 0;
    for (var op : truth.entrySet()) {
      for (var w : op.getValue().entrySet()) {
        long n = w.getValue().values().stream().mapToLong(Long::longValue).sum();
        for (var item : w.getValue().entrySet()) {
          String key = op.getKey() + "@" + w.getKey() + " " + item.getKey();
          if (item.getValue() >= alertAt) {
            mustAlert++;
            assertThat(alerted).as("alert for " + key).containsKey(key);
          }
          if (alerted.containsKey(key)) {
            assertThat(item.getValue()).isGreaterThanOrEqualTo(alertAt - n / m);
          }
        }
      }
    }
    assertThat(mustAlert).as("injected heavy flows cross the alert threshold").isGreaterThanOrEqualTo(2);
    for (JsonNode a : alertNodes) {
      assertThat(truth.get(a.get("scope").asInt())).containsKey(a.get("window_start").asLong());
    }

    // the demo's view renders the last window of each observation point
    TopKView view = TopKView.offline().rows(3).terminal(false).build();
    reports.forEach(r -> view.accept(r.toString()));
    assertThat(view.reports()).containsOnlyKeys("0", "1");
    assertThat(view.reports().get("0").windowStart()).isEqualTo(T0 + (WINDOWS - 1) * WINDOW_MS);
    System.out.print(view.render());
  }

  private static List<JsonNode> read(ObjectMapper json, String topic) throws Exception {
    List<JsonNode> nodes = new ArrayList<>();
    for (String v : TopicReader.readAll(KAFKA.bootstrapServers(), topic, true)) {
      nodes.add(json.readTree(v));
    }
    return nodes;
  }

  private static KafkaProducer<Integer, byte[]> producer() {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, IntegerSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
  }

  /**
   * Two observation points, each in its own partition (0 and 1), {@value #WINDOWS} windows of
   * {@value #PACKETS_PER_WINDOW} packets in time order in batches of {@value #BATCH}, Zipf(1.1) over
   * {@value #FLOWS} flows per point (seeds 1, 2), an injected heavy flow (25 % of the packets of window 1 at point
   * 0, 20 % of window 2 at point 1), and garbage records (bad magic, unknown version, null value) every 25 batches.
   */
  private void produceWindows(KafkaProducer<Integer, byte[]> producer, String topic) throws Exception {
    // sent without waiting for each acknowledgement (the producer keeps a partition's order), then flushed: waiting
    // for each of the 250 records took 1.5-2 s per call
    List<Future<RecordMetadata>> garbage = new ArrayList<>();
    for (int op = 0; op < 2; op++) {
      SplittableRandom rnd = new SplittableRandom(op + 1);
      double[] cdf = zipfCdf(FLOWS, SKEW);
      PacketBatch batch = new PacketBatch(op, BATCH);
      int batches = 0;
      for (int w = 0; w < WINDOWS; w++) {
        long start = T0 + w * WINDOW_MS;
        for (int i = 0; i < PACKETS_PER_WINDOW; i++) {
          long t = start + (long) i * WINDOW_MS / PACKETS_PER_WINDOW;
          boolean heavy = (op == 0 && w == 1 && rnd.nextInt(100) < 25) || (op == 1 && w == 2 && rnd.nextInt(100) < 20);
          int flow = heavy ? 10_000 + op : sample(cdf, rnd);
          addPacket(batch, op, start, t, flow, rnd.nextInt(40, 1500));
          if (batch.size() == BATCH) {
            producer.send(new ProducerRecord<>(topic, op, op, PacketBatchCodec.encode(batch)));
            batch.clear(op);
            if (++batches % 25 == 0) {
              garbage.add(sendGarbage(producer, topic, op, batches / 25));
            }
          }
        }
      }
    }
    producer.flush();
    for (Future<RecordMetadata> f : garbage) {
      RecordMetadata md = f.get();
      garbagePositions.add(md.partition() + "@" + md.offset());
    }
  }

  /** A batch of window 0 at observation point 0, after its later windows. */
  private void produceLateBatch(KafkaProducer<Integer, byte[]> producer, String topic) throws Exception {
    SplittableRandom rnd = new SplittableRandom(99);
    double[] cdf = zipfCdf(FLOWS, SKEW);
    PacketBatch batch = new PacketBatch(0, BATCH);
    for (int i = 0; i < BATCH; i++) {
      addPacket(batch, 0, T0, T0 + 100 + i, sample(cdf, rnd), rnd.nextInt(40, 1500));
    }
    send(producer, topic, 0, PacketBatchCodec.encode(batch));
    lateSent = BATCH;
  }

  private void addPacket(PacketBatch batch, int op, long windowStart, long t, int flow, int length) {
    int src = 0x0A000000 | (op << 16) | flow;
    batch.addIpv4(t, src, 0xC0A80001, 1024 + flow % 50_000, 443, flow % 3 == 0 ? 17 : 6, 0, length);
    PacketRecord p = batch.get(batch.size() - 1);
    String key = item == PacketItem.SRC_ADDRESS ? p.srcAddress()
        : p.srcAddress() + " " + p.dstAddress() + " " + p.srcPort() + " " + p.dstPort() + " " + p.protocol();
    truth.computeIfAbsent(op, o -> new HashMap<>()).computeIfAbsent(windowStart, s -> new HashMap<>())
        .merge(key, weight == HeavyHittersJob.Weight.BYTES ? (long) length : 1L, Long::sum);
  }

  private static void send(KafkaProducer<Integer, byte[]> producer, String topic, int op, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, op, op, value)).get();
  }

  private static Future<RecordMetadata> sendGarbage(KafkaProducer<Integer, byte[]> producer, String topic, int op,
      int n) {
    byte[] value;
    switch (n % 3) {
      case 0:
        value = "not a batch".getBytes(StandardCharsets.UTF_8);
        break;
      case 1:
        PacketBatch b = new PacketBatch(op);
        b.addIpv4(T0, 1, 2, 3, 4, 6, 0, 100);
        value = PacketBatchCodec.encode(b);
        value[2] = 7; // unknown version
        break;
      default:
        value = null;
    }
    return producer.send(new ProducerRecord<>(topic, op, op, value));
  }

  static double[] zipfCdf(int n, double s) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      cdf[i] /= sum;
    }
    return cdf;
  }

  static int sample(double[] cdf, SplittableRandom rnd) {
    double u = rnd.nextDouble();
    int i = java.util.Arrays.binarySearch(cdf, u);
    return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
  }

  // ---------------------------------------------------------------- the demo's drain, no Flink

  /**
   * The demo's drain after {@code --duration} (cli.md: "the demo waits for the job's output of what was fed to be
   * committed (its next checkpoint), prints the last table"; exit code 0 only when "its output was complete"). The
   * event times fed close windows up to a last one; its report is emitted when the watermark passes its end and
   * committed at the job's next checkpoint. A drain that returns as soon as any report of an earlier window is
   * committed prints a stale table, and the demo then cancels the job, aborting the last window's report, and still
   * calls the output complete. Reports are written here by hand (no Flink): two windows committed, the last one in a
   * transaction still open when the drain starts, as the job's sink holds it until its next checkpoint.
   */
  private static final long DRAIN_T0 = 1_700_000_000_000L; // a multiple of 10 s
  private static final long DRAIN_WINDOW = 10_000;
  private static final long DRAIN_OOO = 2_000;

  private static String drainReport(long start) {
    return drainReport(0, start);
  }

  private static String drainReport(int scope, long start) {
    return "{\"type\":\"heavy_hitter_report\",\"scope\":" + scope + ",\"window_start\":" + start + ",\"window_end\":"
        + (start + DRAIN_WINDOW) + ",\"total_weight\":100,\"phi\":0.01,\"unmonitored_bound\":0,\"complete\":true,"
        + "\"items\":[{\"item\":\"w" + start + "\",\"estimate\":50,\"lower_bound\":50,\"upper_bound\":50,"
        + "\"heavy\":true}]}";
  }

  private static KafkaProducer<String, String> transactionalProducer(String id) {
    KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, id,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    p.initTransactions();
    return p;
  }

  /** Packets fed from T + 1 s to T + 33 s (T = DRAIN_T0): with 2 s out-of-orderness the windows ending T + 10/20/30 s close. */
  private static FeedContext drainFeed() {
    FeedContext feed = new FeedContext(KAFKA.bootstrapServers(), "packets");
    feed.sent(33_000);
    feed.eventTimes(DRAIN_T0 + 1_000, DRAIN_T0 + 33_000, DRAIN_T0 + 33_000);
    return feed;
  }

  private static HeavyHittersJob drainJob() {
    return HeavyHittersJob.builder().window(Duration.ofMillis(DRAIN_WINDOW))
        .outOfOrderness(Duration.ofMillis(DRAIN_OOO)).build();
  }

  /** The drain's topics, reports on {@code topic}. */
  private static JobTopics drainTopics(String topic) {
    KAFKA.broker().createTopic(topic, 1);
    return new JobTopics(KAFKA.bootstrapServers(), "packets", topic, "dead-letters");
  }

  /** The reports of the first {@code windows} windows of each of {@code scopes} observation points. */
  private static void sendReports(KafkaProducer<String, String> p, String topic, int scopes, int windows) {
    for (int scope = 0; scope < scopes; scope++) {
      for (int w = 0; w < windows; w++) {
        p.send(new ProducerRecord<>(topic, "" + scope, drainReport(scope, DRAIN_T0 + w * DRAIN_WINDOW)));
      }
    }
  }

  /** Drains for {@code timeout}; what it printed, and its verdict as "true"/"false" on the last line. */
  private static String drained(JobTopics topics, Duration timeout) throws InterruptedException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    boolean complete = drainJob().drain(topics, drainFeed(), timeout, new PrintStream(text, true, StandardCharsets.UTF_8));
    return text.toString(StandardCharsets.UTF_8) + complete;
  }

  @Test
  void theDrainWaitsForTheLastClosedWindowsReportAndPrintsIt() throws Exception {
    String topic = "reports-commit-late";
    JobTopics topics = drainTopics(topic);
    try (KafkaProducer<String, String> p = transactionalProducer("drain-test-1")) {
      p.beginTransaction();
      sendReports(p, topic, 1, 2);
      p.commitTransaction();
      p.beginTransaction(); // the last window's report: committed at the job's next checkpoint, 3 s from now
      p.send(new ProducerRecord<>(topic, "0", drainReport(DRAIN_T0 + 2 * DRAIN_WINDOW)));
      p.flush();
      CompletableFuture<String> drained = CompletableFuture.supplyAsync(() -> {
        try {
          return drained(topics, Duration.ofSeconds(20));
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      Thread.sleep(3_000);
      p.commitTransaction();
      String out = drained.get();
      assertThat(out).as(out).endsWith("true").contains("window " + Instant.ofEpochMilli(DRAIN_T0 + 2 * DRAIN_WINDOW)
          + " .. " + Instant.ofEpochMilli(DRAIN_T0 + 3 * DRAIN_WINDOW));
    }
  }

  @Test
  void aLastClosedWindowThatIsNeverCommittedMakesTheOutputIncomplete() throws Exception {
    String topic = "reports-never-committed";
    JobTopics topics = drainTopics(topic);
    try (KafkaProducer<String, String> p = transactionalProducer("drain-test-2")) {
      p.beginTransaction();
      sendReports(p, topic, 1, 2);
      p.commitTransaction();
      p.beginTransaction(); // the last window's report, aborted as the demo's cancel aborts it
      p.send(new ProducerRecord<>(topic, "0", drainReport(DRAIN_T0 + 2 * DRAIN_WINDOW)));
      p.flush();
      p.abortTransaction();
      String out = drained(topics, Duration.ofSeconds(3));
      assertThat(out).as(out).endsWith("false").contains("incomplete");
    }
  }

  /**
   * Two observation points: the last closed window's report is committed for one, aborted for the other (their
   * reports are written by different sink subtasks, which need not put them in the same checkpoint). The second
   * point's table is stale, as in the single-point case above: the output is incomplete.
   */
  @Test
  void aLastClosedWindowCommittedForOnlySomeObservationPointsMakesTheOutputIncomplete() throws Exception {
    String topic = "reports-partly-committed";
    JobTopics topics = drainTopics(topic);
    try (KafkaProducer<String, String> p = transactionalProducer("drain-test-3")) {
      p.beginTransaction();
      sendReports(p, topic, 2, 2);
      p.send(new ProducerRecord<>(topic, "0", drainReport(0, DRAIN_T0 + 2 * DRAIN_WINDOW)));
      p.commitTransaction();
      p.beginTransaction(); // point 1's last window, aborted as the demo's cancel aborts it
      p.send(new ProducerRecord<>(topic, "1", drainReport(1, DRAIN_T0 + 2 * DRAIN_WINDOW)));
      p.flush();
      p.abortTransaction();
      String out = drained(topics, Duration.ofSeconds(3));
      assertThat(out).as(out).endsWith("false").contains("incomplete");
    }
  }
}
