package io.linerate.jobs.heavyhitters;

import java.time.Duration;
import java.util.concurrent.Callable;

import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.cli.JobEnvironment;
import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.cli.Main;
import io.linerate.jobs.cli.Sizes;
import io.linerate.jobs.cli.TopicNames;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate heavy-hitters}: runs {@link HeavyHittersJob} on the Flink the environment points at —
 * {@code flink run linerate-jobs.jar heavy-hitters ...} on a cluster, or a local in-process cluster when started
 * with {@code java -jar ...-demo.jar heavy-hitters ...}. Each option is checked as it is parsed, and the whole
 * configuration when the job is built (before anything is submitted); an error names the option.
 */
@Command(name = "heavy-hitters", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Top-k items and every item above phi * N per observation point and event-time window, from packet batches "
            + "(binary v1) in a Kafka topic to JSON reports in a Kafka topic, exactly once.",
        "Reports go to --output-topic, alerts to --alerts-topic, undecodable records, malformed and late packets to "
            + "--dead-letter-topic."})
public final class HeavyHittersCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private KafkaOptions kafka;

  @Mixin
  private FlinkOptions flink;

  private final HeavyHittersJob.Builder job = HeavyHittersJob.builder();
  private String alertsTopic = "alerts";
  private boolean bounded;

  @Option(names = "--window", order = 1, paramLabel = "DURATION", defaultValue = "1m", converter = DurationConverter.class,
      description = "Window size, e.g. 10s, 1m, 5m (default: ${DEFAULT-VALUE})")
  void window(Duration value) {
    if (value.toMillis() < 1) {
      throw new ParameterException(spec.commandLine(), "--window must be >= 1ms, got "
          + DurationConverter.format(value));
    }
    job.window(value);
  }

  @Option(names = "--slide", order = 2, paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
      description = "Slide of a sliding window; the window must be a multiple of it, at most 1024 slides; "
          + "0s: tumbling windows (default: ${DEFAULT-VALUE})")
  void slide(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--slide must be >= 0s, got " + value);
    }
    job.slide(value.isZero() ? null : value);
  }

  @Option(names = "--top-k", order = 3, paramLabel = "K", defaultValue = "10",
      description = "Items per report at least, heaviest first (default: ${DEFAULT-VALUE})")
  void topK(int value) {
    if (value < 1) {
      throw new ParameterException(spec.commandLine(), "--top-k must be >= 1, got " + value);
    }
    job.topK(value);
  }

  @Option(names = "--phi", order = 4, paramLabel = "FRACTION", defaultValue = "0.01",
      description = "Every item that may weigh at least phi * N is reported too; in (0, 1) (default: ${DEFAULT-VALUE})")
  void phi(double value) {
    if (!(value > 0 && value < 1)) {
      throw new ParameterException(spec.commandLine(), "--phi must be in (0, 1), got " + value);
    }
    job.phi(value);
  }

  @Option(names = "--weight", order = 5, paramLabel = "packets|bytes", defaultValue = "packets",
      description = "What N and the estimates count: packets or bytes (IP length) (default: ${DEFAULT-VALUE})")
  void weight(String value) {
    try {
      job.weight(HeavyHittersJob.Weight.parse(value));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--weight: " + e.getMessage());
    }
  }

  @Option(names = "--item", order = 6, paramLabel = "five-tuple|src-address|dst-address", defaultValue = "five-tuple",
      description = "What is counted: the flow (five-tuple), the source or the destination address "
          + "(default: ${DEFAULT-VALUE})")
  void item(String value) {
    try {
      job.item(PacketItem.parse(value));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--item: " + e.getMessage());
    }
  }

  @Option(names = "--capacity", order = 7, paramLabel = "COUNTERS", defaultValue = "0",
      description = "Counters per sub-window tracker, >= max(k, floor(1/phi) + 1); 0: 4 * max(k, ceil(1/phi)) "
          + "(default: ${DEFAULT-VALUE})")
  void capacity(int value) {
    if (value < 0) {
      throw new ParameterException(spec.commandLine(), "--capacity must be >= 0 (0: automatic), got " + value);
    }
    job.capacity(value);
  }

  @Option(names = "--memory-budget", order = 8, paramLabel = "BYTES", defaultValue = "0",
      description = "Bytes per sub-window tracker instead of --capacity (suffix k, m, g: 64k), the largest tracker "
          + "that fits; 0: none (default: ${DEFAULT-VALUE})")
  void memoryBudget(String value) {
    job.memoryBudget(Sizes.parseBytes(spec, "--memory-budget", value));
  }

  @Option(names = "--seed", order = 9, paramLabel = "SEED", defaultValue = "" + HeavyHittersJob.DEFAULT_SEED,
      description = "Hash seed of the trackers, decimal or 0x-hex; keep it across restores (default: ${DEFAULT-VALUE})")
  void seed(String value) {
    job.seed(Sizes.parseSeed(spec, "--seed", value));
  }

  @Option(names = "--state-cache", order = 17, paramLabel = "BYTES", defaultValue = "64m",
      description = "With --state-backend rocksdb: heap per subtask for the window sub-windows of the observation "
          + "points used last, kept live between checkpoints instead of read and written per batch (suffix k, m, g);"
          + " 0: none (default: ${DEFAULT-VALUE})")
  void stateCache(String value) {
    job.stateCacheBytes(Sizes.parseBytes(spec, "--state-cache", value));
  }

  private long alertWeight;
  private double alertFraction;
  private long alertMinWindowWeight = HeavyHittersJob.DEFAULT_ALERT_MIN_WINDOW_WEIGHT;
  private boolean alertMinWindowWeightGiven; // on the command line: without --alert-fraction it would be ignored

  @Option(names = "--alert-weight", order = 10, paramLabel = "WEIGHT", defaultValue = "0",
      description = "Alert as soon as an item's estimate reaches this weight within a window (a slide when sliding); "
          + "0: off (default: ${DEFAULT-VALUE})")
  void alertWeight(long value) {
    if (value < 0) {
      throw new ParameterException(spec.commandLine(), "--alert-weight must be >= 0 (0: off), got " + value);
    }
    alertWeight = value;
  }

  @Option(names = "--alert-fraction", order = 11, paramLabel = "FRACTION", defaultValue = "0",
      description = "Alert as soon as an item reaches this fraction of its window's weight so far, in (0, 1]; "
          + "0: off (default: ${DEFAULT-VALUE})")
  void alertFraction(double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new ParameterException(spec.commandLine(), "--alert-fraction must be in [0, 1] (0: off), got " + value);
    }
    alertFraction = value;
  }

  // no defaultValue: picocli would call this on every run, and a weight given without --alert-fraction is refused
  @Option(names = "--alert-min-window-weight", order = 12, paramLabel = "WEIGHT",
      description = "Fraction alerts wait until the window weighs this much; only with --alert-fraction (default: "
          + HeavyHittersJob.DEFAULT_ALERT_MIN_WINDOW_WEIGHT + ")")
  void alertMinWindowWeight(long value) {
    if (value < 0) {
      throw new ParameterException(spec.commandLine(), "--alert-min-window-weight must be >= 0, got " + value);
    }
    alertMinWindowWeight = value;
    alertMinWindowWeightGiven = true;
  }

  @Option(names = "--out-of-orderness", order = 13, paramLabel = "DURATION", defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How far a packet may be behind the newest packet of its partition before it is late; at least "
          + "the time span of a batch (default: ${DEFAULT-VALUE})")
  void outOfOrderness(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--out-of-orderness must be >= 0s, got " + value);
    }
    job.outOfOrderness(value);
  }

  @Option(names = "--idleness", order = 14, paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
      description = "A partition without records for this long (wall clock) stops holding the watermark back; "
          + "0s: never (default: ${DEFAULT-VALUE})")
  void idleness(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--idleness must be >= 0s (0s: off), got " + value);
    }
    job.idleness(value);
  }

  @Option(names = "--alerts-topic", order = 15, paramLabel = "TOPIC", defaultValue = "alerts",
      description = "Kafka topic of the alerts, in transactions; empty: the output topic (default: ${DEFAULT-VALUE})")
  void alertsTopic(String value) {
    String topic = value.trim();
    if (!topic.isEmpty() && !TopicNames.valid(topic)) {
      throw new ParameterException(spec.commandLine(), "--alerts-topic must be " + TopicNames.RULE
          + " or empty, got '" + value + "'");
    }
    alertsTopic = topic;
  }

  @Option(names = "--bounded", order = 16, defaultValue = "false",
      description = "Read the input topic up to its end at start, report every window, then finish "
          + "(replays of a fixed topic) (default: ${DEFAULT-VALUE})")
  void bounded(boolean value) {
    bounded = value;
  }

  /** The job as the options describe it; an invalid combination fails naming the option. */
  public HeavyHittersJob job() {
    if (alertMinWindowWeightGiven && alertFraction == 0) {
      throw new ParameterException(spec.commandLine(), "--alert-min-window-weight applies to fraction alerts only "
          + "(--alert-fraction), which are off: set --alert-fraction or leave it out (got --alert-min-window-weight "
          + alertMinWindowWeight + ")");
    }
    kafka.requireNotInput("--alerts-topic", alertsTopic);
    kafka.applyTo(job);
    job.alertsTopic(alertsTopic).bounded(bounded).alertAtWeight(alertWeight)
        .alertAtFraction(alertFraction, alertMinWindowWeight).transactionTimeout(flink.transactionTimeout())
        .jobName(flink.jobName());
    try {
      return job.build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "heavy-hitters options: " + e.getMessage()
          + " (windowSize/slide: --window/--slide, k: --top-k, phi: --phi, capacity: --capacity, memoryBudget: "
          + "--memory-budget, alert*: --alert-*)");
    }
  }

  /** Where the job reads and writes. */
  public JobTopics topics() {
    return kafka.topics();
  }

  public FlinkOptions flink() {
    return flink;
  }

  /** Builds the job (errors before anything runs), then executes it: returns when it ends (or at once, detached). */
  @Override
  public Integer call() throws Exception {
    flink.validate();
    HeavyHittersJob launcher = job();
    try (JobEnvironment environment = JobEnvironment.create(flink, spec, System.out)) {
      StreamExecutionEnvironment env = environment.env();
      JobTopics topics = topics();
      launcher.define(env, topics);
      return environment.run(spec, launcher, topics, bounded, System.out);
    }
  }
}
