package io.linerate.jobs.heavyhitters;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.linerate.flink.heavyhitters.HeavyHitterAlert;
import io.linerate.flink.heavyhitters.HeavyHitterDetector;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.heavyhitters.ReportedItem;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.JsonSerialization;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.ObservationPointKey;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchTypeInfo;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.format.PacketRecordTypeInfo;
import io.linerate.jobs.format.SplitDecoded;
import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.ExactlyOnceSource;
import io.linerate.jobs.kafka.JsonTopics;
import io.linerate.jobs.kafka.KafkaInput;
import io.linerate.jobs.kafka.KafkaJobBuilder;
import io.linerate.jobs.kafka.KafkaJobOptions;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LiveView;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The {@code heavy-hitters} job: packet batches from a Kafka topic → per observation point and event-time window,
 * the top-k items and every item that may weigh ≥ φ·N, with estimate and deterministic bounds → JSON reports to a
 * Kafka topic, exactly once.
 *
 * <p>Pipeline: {@link KafkaInput}: an {@link ExactlyOnceSource} ({@code read_committed}, offsets in checkpoints) with
 * {@link KafkaDecoding#packetBatches()} (binary v1) → {@link SplitDecoded} (undecodable records become dead
 * letters) → watermarks from the batches' smallest packet timestamp, bounded out of orderness, per Kafka partition,
 * idle partitions ignored after {@link Builder#idleness} → {@link HeavyHitterDetector#applyToBatches} keyed by the
 * observation point, each packet with its own timestamp ({@link PacketRecord#TIMESTAMP}) → JSON through
 * {@link OutputJson}: reports ({@value OutputJson#HEAVY_HITTER_REPORT}) to the output topic, alerts
 * ({@value OutputJson#HEAVY_HITTER_ALERT}) to the alerts topic (the output topic unless set), dead letters
 * ({@value OutputJson#DEAD_LETTER}), malformed and late packets ({@value OutputJson#REJECTED}, reasons
 * {@code "late: ..."} for late ones) to the dead-letter topic — one {@link ExactlyOnceSink} per topic
 * ({@link JsonTopics}: Kafka record timestamps are the time of writing).
 *
 * <p>Guarantees (Space-Saving, m counters per sub-window; see docs/operators/heavy-hitters.md): N exact per
 * window; every listed item has {@code lowerBound ≤ true weight ≤ upperBound}, {@code upperBound − lowerBound ≤
 * N/m}; for tumbling windows no item of weight ≥ φ·N is missing (m > 1/φ is enforced); sliding windows state
 * {@code unmonitoredBound} and {@code complete} in each report. A report is final: packets of a window already
 * reported go to the dead-letter topic as late.
 *
 * <p>Every configuration error fails in {@link Builder#build()} (the detector is built there), naming the option.
 * Checkpointing must be on ({@link ExactlyOnceSink} checks it when the job is defined).
 */
public final class HeavyHittersJob implements JobLauncher {

  /**
   * The job's kind and default name: Flink's job name, the consumer group {@code linerate-<NAME>} and the sinks'
   * transactional id prefixes; {@link Builder#jobName} ({@code --job-name}) names an instance
   * ({@link KafkaJobOptions#kafkaName}).
   */
  public static final String NAME = "heavy-hitters";
  /** Out-of-orderness allowed unless set. */
  public static final Duration DEFAULT_OUT_OF_ORDERNESS = Duration.ofSeconds(5);
  /** Idle time after which a partition no longer holds the watermark back, unless set. */
  public static final Duration DEFAULT_IDLENESS = Duration.ofSeconds(30);
  /** The tracker seed unless set (all sub-windows share it, so they merge). */
  public static final long DEFAULT_SEED = 0x5EED_4EA7_1L;
  /** Window weight below which fraction alerts stay quiet, unless set. */
  public static final long DEFAULT_ALERT_MIN_WINDOW_WEIGHT = 1_000;
  /**
   * Event time a key may run ahead of the detector's watermark (beyond its window) before its packets are rejected as
   * opening too many sub-windows: at least this, and at least the detector's default of 64 slides. Reading a backlog
   * (a restart after downtime, a replay), Kafka hands partitions over unevenly, and a partition's packets run ahead
   * of the watermark, which the slowest partition holds: measured on 2 cores, reading 250 s of traffic as a backlog,
   * up to 147 s. 64 slides of a 1 s window are 64 s, so such a job rejected packets and its reports depended on how
   * the partitions were read. A key's state grows only as sub-windows open, so the floor costs memory only while a
   * backlog is read unevenly; it is at most {@link #MAX_FLOOR_SLIDES} slides, so that fine slides do not multiply
   * a key's worst case (1,024 trackers beyond its window).
   */
  public static final Duration MIN_OPEN_AHEAD = Duration.ofMinutes(5);
  /** The most slides {@link #MIN_OPEN_AHEAD} keeps open (5 minutes of slides of 293 ms or more). */
  public static final int MAX_FLOOR_SLIDES = 1024;
  /** The reason prefix of late packets in the dead-letter topic. */
  public static final String LATE_REASON = "late: the packet's window was already reported";

  /** What a packet weighs. */
  public enum Weight {
    /** Every packet weighs 1: N counts packets. */
    PACKETS,
    /** A packet weighs its IP length: N counts bytes. */
    BYTES;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** {@code packets} or {@code bytes}, any case. */
    public static Weight parse(String value) {
      for (Weight w : values()) {
        if (w.toString().equalsIgnoreCase(value.trim())) {
          return w;
        }
      }
      throw new IllegalArgumentException("'" + value + "' is not a weight (packets or bytes)");
    }
  }

  private final HeavyHitterDetector<PacketRecord, Integer> detector;
  private final PacketItem item;
  private final Weight weight;
  private final String alertsTopic;
  private final KafkaJobOptions options;

  private HeavyHittersJob(Builder b, HeavyHitterDetector<PacketRecord, Integer> detector, KafkaJobOptions options) {
    this.detector = detector;
    this.item = b.item;
    this.weight = b.weight;
    this.alertsTopic = b.alertsTopic;
    this.options = options;
  }

  /** A builder with every option at its default. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return options.jobNameOr(NAME);
  }

  @Override
  public String description() {
    Duration w = detector.windowSize();
    Duration s = detector.slide();
    return String.format(Locale.ROOT, "heavy hitters per observation point: top %d %s by %s, phi = %s, %s window%s, "
        + "%d counters per sub-window", detector.k(), item, weight, detector.phi(), w.toString().substring(2)
        .toLowerCase(Locale.ROOT), s.equals(w) ? "" : " sliding every " + s.toString().substring(2)
        .toLowerCase(Locale.ROOT), detector.capacity());
  }

  /** The configured operator (window, k, φ, capacity…). */
  public HeavyHitterDetector<PacketRecord, Integer> detector() {
    return detector;
  }

  public PacketItem item() {
    return item;
  }

  public Weight weight() {
    return weight;
  }

  public Duration outOfOrderness() {
    return options.outOfOrderness();
  }

  /** Zero: idleness detection off. */
  public Duration idleness() {
    return options.idleness();
  }

  /** The alerts topic, or the output topic when none was set. */
  public String alertsTopic(JobTopics topics) {
    return alertsTopic != null ? alertsTopic : topics.output();
  }

  @Override
  public void define(StreamExecutionEnvironment env, JobTopics topics) {
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(topics, "topics");
    JobTopics.requireNotInput("alerts", alertsTopic(topics), topics.input());
    ExactlyOnceSink.checkCheckpointing(env.getCheckpointConfig(), options.transactionTimeout());
    // event time: each batch's smallest packet timestamp, watermarks per partition
    SingleOutputStreamOperator<PacketBatch> batches = KafkaInput.read(env, topics, options.kafkaName(NAME),
        KafkaDecoding.packetBatches(options.maxDeadLetterBytes()), PacketBatchTypeInfo.INSTANCE, PacketBatch::minTimestamp,
        options);
    SingleOutputStreamOperator<HeavyHitterReport<Integer>> reports = detector.applyToBatches(batches,
        ObservationPointKey.INSTANCE, PacketBatch.ELEMENTS, PacketRecordTypeInfo.INSTANCE);
    reports.uid("heavy-hitters").name("heavy hitters per observation point");
    new JsonTopics()
        .add(topics.output(), reports, new ItemsAsText<>(OutputJson.<Integer>heavyHitterReports(),
            new ReportText(item)), "reports")
        .add(alertsTopic(topics), reports.getSideOutput(HeavyHitterDetector.alertTag(Types.INT)),
            new ItemsAsText<>(OutputJson.<Integer>heavyHitterAlerts(), new AlertText(item)), "alerts")
        .add(topics.deadLetter(), batches.getSideOutput(DeadLetter.TAG), OutputJson.deadLetters(), "dead-letters")
        .add(topics.deadLetter(), reports.getSideOutput(Rejected.tag(PacketRecordTypeInfo.INSTANCE)),
            OutputJson.<PacketRecord>rejected(), "malformed")
        .add(topics.deadLetter(), reports.getSideOutput(HeavyHitterDetector.lateTag(PacketRecordTypeInfo.INSTANCE)),
            new LateJson(), "late")
        .add(topics.deadLetter(), reports.getSideOutput(Rejected.batchTag(PacketBatchTypeInfo.INSTANCE)),
            OutputJson.<PacketBatch>rejected(), "rejected-batches")
        .sinkAll(topics.bootstrapServers(), NAME, options.jobName(), options.transactionTimeout(),
            options.sinkProperties());
  }

  /** The admin clients' properties: those of every client of the job ({@link KafkaJobOptions#adminProperties}). */
  @Override
  public Map<String, String> adminProperties() {
    return options.adminProperties();
  }

  /** The output, alerts and dead-letter topics, each taking records up to the sinks' limit. */
  @Override
  public WrittenTopics writtenTopics(JobTopics topics) {
    return WrittenTopics.of(topics.input(), options.sinkProperties()).topic("output", topics.output())
        .topic("alerts", alertsTopic(topics)).topic("dead-letter", topics.deadLetter());
  }

  /** The demo's live view: the top-k table of the latest window per observation point, from the reports topic. */
  @Override
  public LiveView liveView(JobTopics topics, boolean terminal) {
    return TopKView.builder(topics.bootstrapServers(), topics.output()).rows(Math.min(detector.k(), 10))
        .terminal(terminal).build();
  }

  @Override
  public boolean drains() {
    return true;
  }

  /**
   * As {@link #drain(JobTopics, long, Duration, PrintStream)}, but without waiting when the event times fed show
   * that no window can close: a report fires once the watermark reaches the end of the earliest window, which is the
   * end of the slide-aligned sub-window that holds the earliest event time fed. The watermark follows the records'
   * event times, and a batch's is its earliest packet's: so it stays below the latest batch's earliest packet time
   * minus the out-of-orderness ({@link FeedContext#lastRecordEventMillis()}), however late the packets after it in
   * that batch. When windows close, it waits for the report of the last one ({@link #lastWindowEnd}) to be
   * committed, not just any report: an earlier window's may be committed while the last one's waits for the job's
   * next checkpoint, and the demo cancels the job after the drain, which aborts it. It does not wait for alerts or
   * dead letters the job wrote after its last checkpoint (the cancel aborts them).
   */
  @Override
  public boolean drain(JobTopics topics, FeedContext feed, Duration timeout, PrintStream out)
      throws InterruptedException {
    long first = feed.firstEventMillis();
    long last = feed.lastEventMillis();
    long lastRecord = Math.min(last, feed.lastRecordEventMillis());
    if (feed.sentCount() > 0 && first != Long.MIN_VALUE) {
      long slide = detector.slide().toMillis();
      long firstEnd = firstWindowEnd(first, slide);
      long watermarkBound = lastRecord - options.outOfOrderness().toMillis();
      if (noWindowCanClose(first, lastRecord, slide, options.outOfOrderness().toMillis())) {
        out.println("no window can close in this run, so there is nothing to wait for: the packets fed span "
            + Instant.ofEpochMilli(first) + " to " + Instant.ofEpochMilli(last) + " (event time), the first window "
            + "ends at " + Instant.ofEpochMilli(firstEnd) + ", and the watermark stays below "
            + Instant.ofEpochMilli(watermarkBound) + " (" + (lastRecord == last ? "the last packet's time"
            : "the last batch's, its earliest packet's time") + " minus the out-of-orderness).");
        out.println(noWindowExplanation());
        return true;
      }
      // windows close: the report of the last one must be committed (the job's next checkpoint), or the output is
      // incomplete; the demo cancels the job after the drain, which aborts what is not committed yet
      long due = Math.max(firstEnd, lastWindowEnd(lastRecord, slide, options.outOfOrderness().toMillis()));
      return awaitReport(topics, feed.sentCount(), timeout, out, due);
    }
    return drain(topics, feed.sentCount(), timeout, out);
  }

  /**
   * The job's watermark is the smallest over its input partitions: each trails the latest record by up to a few
   * batches (the demo's feeder writes one batch of at most 0.1 s of event time per observation point in turn), so
   * the last window counted as closed is the one the watermark passes with this much to spare.
   */
  static final long WATERMARK_SKEW_MARGIN_MILLIS = 1_000;

  /**
   * The end of the last window whose report the event times fed make due: the latest slide-aligned end the
   * watermark (below {@code lastRecord} minus the out-of-orderness, less {@link #WATERMARK_SKEW_MARGIN_MILLIS})
   * reaches. Window ends are multiples of the slide.
   */
  static long lastWindowEnd(long lastRecord, long slideMillis, long outOfOrdernessMillis) {
    return Math.floorDiv(lastRecord - outOfOrdernessMillis - WATERMARK_SKEW_MARGIN_MILLIS, slideMillis) * slideMillis;
  }

  /**
   * Waits (at most {@code timeout}) until the output topic holds a committed report, then prints the latest
   * window's top-k table per observation point. A run shorter than a window (plus the out-of-orderness) has no
   * closed window: it prints that and still returns true — reports come per closed window, there is nothing to
   * miss.
   */
  @Override
  public boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream out)
      throws InterruptedException {
    return awaitReport(topics, recordsFed, timeout, out, Long.MIN_VALUE);
  }

  /**
   * The wait of the drains. {@code dueWindowEnd}: the end of the last window the event times fed close, whose report
   * must be committed for the output to be complete, or {@code Long.MIN_VALUE} when none is known to be due (then
   * any report, or none, will do).
   */
  private boolean awaitReport(JobTopics topics, long recordsFed, Duration timeout, PrintStream out,
                              long dueWindowEnd) throws InterruptedException {
    boolean reportDue = dueWindowEnd != Long.MIN_VALUE;
    try (TopKView view = TopKView.builder(topics.bootstrapServers(), topics.output()).rows(detector.k())
        .terminal(false).build()) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (recordsFed > 0 && (view.reports().isEmpty() || latestWindowEnd(view) < dueWindowEnd)
          && System.nanoTime() < deadline) {
        view.poll(Duration.ofMillis(500));
      }
      view.poll(Duration.ofMillis(200));
      if (!view.reports().isEmpty()) {
        out.print(view.render());
        if (latestWindowEnd(view) < dueWindowEnd) {
          out.println("no report of the window ending " + Instant.ofEpochMilli(dueWindowEnd) + " committed within "
              + timeout.toSeconds() + " s, although the event times fed close it: the output is incomplete");
          return false;
        }
        return true;
      }
      if (reportDue) {
        out.println("no report within " + timeout.toSeconds() + " s, although the event times fed close at least one"
            + " window: the output is incomplete");
        return false;
      }
      out.println("no window closed yet: " + noWindowExplanation());
      return true;
    }
  }

  /**
   * The end of the window every observation point seen has a committed report of: the least of their latest. Each
   * point's reports come from its own sink subtask, which may commit a window's report a checkpoint after another
   * point's; the demo's feeder writes every point's batches in turn, so each has the last window's report due.
   */
  private static long latestWindowEnd(TopKView view) {
    return view.reports().values().stream().mapToLong(TopKView.Report::windowEnd).min().orElse(Long.MIN_VALUE);
  }

  /** The end of the earliest window that holds event time {@code first}: its slide-aligned sub-window's end. */
  static long firstWindowEnd(long first, long slideMillis) {
    return Math.floorDiv(first, slideMillis) * slideMillis + slideMillis;
  }

  /**
   * Whether no report can fire for event times in [first, last]: the first fires at the earliest window end − 1,
   * once the watermark (at most last − outOfOrderness − 1, Flink's bounded out-of-orderness) has reached it.
   */
  static boolean noWindowCanClose(long first, long last, long slideMillis, long outOfOrdernessMillis) {
    return last - outOfOrdernessMillis < firstWindowEnd(first, slideMillis);
  }

  private String noWindowExplanation() {
    return "reports come once the watermark passes a window's end: the first once event time has moved past the "
        + "end of the first packet's " + DurationConverter.format(detector.slide()) + " step (windows are aligned "
        + "to multiples of it since the epoch, so at most that much after the first packet) plus the out-of-"
        + "orderness (" + DurationConverter.format(options.outOfOrderness()) + "). Event time is the packets' own: "
        + "a capture replayed in a loop moves it by the capture's span per pass, so a short capture needs a longer "
        + "run";
  }

  /** Rewrites a value before its JSON is written (address items to address text). */
  interface Rewrite<T> extends java.io.Serializable {
    T apply(T value);
  }

  /** A value's {@link OutputJson} bytes after a {@link Rewrite}. */
  static final class ItemsAsText<T> implements SerializationSchema<T> {
    private static final long serialVersionUID = 1L;
    private final JsonSerialization<T> json;
    private final Rewrite<T> rewrite;

    ItemsAsText(JsonSerialization<T> json, Rewrite<T> rewrite) {
      this.json = json;
      this.rewrite = rewrite;
    }

    @Override
    public byte[] serialize(T value) {
      return json.serialize(rewrite.apply(value));
    }
  }

  /** Reports with items as text (addresses instead of hex, 5-tuples' addresses in RFC 5952 form). */
  static final class ReportText implements Rewrite<HeavyHitterReport<Integer>> {
    private static final long serialVersionUID = 1L;
    private final PacketItem item;

    ReportText(PacketItem item) {
      this.item = item;
    }

    @Override
    public HeavyHitterReport<Integer> apply(HeavyHitterReport<Integer> r) {
      if (r.items != null) {
        for (ReportedItem i : r.items) {
          i.item = item.text(i.item);
        }
      }
      return r;
    }
  }

  /** Alerts with the item as text. */
  static final class AlertText implements Rewrite<HeavyHitterAlert<Integer>> {
    private static final long serialVersionUID = 1L;
    private final PacketItem item;

    AlertText(PacketItem item) {
      this.item = item;
    }

    @Override
    public HeavyHitterAlert<Integer> apply(HeavyHitterAlert<Integer> a) {
      a.item = item.text(a.item);
      return a;
    }
  }

  /** A late packet as a {@value OutputJson#REJECTED} record with reason {@link #LATE_REASON}. */
  static final class LateJson implements SerializationSchema<PacketRecord> {
    private static final long serialVersionUID = 1L;
    private final JsonSerialization<Rejected<PacketRecord>> json = OutputJson.rejected();

    @Override
    public byte[] serialize(PacketRecord p) {
      return json.serialize(new Rejected<>(p, LATE_REASON));
    }
  }

  /** Options of a {@link HeavyHittersJob}; {@link #build()} checks them all. */
  public static final class Builder extends KafkaJobBuilder<Builder> {
    private Duration window = HeavyHitterDetector.DEFAULT_WINDOW;
    private Duration slide;
    private int topK = HeavyHitterDetector.DEFAULT_K;
    private double phi = HeavyHitterDetector.DEFAULT_PHI;
    private Weight weight = Weight.PACKETS;
    private PacketItem item = PacketItem.FIVE_TUPLE;
    private long alertWeight;
    private double alertFraction;
    private long alertMinWindowWeight = DEFAULT_ALERT_MIN_WINDOW_WEIGHT;
    private int capacity;
    private long memoryBudget;
    private long seed = DEFAULT_SEED;
    private long stateCacheBytes = HeavyHitterDetector.DEFAULT_STATE_CACHE_BYTES;
    private String alertsTopic;

    private Builder() {
      super(DEFAULT_OUT_OF_ORDERNESS, DEFAULT_IDLENESS);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Window size (default 1 minute); tumbling unless {@link #slide} is set. */
    public Builder window(Duration window) {
      this.window = Objects.requireNonNull(window, "window");
      return this;
    }

    /** Slide of a sliding window; null or equal to the window: tumbling (default). */
    public Builder slide(Duration slide) {
      this.slide = slide;
      return this;
    }

    /** Items per report at least (default 10). */
    public Builder topK(int topK) {
      this.topK = topK;
      return this;
    }

    /** Items whose upper bound is ≥ φ·N are reported too (default 0.01). */
    public Builder phi(double phi) {
      this.phi = phi;
      return this;
    }

    /** Packets (default) or bytes. */
    public Builder weight(Weight weight) {
      this.weight = Objects.requireNonNull(weight, "weight");
      return this;
    }

    /** What is counted (default the 5-tuple). */
    public Builder item(PacketItem item) {
      this.item = Objects.requireNonNull(item, "item");
      return this;
    }

    /** Alert when an item's estimate reaches this weight within a (sub-)window; 0: off (default). */
    public Builder alertAtWeight(long weight) {
      this.alertWeight = weight;
      return this;
    }

    /**
     * Alert when an item reaches {@code fraction} of the (sub-)window's weight so far, once that weight is ≥
     * {@code minWindowWeight}; fraction 0: off (default). With fraction 0 the minimum would be ignored, so
     * {@link #build()} refuses any other than {@link #DEFAULT_ALERT_MIN_WINDOW_WEIGHT}, naming both settings.
     */
    public Builder alertAtFraction(double fraction, long minWindowWeight) {
      this.alertFraction = fraction;
      this.alertMinWindowWeight = minWindowWeight;
      return this;
    }

    /** Counters per sub-window tracker; 0: the operator's default 4·max(k, ⌈1/φ⌉). */
    public Builder capacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    /** Bytes per sub-window tracker instead of a capacity; 0: none (default). */
    public Builder memoryBudget(long bytes) {
      this.memoryBudget = bytes;
      return this;
    }

    /** Tracker seed (default {@link #DEFAULT_SEED}); must stay the same across restores. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Heap per subtask for the window sub-windows of the observation points used last when the state backend stores values
     * serialized (RocksDB); see {@link HeavyHitterDetector.Builder#stateCacheBytes}. Default 64 MiB, 0 for none.
     */
    public Builder stateCacheBytes(long bytes) {
      this.stateCacheBytes = bytes;
      return this;
    }

    /** Topic of the alerts; null (default): the output topic, next to the reports. */
    public Builder alertsTopic(String alertsTopic) {
      this.alertsTopic = alertsTopic == null || alertsTopic.isBlank() ? null : alertsTopic.trim();
      return this;
    }

    /**
     * The job; builds the detector, so any error in the window, k, φ, capacity, memory budget or alert options
     * fails here, naming the option.
     *
     * @throws IllegalArgumentException naming the option and its limit
     */
    public HeavyHittersJob build() {
      if (alertWeight < 0) {
        throw new IllegalArgumentException("alertAtWeight must be >= 0 (0: off), got " + alertWeight);
      }
      if (alertFraction < 0 || alertFraction > 1 || Double.isNaN(alertFraction)) {
        throw new IllegalArgumentException("alertFraction must be in [0, 1] (0: off), got " + alertFraction);
      }
      if (alertMinWindowWeight < 0) {
        throw new IllegalArgumentException("alertMinWindowWeight must be >= 0, got " + alertMinWindowWeight);
      }
      if (alertFraction == 0 && alertMinWindowWeight != DEFAULT_ALERT_MIN_WINDOW_WEIGHT) {
        throw new IllegalArgumentException("alertMinWindowWeight applies to fraction alerts only (alertFraction), which"
            + " are off: set an alertFraction in (0, 1] or leave alertMinWindowWeight at its default "
            + DEFAULT_ALERT_MIN_WINDOW_WEIGHT + " (got alertFraction " + alertFraction + " and alertMinWindowWeight "
            + alertMinWindowWeight + ")");
      }
      if (capacity < 0) {
        throw new IllegalArgumentException("capacity must be >= 0 (0: default), got " + capacity);
      }
      if (memoryBudget < 0) {
        throw new IllegalArgumentException("memoryBudget must be >= 0 (0: none), got " + memoryBudget);
      }
      if (stateCacheBytes < 0) {
        throw new IllegalArgumentException("stateCacheBytes must be >= 0 (0: none), got " + stateCacheBytes);
      }
      if (capacity > 0 && memoryBudget > 0) {
        throw new IllegalArgumentException("set either capacity or memoryBudget, not both: the budget chooses the"
            + " capacity (got capacity " + capacity + " and memoryBudget " + memoryBudget + ")");
      }
      HeavyHitterDetector.Builder<PacketRecord, Integer> b = HeavyHitterDetector
          .builder(PacketRecord::observationPoint, item.selector())
          .weight(weight == Weight.BYTES ? PacketRecord.LENGTH : WeightOf.one())
          .timestamps(PacketRecord.TIMESTAMP)
          .topK(topK)
          .phi(phi)
          .seed(seed)
          .stateCacheBytes(stateCacheBytes);
      if (slide == null || slide.equals(window)) {
        b.tumbling(window);
      } else {
        b.sliding(window, slide);
      }
      if (capacity > 0) {
        b.capacity(capacity);
      } else if (memoryBudget > 0) {
        b.memoryBudget(memoryBudget);
      }
      if (alertWeight > 0) {
        b.alertAtWeight(alertWeight);
      }
      if (alertFraction > 0) {
        b.alertAtFraction(alertFraction, alertMinWindowWeight);
      }
      HeavyHitterDetector<PacketRecord, Integer> detector = b.build();
      long slideMillis = detector.slide().toMillis();
      long ahead = Math.max(detector.maxOpenSubWindows() - detector.subWindows(),
          Math.min(MAX_FLOOR_SLIDES, (MIN_OPEN_AHEAD.toMillis() + slideMillis - 1) / slideMillis));
      int maxOpen = (int) Math.min(HeavyHitterDetector.MAX_OPEN_SUB_WINDOWS, detector.subWindows() + ahead);
      if (maxOpen != detector.maxOpenSubWindows()) {
        detector = b.maxOpenSubWindows(maxOpen).build();
      }
      checkReportSize(detector);
      options.requireDeadLettersFit();
      return new HeavyHittersJob(this, detector, options.copy());
    }

    /** Refuses a configuration whose largest report could not be written to Kafka ({@link ReportSize}). */
    private void checkReportSize(HeavyHitterDetector<PacketRecord, Integer> detector) {
      long items = ReportSize.maxItems(detector);
      long bytes = ReportSize.maxBytes(items, item, phi);
      int limit = JsonTopics.maxValueBytes(options.sinkProperties()); // as the sinks are configured
      if (bytes > limit) {
        boolean tumbling = detector.slide().equals(detector.windowSize());
        throw new IllegalArgumentException("k, phi and capacity: a report may list " + items + " items ("
            + (tumbling ? "k + 1/phi" : "the capacity, in a sliding window") + "), up to " + bytes
            + " bytes of JSON, more than the " + limit + " bytes a record of the Kafka sinks can hold "
            + "(the smaller of max.request.size and buffer.memory, less the record overhead); " + (tumbling ? "lower k or raise phi"
            : "lower the capacity (or the memory budget), k, or raise phi") + " (k " + detector.k() + ", phi " + phi
            + ", capacity " + detector.capacity() + ")");
      }
    }
  }
}
