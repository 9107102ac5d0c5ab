package io.linerate.jobs.flowmeter;

import java.time.Duration;
import java.util.concurrent.Callable;

import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.cli.JobEnvironment;
import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.cli.Sizes;
import io.linerate.jobs.local.JobTopics;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import io.linerate.sketches.flowtable.TableLayout;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate flow-meter}: runs {@link FlowMeterJob} on the Flink environment at hand
 * ({@code StreamExecutionEnvironment.getExecutionEnvironment()}: the cluster under {@code flink run}, a local one
 * otherwise). Every option has a default; a bad value fails before the job is submitted, naming the option.
 */
@Command(name = "flow-meter", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    versionProvider = io.linerate.jobs.cli.Main.ManifestVersion.class,
    description = {
        "Kafka topic of packet batches (binary format v1) -> flow records (JSON) per observation point, exactly once.",
        "Undecodable values and packets the meter refuses go to the dead-letter topic with the reason."},
    footer = {"", "Example:",
        "  flink run linerate-jobs-<version>.jar flow-meter \\",
        "      --bootstrap-servers kafka:9092 --input-topic packets \\",
        "      --output-topic flows --capacity 200000 --idle-timeout 30s \\",
        "      --checkpoint-interval 10s --checkpoint-dir s3://bucket/checkpoints"})
