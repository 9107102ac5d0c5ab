package io.linerate.jobs.flowmeter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.flink.rejects.Rejected;
import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.ObservationPointKey;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchTypeInfo;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.format.PacketRecordTypeInfo;
import io.linerate.jobs.kafka.JsonTopics;
import io.linerate.jobs.kafka.KafkaInput;
import io.linerate.jobs.kafka.KafkaJobBuilder;
import io.linerate.jobs.kafka.KafkaJobOptions;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LiveView;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The {@code flow-meter} job: packet batches (binary format v1, {@code docs/FORMATS.md}) from a Kafka topic,
 * metered per observation point by the {@link FlowMeter} operator (one multilevel flow table per observation point,
 * each packet at its own timestamp), flow records as JSON ({@link OutputJson#flows()}) to the output topic, exactly
 * once. Kafka values that are not batches (bad magic or version, truncated) go to the dead-letter topic as
 * {@code dead_letter} objects; packets the meter refuses (an IPv6 packet with {@code IPV4_ONLY} keys…) and batches it
 * cannot list go there as {@code rejected} objects with the reason. Nothing is dropped: every packet of a decoded
 * batch ends in exactly one flow record or one rejected record (the meter's conservation guarantee).
 *
 * <p>Event time: each batch's Flink timestamp is its smallest packet timestamp, watermarks trail the largest seen by
 * {@link Builder#outOfOrderness}; a Kafka partition silent for {@link Builder#idleness} stops holding the watermark
 * back. A bounded input ends with the final watermark, which flushes every table.
 */
public final class FlowMeterJob implements JobLauncher {

  /**
   * The job's kind and default name: Flink's job name, the consumer group {@code linerate-<NAME>} and the sinks'
   * transactional id prefixes; {@link Builder#jobName} ({@code --job-name}) names an instance
   * ({@link KafkaJobOptions#kafkaName}).
   */
  public static final String NAME = "flow-meter";

  private final FlowMeter<PacketRecord, Integer> meter;
  private final KafkaJobOptions options;

  private FlowMeterJob(FlowMeter<PacketRecord, Integer> meter, KafkaJobOptions options) {
    this.meter = meter;
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
    return "packet batches metered into flow records per observation point (capacity " + meter.capacity()
        + " flows each), exactly once";
  }

  /** The flow meter this job runs (its capacity, resolved from a memory budget if one was given). */
  public FlowMeter<PacketRecord, Integer> meter() {
    return meter;
  }

  @Override
  public void define(StreamExecutionEnvironment env, JobTopics topics) {
    // Every operator of this job hands its output on and keeps no reference to its input after the call (the flow
    // table copies what it needs into primitive arrays; flow records are new objects, written as JSON at once), so
    // chained operators may pass records without Flink's defensive copy: under a flood of new flows that copy (a
    // reflective POJO copy of every flow record) was a tenth of the operator's time.
    env.getConfig().enableObjectReuse();
    SingleOutputStreamOperator<PacketBatch> batches = KafkaInput.read(env, topics, options.kafkaName(NAME),
        KafkaDecoding.packetBatches(options.maxDeadLetterBytes()), PacketBatchTypeInfo.INSTANCE, FlowMeterJob::batchTime,
        options);
    SingleOutputStreamOperator<MeteredFlow<Integer>> flows = meter.applyToBatches(batches,
        ObservationPointKey.INSTANCE, PacketBatch.ELEMENTS, PacketRecordTypeInfo.INSTANCE).uid("flow-meter");
    DataStream<Rejected<PacketRecord>> badPackets = flows.getSideOutput(
        meter.malformedTag(PacketRecordTypeInfo.INSTANCE));
    DataStream<Rejected<PacketBatch>> badBatches = flows.getSideOutput(
        meter.malformedBatchesTag(PacketBatchTypeInfo.INSTANCE));
    new JsonTopics()
        .add(topics.output(), flows, OutputJson.<Integer>flows(), "flows")
        .add(topics.deadLetter(), batches.getSideOutput(DeadLetter.TAG), OutputJson.deadLetters(), "dead-letters")
        .add(topics.deadLetter(), badPackets, OutputJson.<PacketRecord>rejected(), "rejected-packets")
        .add(topics.deadLetter(), badBatches, OutputJson.<PacketBatch>rejected(), "rejected-batches")
        .sinkAll(topics.bootstrapServers(), NAME, options.jobName(), options.transactionTimeout(),
            options.sinkProperties());
  }

  /** The admin clients' properties: those of every client of the job ({@link KafkaJobOptions#adminProperties}). */
  @Override
  public Map<String, String> adminProperties() {
    return options.adminProperties();
  }

  /** The output and dead-letter topics, each taking records up to the sinks' limit. */
  @Override
  public WrittenTopics writtenTopics(JobTopics topics) {
    return WrittenTopics.of(topics.input(), options.sinkProperties()).topic("output", topics.output())
        .topic("dead-letter", topics.deadLetter());
  }

  /** The demo's live view: the flow records committed so far, per export reason and observation point. */
  @Override
  public LiveView liveView(JobTopics topics, boolean terminal) {
    return FlowsView.builder(topics.bootstrapServers(), topics.output()).terminal(terminal)
        .timeouts(meter.idleTimeout(), meter.activeTimeout()).build();
  }

  /**
   * A batch's smallest packet timestamp (so no packet of a batch is behind the watermark its own batch raised); an
   * empty batch carries no time (dead letters neither: {@link KafkaInput}).
   */
  static long batchTime(PacketBatch batch) {
    return batch.isEmpty() ? Long.MIN_VALUE : batch.minTimestamp();
  }

  /**
   * The job's settings. Table options are those of {@link FlowMeter.Builder} (checked there, with its names);
   * {@link #build()} fails naming the parameter.
   */
  public static final class Builder extends KafkaJobBuilder<Builder> {
    /** Flows per observation point's table when neither {@link #capacity} nor {@link #memoryBudget} is set. */
    public static final long DEFAULT_CAPACITY = 100_000;

    /** Takes every setting as it is made, so a value out of range fails in its setter; never built. */
    private final FlowMeter.Builder<PacketRecord, Integer> checked = meterBuilder();
    /**
     * The settings, in order, replayed on a new meter builder by each {@link #build()}: the default capacity that
     * build gives a builder without capacity or budget does not stay behind to clash with a budget set later.
     */
    private final List<Consumer<FlowMeter.Builder<PacketRecord, Integer>>> settings = new ArrayList<>();
    private long capacity;
    private long memoryBudget;

    private Builder() {
      super(Duration.ofSeconds(2), Duration.ofSeconds(30));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Flows each observation point's table is sized for (or {@link #memoryBudget}); default {@value #DEFAULT_CAPACITY}. */
    public Builder capacity(long flows) {
      set(b -> b.capacity(flows));
      this.capacity = flows;
      return this;
    }

    /** Bytes of each observation point's table: the largest capacity that fits (instead of {@link #capacity}). */
    public Builder memoryBudget(long bytes) {
      set(b -> b.memoryBudget(bytes));
      this.memoryBudget = bytes;
      return this;
    }

    /** Export a flow without packets for this long; default 15 s. */
    public Builder idleTimeout(Duration timeout) {
      set(b -> b.idleTimeout(timeout));
      return this;
    }

    /** Export (and restart) a flow that lasted this long; default 30 min. */
    public Builder activeTimeout(Duration timeout) {
      set(b -> b.activeTimeout(timeout));
      return this;
    }

    /** Period of each observation point's expiry timer (event time); default 1 s. */
    public Builder tick(Duration tick) {
      set(b -> b.tick(tick));
      return this;
    }

    /** Insertion scheme of the tables; default {@link InsertionScheme#SECOND_CHANCE}. */
    public Builder scheme(InsertionScheme scheme) {
      set(b -> b.scheme(scheme));
      return this;
    }

    /**
     * What a full table does with a new flow: {@link OverflowPolicy#EVICT_LEAST_RECENT} (default) or
     * {@link OverflowPolicy#EXPORT_NEW}; either way the flow exported early is an {@code evicted} record.
     */
    public Builder overflow(OverflowPolicy overflow) {
      set(b -> b.overflow(overflow));
      return this;
    }

    /** Overflow stash entries of each table, searched on every new flow; default 64, at most 65,536. */
    public Builder stashCapacity(int entries) {
      set(b -> b.stashCapacity(entries));
      return this;
    }

    /**
     * Heap per subtask for the tables of the observation points used last when the state backend stores values
     * serialized (RocksDB); see {@link FlowMeter.Builder#stateCacheBytes}. Default 64 MiB, 0 for none.
     */
    public Builder stateCacheBytes(long bytes) {
      set(b -> b.stateCacheBytes(bytes));
      return this;
    }

    /** {@code IPV4_AND_IPV6} (default) or {@code IPV4_ONLY} (smaller slots; IPv6 packets are rejected). */
    public Builder keyFormat(FlowKeyFormat keyFormat) {
      set(b -> b.keyFormat(keyFormat));
      return this;
    }

    /** Hash seed of the tables; default {@link ItemHasher#DEFAULT_SEED}. */
    public Builder seed(long seed) {
      set(b -> b.seed(seed));
      return this;
    }

    private static FlowMeter.Builder<PacketRecord, Integer> meterBuilder() {
      return FlowMeter.<PacketRecord>builder()
          .scope(PacketRecord::observationPoint, Types.INT)
          .packets(PacketRecord.FIVE_TUPLE)
          .bytes(PacketRecord.LENGTH)
          .tcpFlags(PacketRecord.TCP_FLAGS)
          .timestamps(PacketRecord.TIMESTAMP);
    }

    /** Checks a setting at once and keeps it for {@link #build()}. */
    private void set(Consumer<FlowMeter.Builder<PacketRecord, Integer>> setting) {
      setting.accept(checked);
      settings.add(setting);
    }

    /** @throws IllegalArgumentException naming the parameter that is out of range */
    public FlowMeterJob build() {
      FlowMeter.Builder<PacketRecord, Integer> meter = meterBuilder();
      settings.forEach(setting -> setting.accept(meter));
      if (capacity == 0 && memoryBudget == 0) {
        meter.capacity(DEFAULT_CAPACITY); // the command's default too
      }
      FlowMeter<PacketRecord, Integer> built = meter.build();
      options.requireDeadLettersFit();
      return new FlowMeterJob(built, options.copy());
    }
  }
}
