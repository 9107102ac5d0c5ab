package io.linerate.jobs.dedup;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.linerate.flink.dedup.DedupStreams;
import io.linerate.flink.dedup.Deduplicator;
import io.linerate.flink.items.ItemSelector;
import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.Event;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.kafka.JsonTopics;
import io.linerate.jobs.kafka.KafkaInput;
import io.linerate.jobs.kafka.KafkaJobBuilder;
import io.linerate.jobs.kafka.KafkaJobOptions;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LiveView;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The {@code dedup} job: JSON events from a Kafka topic ({@link JsonEventFormat}: key, weight and timestamp
 * fields configurable), deduplicated per scope (the value of a scope field, e.g. a tenant, or one constant scope)
 * by the {@link Deduplicator} operator in event time (each event's own timestamp): first occurrences to the output
 * topic, probable duplicates to the duplicates topic, exactly once. Values that are not such events (bad JSON, a
 * missing key, timestamp or scope, or an event whose output record could exceed what the Kafka sinks can write:
 * {@link OutputSizeCheck}) go to the dead-letter topic as {@code dead_letter} objects with the reason; events the
 * operator refuses as {@code rejected} objects.
 *
 * <p>Guarantees (docs/operators/dedup.md): a repeat of a key within the horizon of its previous occurrence in the same
 * scope is never passed as unique (events of a scope in timestamp order); a new key is flagged as a duplicate with
 * probability at most {@code fpp} while a scope stays within {@code expectedRate} distinct keys per second.
 */
public final class DedupJob implements JobLauncher {

  /**
   * The job's kind and default name: Flink's job name, the consumer group {@code linerate-<NAME>} and the sinks'
   * transactional id prefixes; {@link Builder#jobName} ({@code --job-name}) names an instance
   * ({@link KafkaJobOptions#kafkaName}).
   */
  public static final String NAME = "dedup";

  /** The scope of every event when no scope field is configured. */
  public static final String DEFAULT_SCOPE = "all";

  /** How the events are written to the output and duplicates topics. */
  public enum OutputFormat {
    /** {@code unique_event} / {@code probable_duplicate} objects: key, weight, timestamp and the event. */
    ENVELOPE,
    /**
     * The record exactly as it arrived: the event's JSON as the value, with the input record's key, headers and
     * Kafka timestamp ({@link RawRecords}; needs a duplicates topic of its own). A record with more than
     * {@value RawRecordDecoder#MAX_HEADERS} headers, or too large for the sinks with its key and headers, is a dead
     * letter.
     */
    RAW
  }

  private final ScopedEventFormat format;
  private final Deduplicator<ScopedEvent, String> deduplicator;
  private final String duplicatesTopic;
  private final OutputFormat outputFormat;
  private final KafkaJobOptions options;

  private DedupJob(Builder b, ScopedEventFormat format, Deduplicator<ScopedEvent, String> deduplicator,
      KafkaJobOptions options) {
    this.format = format;
    this.deduplicator = deduplicator;
    this.duplicatesTopic = b.duplicatesTopic;
    this.outputFormat = b.outputFormat;
    this.options = options;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return options.jobNameOr(NAME);
  }

  @Override
  public String description() {
    return "JSON events deduplicated per scope over a horizon of " + java.time.Duration.ofMillis(deduplicator.sizing().horizonMillis())
        + " (" + deduplicator.sizing().stateBytesPerKey() + " bytes per scope), exactly once";
  }

  /** How the job reads an event's key, weight and timestamp. */
  public JsonEventFormat events() {
    return format.events();
  }

  /** How the job reads an event and its scope. */
  ScopedEventFormat format() {
    return format;
  }

  /** The operator this job runs (its sizing: {@code deduplicator().sizing()}). */
  public Deduplicator<ScopedEvent, String> deduplicator() {
    return deduplicator;
  }

  /** Where probable duplicates go: the duplicates topic, or the output topic when none was set. */
  public String duplicatesTopic(JobTopics topics) {
    return duplicatesTopic != null ? duplicatesTopic : topics.output();
  }

  /**
   * @throws IllegalArgumentException if the output format is {@code RAW} and duplicates would share the output
   *     topic (they could not be told apart)
   */
  @Override
  public void define(StreamExecutionEnvironment env, JobTopics topics) {
    String duplicates = duplicatesTopic(topics);
    JobTopics.requireNotInput("duplicates", duplicates, topics.input());
    if (outputFormat == OutputFormat.RAW && duplicates.equals(topics.output())) {
      throw new IllegalArgumentException("outputFormat RAW needs a duplicatesTopic other than the output topic "
          + topics.output() + " (raw events and raw duplicates could not be told apart)");
    }
    if (outputFormat == OutputFormat.RAW && (topics.deadLetter().equals(topics.output())
        || topics.deadLetter().equals(duplicates))) {
      throw new IllegalArgumentException("outputFormat RAW needs a dead-letter topic other than the output and "
          + "duplicates topics (raw events carry no type field to tell them from dead letters)");
    }
    boolean raw = outputFormat == OutputFormat.RAW;
    SingleOutputStreamOperator<ScopedEvent> events = KafkaInput.read(env, topics, options.kafkaName(NAME), decoding(),
        ScopedEvent.typeInfo(), e -> e.event.timestamp, options);
    DedupStreams<ScopedEvent> out = deduplicator.apply(events);
    out.firstOccurrences().uid("dedup");
    JsonTopics sinks = new JsonTopics();
    if (raw) {
      sinks.addRecords(topics.output(), out.firstOccurrences(), new RawRecords(topics.output()))
          .addRecords(duplicates, out.duplicates(), new RawRecords(duplicates));
    } else {
      sinks.add(topics.output(), events(out.firstOccurrences(), "unique"), OutputJson.uniqueEvents(), "unique-events")
          .add(duplicates, events(out.duplicates(), "duplicate"), OutputJson.probableDuplicates(),
              "probable-duplicates");
    }
    sinks
        .add(topics.deadLetter(), events.getSideOutput(DeadLetter.TAG), OutputJson.deadLetters(), "dead-letters")
        .add(topics.deadLetter(), out.malformed(), OutputJson.rejected(new RawEvent()), "rejected-events")
        .sinkAll(topics.bootstrapServers(), NAME, options.jobName(), options.transactionTimeout(),
            options.sinkProperties());
  }

  /** The admin clients' properties: those of every client of the job ({@link KafkaJobOptions#adminProperties}). */
  @Override
  public Map<String, String> adminProperties() {
    return options.adminProperties();
  }

  /**
   * The output, duplicates and dead-letter topics, each taking records up to the sinks' limit; with the raw output
   * format the output and duplicates topics are written with the input records' own timestamps.
   */
  /** The demo's live view: first occurrences and probable duplicates committed so far, and the duplicates' share. */
  @Override
  public LiveView liveView(JobTopics topics, boolean terminal) {
    return DedupView.of(topics.bootstrapServers(), topics.output(), duplicatesTopic(topics), terminal);
  }

  @Override
  public WrittenTopics writtenTopics(JobTopics topics) {
    WrittenTopics written = WrittenTopics.of(topics.input(), options.sinkProperties());
    if (outputFormat == OutputFormat.RAW) {
      written.keepingInputTimestamps("raw output", topics.output())
          .keepingInputTimestamps("raw duplicates", duplicatesTopic(topics));
    } else {
      written.topic("output", topics.output()).topic("duplicates", duplicatesTopic(topics));
    }
    return written.topic("dead-letter", topics.deadLetter());
  }

  /**
   * How the job decodes its input: events whose output record the sinks could not write are dead letters, as the
   * sinks' producer settings ({@link KafkaJobOptions#sinkProperties}: {@code max.request.size}, {@code buffer.memory},
   * else Kafka's defaults) decide, not Kafka's defaults alone.
   *
   * @throws IllegalArgumentException if either setting is a config-provider placeholder that cannot be resolved here
   */
  KafkaDecoding<ScopedEvent> decoding() {
    Map<String, String> sinks = options.sinkProperties();
    OutputSizeCheck values = new OutputSizeCheck(format, JsonTopics.maxValueBytes(sinks));
    // raw: the whole record is decoded, its key, headers and timestamp kept for the output (and bounded)
    return outputFormat == OutputFormat.RAW
        ? KafkaDecoding.records(new RawRecordDecoder(values, JsonTopics.maxRecordBytes(sinks)), ScopedEvent.typeInfo(),
            options.maxDeadLetterBytes())
        : new KafkaDecoding<>(values, ScopedEvent.typeInfo(), options.maxDeadLetterBytes());
  }

  @Override
  public boolean drains() {
    return true;
  }

  /**
   * Waits until every fed record has its one output record, committed: a unique event, a probable duplicate, a dead
   * letter or a rejected event (the job writes exactly one per input record), counted with {@code read_committed}.
   */
  @Override
  public boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream out)
      throws InterruptedException {
    Set<String> written = new LinkedHashSet<>(List.of(topics.output(), duplicatesTopic(topics), topics.deadLetter()));
    long deadline = System.nanoTime() + timeout.toNanos();
    long committed;
    while ((committed = committedRecords(topics.bootstrapServers(), written)) < recordsFed
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    boolean complete = committed == recordsFed;
    out.printf(Locale.ROOT, "output: %d records committed in %s (read_committed) for %d fed: %s%n", committed,
        String.join(", ", written), recordsFed, complete ? "one per fed record"
            : committed < recordsFed ? "incomplete after " + timeout : "more than fed");
    return complete;
  }

  /** Records a {@code read_committed} consumer finds in {@code topics}, from their beginning to their end. */
  static long committedRecords(String bootstrapServers, Set<String> topics) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    Duration wait = Duration.ofSeconds(10);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        consumer.partitionsFor(topic, wait).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
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

  private static DataStream<Event> events(DataStream<ScopedEvent> scoped, String name) {
    return scoped.map(new ToEvent()).returns(Event.typeInfo()).name(name + " events").uid("to-event-" + name);
  }

  /** The event of a scoped event. */
  static final class ToEvent implements MapFunction<ScopedEvent, Event> {
    private static final long serialVersionUID = 1L;

    @Override
    public Event map(ScopedEvent value) {
      return value.event;
    }
  }

  /** A rejected scoped event written as its raw JSON. */
  static final class RawEvent implements io.linerate.jobs.format.ValueWriter<ScopedEvent> {
    private static final long serialVersionUID = 1L;

    @Override
    public void write(ScopedEvent value, com.fasterxml.jackson.core.JsonGenerator g) throws java.io.IOException {
      if (value == null || value.event == null || value.event.json == null) {
        g.writeNull();
      } else {
        g.writeRawValue(value.event.json);
      }
    }
  }

  /**
   * The job's settings; {@link #build()} checks them and fails naming the parameter. Required: the key field and
   * the timestamp field (the job runs in event time); defaults for the rest.
   */
  public static final class Builder extends KafkaJobBuilder<Builder> {
    private List<String> keyFields = List.of("id");
    private String weightField;
    private String timestampField = "timestamp";
    private JsonEventFormat.EpochUnit epochUnit = JsonEventFormat.EpochUnit.MILLISECONDS;
    private String scopeField;
    private String constantScope = DEFAULT_SCOPE;
    private boolean constantScopeSet; // constantScope(..) was called: with a scopeField it would be ignored
    private Duration horizon = Duration.ofMinutes(10);
    private double expectedRate = 1_000;
    private double fpp = 0.001;
    private int generations = Deduplicator.Builder.DEFAULT_GENERATIONS;
    private long seed = ItemHasher.DEFAULT_SEED;
    private long stateCacheBytes = Deduplicator.DEFAULT_STATE_CACHE_BYTES;
    private String duplicatesTopic;
    private OutputFormat outputFormat = OutputFormat.ENVELOPE;

    private Builder() {
      super(Duration.ofSeconds(2), Duration.ofSeconds(30));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Where the key that identifies a duplicate is (JSON pointer or dotted path); default {@code id}. */
    public Builder keyField(String location) {
      this.keyFields = java.util.Collections.singletonList(location);
      return this;
    }

    /**
     * The fields that together identify a duplicate (a composite key, {@link JsonEventFormat.Builder#keyFields}):
     * two events are duplicates when every one of these fields is equal.
     */
    public Builder keyFields(List<String> locations) {
      // a copy that keeps null elements, so that the format's check names them
      this.keyFields = new ArrayList<>(Objects.requireNonNull(locations, "keyFields"));
      return this;
    }

    /** Where the weight is (passed through in the envelope); default none (weight 1). */
    public Builder weightField(String location) {
      this.weightField = location;
      return this;
    }

    /** Where the event time is (epoch number or ISO-8601 text); default {@code timestamp}. Required. */
    public Builder timestampField(String location) {
      this.timestampField = location;
      return this;
    }

    /** Unit of numeric timestamps; default milliseconds. */
    public Builder epochUnit(JsonEventFormat.EpochUnit unit) {
      this.epochUnit = Objects.requireNonNull(unit, "epochUnit");
      return this;
    }

    /**
     * Where the scope is (e.g. {@code tenant}); default none (null): every event in {@link #constantScope}. Not with
     * a {@link #constantScope}: {@link #build()} fails naming both.
     */
    public Builder scopeField(String location) {
      this.scopeField = location;
      return this;
    }

    /**
     * The scope of every event when there is no scope field; default {@value DedupJob#DEFAULT_SCOPE}. Not with a
     * {@link #scopeField}, which gives each event's scope: {@link #build()} fails naming both.
     */
    public Builder constantScope(String scope) {
      this.constantScope = Objects.requireNonNull(scope, "constantScope");
      this.constantScopeSet = true;
      return this;
    }

    /** H: how long an occurrence is remembered at least; default 10 min. */
    public Builder horizon(Duration horizon) {
      this.horizon = horizon;
      return this;
    }

    /** Distinct keys per second per scope the false-positive target holds for; default 1000. */
    public Builder expectedRate(double keysPerSecond) {
      this.expectedRate = keysPerSecond;
      return this;
    }

    /** p: probability that a new key is flagged as a duplicate; default 0.001. */
    public Builder fpp(double p) {
      this.fpp = p;
      return this;
    }

    /** Bloom filter generations per scope, [2, 64]; default 4. */
    public Builder generations(int g) {
      this.generations = g;
      return this;
    }

    /** Hash seed; default {@link ItemHasher#DEFAULT_SEED}. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Heap per subtask for the rings of the scopes used last when the state backend stores values serialized
     * (RocksDB); see {@link Deduplicator.Builder#stateCacheBytes}. Default 64 MiB, 0 for none.
     */
    public Builder stateCacheBytes(long bytes) {
      this.stateCacheBytes = bytes;
      return this;
    }

    /** Topic of the probable duplicates; default: the output topic (envelopes tell them apart). */
    public Builder duplicatesTopic(String topic) {
      this.duplicatesTopic = topic;
      return this;
    }

    /** How events are written; default {@link OutputFormat#ENVELOPE}. */
    public Builder outputFormat(OutputFormat format) {
      this.outputFormat = Objects.requireNonNull(format, "outputFormat");
      return this;
    }

    /** @throws IllegalArgumentException naming the parameter that is missing or out of range */
    public DedupJob build() {
      if (timestampField == null) {
        throw new IllegalArgumentException("timestampField must be set: the dedup job runs in event time");
      }
      if (scopeField != null && constantScopeSet) {
        throw new IllegalArgumentException("set either scopeField or constantScope, not both: the scope field gives"
            + " each event's scope (got scopeField '" + scopeField + "' and constantScope '" + constantScope + "')");
      }
      if (duplicatesTopic != null && duplicatesTopic.isBlank()) {
        throw new IllegalArgumentException("duplicatesTopic must not be blank, got '" + duplicatesTopic + "'");
      }
      JsonEventFormat events = JsonEventFormat.builder().keyFields(keyFields).weightField(weightField)
          .timestampField(timestampField).epochUnit(epochUnit).build();
      ScopedEventFormat format = new ScopedEventFormat(events, scopeField, constantScope);
      Deduplicator<ScopedEvent, String> dedup = Deduplicator.<ScopedEvent, String>builder()
          .scope(e -> e.scope, Types.STRING)
          .item(ItemSelector.strings(ScopedEvent::keyOf))
          .horizon(horizon)
          .eventTime()
          .timestamps(ScopedEvent::timestampOf)
          .expectedRate(expectedRate)
          .fpp(fpp)
          .generations(generations)
          .seed(seed)
          .stateCacheBytes(stateCacheBytes)
          .build();
      options.requireDeadLettersFit();
      return new DedupJob(this, format, dedup, options.copy());
    }
  }
}