public final class FlowMeterCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private KafkaOptions kafka;

  @Mixin
  private FlinkOptions flink;

  private long capacity = FlowMeterJob.Builder.DEFAULT_CAPACITY;
  private boolean capacityGiven; // --capacity was on the command line: with --memory-budget it would be ignored
  private long memoryBudget;
  private Duration idleTimeout = Duration.ofSeconds(15);
  private Duration activeTimeout = Duration.ofMinutes(30);
  private Duration tick = Duration.ofSeconds(1);
  private InsertionScheme scheme = InsertionScheme.SECOND_CHANCE;
  private OverflowPolicy overflow = OverflowPolicy.EVICT_LEAST_RECENT;
  private int stash = TableLayout.DEFAULT_STASH;
  private long stateCache = FlowMeter.DEFAULT_STATE_CACHE_BYTES;
  private FlowKeyFormat keyFormat = FlowKeyFormat.IPV4_AND_IPV6;
  private long seed = io.linerate.sketches.hash.ItemHasher.DEFAULT_SEED;
  private Duration outOfOrderness = Duration.ofSeconds(2);
  private Duration idleness = Duration.ofSeconds(30);
  private boolean bounded;

  // no defaultValue: picocli would call this on every run, and a --capacity given with --memory-budget is refused
  @Option(names = "--capacity", paramLabel = "FLOWS",
      description = "Flows each observation point's table holds; not with --memory-budget (default: "
          + FlowMeterJob.Builder.DEFAULT_CAPACITY + ")")
  void capacity(long value) {
    if (value < 1 || value > 1L << 28) {
      throw new ParameterException(spec.commandLine(), "--capacity must be in [1, 268435456] flows, got " + value);
    }
    capacity = value;
    capacityGiven = true;
  }

  @Option(names = "--memory-budget", paramLabel = "BYTES", defaultValue = "0",
      description = "Instead of --capacity: bytes of each observation point's table (suffix k, m, g: 64m), the "
          + "largest capacity that fits; 0: use --capacity (default: ${DEFAULT-VALUE})")
  void memoryBudget(String value) {
    memoryBudget = Sizes.parseBytes(spec, "--memory-budget", value);
  }

  @Option(names = "--idle-timeout", paramLabel = "DURATION", defaultValue = "15s", converter = DurationConverter.class,
      description = "Export a flow without packets for this long (event time) (default: ${DEFAULT-VALUE})")
  void idleTimeout(Duration value) {
    idleTimeout = atLeastOneMs("--idle-timeout", value);
  }

  @Option(names = "--active-timeout", paramLabel = "DURATION", defaultValue = "30m",
      converter = DurationConverter.class,
      description = "Export (and restart) a flow that lasted this long (default: ${DEFAULT-VALUE})")
  void activeTimeout(Duration value) {
    activeTimeout = atLeastOneMs("--active-timeout", value);
  }

  @Option(names = "--tick", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
      description = "Period of each observation point's expiry sweep (event time) (default: ${DEFAULT-VALUE})")
  void tick(Duration value) {
    tick = atLeastOneMs("--tick", value);
  }

  @Option(names = "--scheme", paramLabel = "SCHEME", defaultValue = "second-chance",
      description = "Insertion scheme of the multilevel table: standard, conservative, second-chance, "
          + "extreme-second-chance, standard-2 or second-chance-2 (default: ${DEFAULT-VALUE})")
  void scheme(String value) {
    scheme = Sizes.parseEnum(spec, "--scheme", value, InsertionScheme.class);
  }

  @Option(names = "--overflow", paramLabel = "POLICY", defaultValue = "evict-least-recent",
      description = "What a full table does with a new flow: evict-least-recent (the least recently updated of the "
          + "flows it could displace is exported as evicted, the new flow takes its place) or export-new (the new "
          + "flow's packet is exported at once as a one-packet evicted record; the table's flows stay whole, as "
          + "under a flood of new flows) (default: ${DEFAULT-VALUE})")
  void overflow(String value) {
    overflow = Sizes.parseEnum(spec, "--overflow", value, OverflowPolicy.class);
  }

  @Option(names = "--stash", paramLabel = "ENTRIES", defaultValue = "64",
      description = "Overflow stash entries of each table, searched on every new flow; raise it for tables of a "
          + "million flows or more run above about 85%% of their capacity (default: ${DEFAULT-VALUE})")
  void stash(int value) {
    if (value < 0 || value > TableLayout.MAX_STASH) {
      throw new ParameterException(spec.commandLine(), "--stash must be in [0, " + TableLayout.MAX_STASH
          + "] entries, got " + value);
    }
    stash = value;
  }

  @Option(names = "--state-cache", paramLabel = "BYTES", defaultValue = "64m",
      description = "With --state-backend rocksdb: heap per subtask for the tables of the observation points used "
          + "last, kept live between checkpoints instead of read and written whole per record (suffix k, m, g); 0: "
          + "none (default: ${DEFAULT-VALUE})")
  void stateCache(String value) {
    stateCache = Sizes.parseBytes(spec, "--state-cache", value);
  }

  @Option(names = "--key-format", paramLabel = "FORMAT", defaultValue = "ipv4-and-ipv6",
      description = "Flow key slots: ipv4-and-ipv6 (72 bytes) or ipv4-only (48 bytes; IPv6 packets become dead "
          + "letters) (default: ${DEFAULT-VALUE})")
  void keyFormat(String value) {
    keyFormat = Sizes.parseEnum(spec, "--key-format", value, FlowKeyFormat.class);
  }

  @Option(names = "--seed", paramLabel = "LONG", defaultValue = "0x6C696E6572617465",
      description = "Hash seed of the tables, decimal or 0x-hex; choose a secret one if traffic may be hostile "
          + "(default: ${DEFAULT-VALUE})")
  void seed(String value) {
    seed = Sizes.parseSeed(spec, "--seed", value);
  }

  @Option(names = "--out-of-orderness", paramLabel = "DURATION", defaultValue = "2s",
      converter = DurationConverter.class,
      description = "How far the watermark trails the largest packet timestamp seen (default: ${DEFAULT-VALUE})")
  void outOfOrderness(Duration value) {
    outOfOrderness = notNegative("--out-of-orderness", value);
  }

  @Option(names = "--idleness", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
      description = "A partition silent this long stops holding the watermark back; 0s: never (default: "
          + "${DEFAULT-VALUE})")
  void idleness(Duration value) {
    idleness = notNegative("--idleness", value);
  }

  @Option(names = "--bounded", defaultValue = "false",
      description = "Read the input topic up to its end offsets at start, flush every flow and finish "
          + "(default: ${DEFAULT-VALUE})")
  void bounded(boolean value) {
    bounded = value;
  }

  /** The job these options describe; a builder error is reported as a parameter error. */
  FlowMeterJob job() {
    if (capacityGiven && memoryBudget > 0) {
      throw new ParameterException(spec.commandLine(), "set either --capacity or --memory-budget, not both: the budget"
          + " chooses the capacity (got --capacity " + capacity + " and --memory-budget " + memoryBudget + ")");
    }
    try {
      FlowMeterJob.Builder b = kafka.applyTo(FlowMeterJob.builder()).idleTimeout(idleTimeout).activeTimeout(activeTimeout)
          .tick(tick).scheme(scheme).overflow(overflow).stashCapacity(stash).stateCacheBytes(stateCache)
          .keyFormat(keyFormat).seed(seed).outOfOrderness(outOfOrderness).idleness(idleness).bounded(bounded)
          .transactionTimeout(flink.transactionTimeout())
          .jobName(flink.jobName());
      if (memoryBudget > 0) {
        b.memoryBudget(memoryBudget);
      } else {
        b.capacity(capacity);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), (memoryBudget > 0 ? "--memory-budget" : "--capacity")
          + ": " + e.getMessage());
    }
  }

  JobTopics topics() {
    return kafka.topics();
  }

  @Override
  public Integer call() throws Exception {
    flink.validate();
    FlowMeterJob job = job();
    try (JobEnvironment environment = JobEnvironment.create(flink, spec, System.out)) {
      StreamExecutionEnvironment env = environment.env();
      JobTopics topics = topics();
      job.define(env, topics);
      return environment.run(spec, job, topics, bounded, System.out);
    }
  }

  private Duration notNegative(String option, Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), option + " must be >= 0s, got " + value);
    }
    return value;
  }

  private Duration atLeastOneMs(String option, Duration value) {
    if (value.toMillis() < 1) {
      throw new ParameterException(spec.commandLine(), option + " must be >= 1ms, got "
          + DurationConverter.format(value));
    }
    return value;
  }
}
