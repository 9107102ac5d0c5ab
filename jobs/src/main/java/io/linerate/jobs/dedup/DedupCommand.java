package io.linerate.jobs.dedup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.linerate.flink.dedup.Deduplicator;
import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.cli.JobEnvironment;
import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.cli.Sizes;
import io.linerate.jobs.cli.TopicNames;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.local.JobTopics;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate dedup}: runs {@link DedupJob} on the Flink environment at hand
 * ({@code StreamExecutionEnvironment.getExecutionEnvironment()}: the cluster under {@code flink run}, a local one
 * otherwise). Every option has a default; a bad value fails before the job is submitted, naming the option.
 */
@Command(name = "dedup", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    versionProvider = io.linerate.jobs.cli.Main.ManifestVersion.class,
    description = {
        "Kafka topic of JSON events -> first occurrences to the output topic, probable duplicates to the duplicates "
            + "topic, per scope over a horizon in event time, exactly once.",
        "Values that are not such events go to the dead-letter topic with the reason."},
    footer = {"", "Example:",
        "  flink run linerate-jobs-<version>.jar dedup --bootstrap-servers kafka:9092 \\",
        "      --input-topic events --output-topic unique-events \\",
        "      --duplicates-topic duplicates --key-field event_id --timestamp-field ts \\",
        "      --scope-field tenant --horizon 10m --expected-rate 5000 --fpp 0.001 \\",
        "      --checkpoint-dir s3://bucket/checkpoints"})
public final class DedupCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private KafkaOptions kafka;

  @Mixin
  private FlinkOptions flink;

  private List<String> keyFields = List.of("id");
  private String weightField;
  private String timestampField = "timestamp";
  private JsonEventFormat.EpochUnit epochUnit = JsonEventFormat.EpochUnit.MILLISECONDS;
  private String scopeField;
  private String constantScope; // null: not given (the builder's default, DedupJob.DEFAULT_SCOPE)
  private Duration horizon = Duration.ofMinutes(10);
  private double expectedRate = 1_000;
  private double fpp = 0.001;
  private int generations = 4;
  private long seed = ItemHasher.DEFAULT_SEED;
  private long stateCache = Deduplicator.DEFAULT_STATE_CACHE_BYTES;
  private String duplicatesTopic;
  private DedupJob.OutputFormat outputFormat = DedupJob.OutputFormat.ENVELOPE;
  private Duration outOfOrderness = Duration.ofSeconds(2);
  private Duration idleness = Duration.ofSeconds(30);
  private boolean bounded;

  @Option(names = "--key-field", paramLabel = "FIELD",
      description = "Field whose value identifies a duplicate: a dotted path (user.id) or a JSON pointer (/user/id). "
          + "Repeat it for a composite key: events are duplicates when all those fields are equal (default: id)")
  void keyFields(List<String> values) {
    List<String> fields = new ArrayList<>();
    for (String value : values) {
      fields.add(text("--key-field", value));
    }
    keyFields = fields;
  }

  @Option(names = "--weight-field", paramLabel = "FIELD", defaultValue = "",
      description = "Field with the event's weight, passed through in the envelope; empty: weight 1 (default: none)")
  void weightField(String value) {
    weightField = value.isBlank() ? null : value.trim();
  }

  @Option(names = "--timestamp-field", paramLabel = "FIELD", defaultValue = "timestamp",
      description = "Field with the event time: epoch number (see --epoch-unit) or ISO-8601 text with an offset "
          + "(default: ${DEFAULT-VALUE})")
  void timestampField(String value) {
    timestampField = text("--timestamp-field", value);
  }

  @Option(names = "--epoch-unit", paramLabel = "ms|s", defaultValue = "ms",
      description = "Unit of numeric timestamps: ms or s (default: ${DEFAULT-VALUE})")
  void epochUnit(String value) {
    switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "ms", "milliseconds" -> epochUnit = JsonEventFormat.EpochUnit.MILLISECONDS;
      case "s", "seconds" -> epochUnit = JsonEventFormat.EpochUnit.SECONDS;
      default -> throw new ParameterException(spec.commandLine(), "--epoch-unit must be ms or s, got '" + value + "'");
    }
  }

  @Option(names = "--scope-field", paramLabel = "FIELD", defaultValue = "",
      description = "Field whose value is the scope duplicates are relative to (e.g. tenant); empty: one scope, "
          + "--scope (default: none)")
  void scopeField(String value) {
    scopeField = value.isBlank() ? null : value.trim();
  }

  // no defaultValue: picocli would pass it on every run, and the builder refuses a constant scope with a scope field
  @Option(names = "--scope", paramLabel = "NAME",
      description = "The scope of every event when there is no --scope-field; not with --scope-field (default: "
          + DedupJob.DEFAULT_SCOPE + ")")
  void constantScope(String value) {
    constantScope = text("--scope", value);
  }

  @Option(names = "--horizon", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
      description = "How long a key is remembered at least: a repeat within it is never passed (default: "
          + "${DEFAULT-VALUE})")
  void horizon(Duration value) {
    if (value.toMillis() < 1) {
      throw new ParameterException(spec.commandLine(), "--horizon must be >= 1ms, got "
          + DurationConverter.format(value));
    }
    horizon = value;
  }

  @Option(names = "--expected-rate", paramLabel = "KEYS_PER_SECOND", defaultValue = "1000",
      description = "Distinct keys per second per scope the --fpp target holds for (sizes the filters) (default: "
          + "${DEFAULT-VALUE})")
  void expectedRate(double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new ParameterException(spec.commandLine(), "--expected-rate must be > 0 and finite, got " + value);
    }
    expectedRate = value;
  }

  @Option(names = "--fpp", paramLabel = "P", defaultValue = "0.001",
      description = "Probability that a new key is flagged as a duplicate, in (0, 1) (default: ${DEFAULT-VALUE})")
  void fpp(double value) {
    if (!(value > 0 && value < 1)) {
      throw new ParameterException(spec.commandLine(), "--fpp must be in (0, 1), got " + value);
    }
    fpp = value;
  }

  @Option(names = "--generations", paramLabel = "G", defaultValue = "4",
      description = "Bloom filter generations per scope, 2 to 64: memory is about G/(G-1) x the horizon's worth "
          + "(default: ${DEFAULT-VALUE})")
  void generations(int value) {
    if (value < 2 || value > 64) {
      throw new ParameterException(spec.commandLine(), "--generations must be in [2, 64], got " + value);
    }
    generations = value;
  }

  @Option(names = "--seed", paramLabel = "LONG", defaultValue = "0x6C696E6572617465",
      description = "Hash seed, decimal or 0x-hex; choose a secret one if keys may be hostile (default: "
          + "${DEFAULT-VALUE})")
  void seed(String value) {
    seed = Sizes.parseSeed(spec, "--seed", value);
  }

  @Option(names = "--state-cache", paramLabel = "BYTES", defaultValue = "64m",
      description = "With --state-backend rocksdb: heap per subtask for the filters of the scopes used last, kept "
          + "live between checkpoints instead of read and written whole per record (suffix k, m, g); 0: none "
          + "(default: ${DEFAULT-VALUE})")
  void stateCache(String value) {
    stateCache = Sizes.parseBytes(spec, "--state-cache", value);
  }

  @Option(names = "--duplicates-topic", paramLabel = "TOPIC", defaultValue = "duplicates",
      description = "Kafka topic for the probable duplicates; empty: the output topic (default: ${DEFAULT-VALUE})")
  void duplicatesTopic(String value) {
    String topic = value.trim();
    if (!topic.isEmpty() && !TopicNames.valid(topic)) {
      throw new ParameterException(spec.commandLine(), "--duplicates-topic must be " + TopicNames.RULE
          + " or empty, got '" + value + "'");
    }
    duplicatesTopic = topic.isEmpty() ? null : topic;
  }

  @Option(names = "--output-format", paramLabel = "envelope|raw", defaultValue = "envelope",
      description = "envelope: unique_event / probable_duplicate objects with key, weight, timestamp and the event; "
          + "raw: the input record as it arrived, its key, value, headers and timestamp (default: ${DEFAULT-VALUE})")
  void outputFormat(String value) {
    outputFormat = Sizes.parseEnum(spec, "--output-format", value, DedupJob.OutputFormat.class);
  }

  @Option(names = "--out-of-orderness", paramLabel = "DURATION", defaultValue = "2s",
      converter = DurationConverter.class,
      description = "How far the watermark trails the largest event timestamp seen (default: ${DEFAULT-VALUE})")
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
      description = "Read the input topic up to its end offsets at start, then finish (default: ${DEFAULT-VALUE})")
  void bounded(boolean value) {
    bounded = value;
  }

  /** The job these options describe; a builder error is reported as a parameter error. */
  DedupJob job() {
    kafka.requireNotInput("--duplicates-topic", duplicatesTopic);
    if (outputFormat == DedupJob.OutputFormat.RAW
        && (duplicatesTopic == null || duplicatesTopic.equals(kafka.outputTopic()))) {
      throw new ParameterException(spec.commandLine(), "--output-format raw needs a --duplicates-topic other than "
          + "the output topic (raw events and raw duplicates could not be told apart)");
    }
    if (outputFormat == DedupJob.OutputFormat.RAW && (kafka.deadLetterTopic().equals(kafka.outputTopic())
        || kafka.deadLetterTopic().equals(duplicatesTopic))) {
      throw new ParameterException(spec.commandLine(), "--output-format raw needs a --dead-letter-topic other than "
          + "the output and duplicates topics (raw events carry no type field to tell them from dead letters)");
    }
    if (scopeField != null && constantScope != null) {
      throw new ParameterException(spec.commandLine(), "set either --scope-field or --scope, not both: the scope field"
          + " gives each event's scope (got --scope-field " + scopeField + " and --scope " + constantScope + ")");
    }
    try {
      DedupJob.Builder builder = kafka.applyTo(DedupJob.builder()).keyFields(keyFields).weightField(weightField)
          .timestampField(timestampField).epochUnit(epochUnit).scopeField(scopeField).horizon(horizon)
          .expectedRate(expectedRate).fpp(fpp).generations(generations).seed(seed).stateCacheBytes(stateCache)
          .duplicatesTopic(duplicatesTopic)
          .outputFormat(outputFormat).outOfOrderness(outOfOrderness).idleness(idleness).bounded(bounded)
          .transactionTimeout(flink.transactionTimeout()).jobName(flink.jobName());
      if (constantScope != null) {
        builder.constantScope(constantScope);
      }
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option(e.getMessage()) + ": " + e.getMessage());
    }
  }

  /** The option a builder message is about (its parameter name, camel case, at the start). */
  private static String option(String message) {
    String[][] names = {{"keyField", "--key-field"}, {"weightField", "--weight-field"},
        {"timestampField", "--timestamp-field"}, {"scopeField", "--scope-field"}, {"horizon", "--horizon"},
        {"expectedRate", "--expected-rate"}, {"fpp", "--fpp"}, {"generations", "--generations"}};
    if (message.contains(" is too small: horizon=")) { // the state of the rate, fpp and horizon together
      return "--expected-rate/--fpp/--horizon";
    }
    String found = "options";
    int first = Integer.MAX_VALUE;
    for (String[] n : names) { // the earliest named: a message may quote other parameters in its details
      int at = message.indexOf(n[0]);
      if (at >= 0 && at < first) {
        first = at;
        found = n[1];
      }
    }
    return found;
  }

  JobTopics topics() {
    return kafka.topics();
  }

  @Override
  public Integer call() throws Exception {
    flink.validate();
    DedupJob job = job();
    try (JobEnvironment environment = JobEnvironment.create(flink, spec, System.out)) {
      StreamExecutionEnvironment env = environment.env();
      JobTopics topics = topics();
      job.define(env, topics);
      return environment.run(spec, job, topics, bounded, System.out);
    }
  }

  private String text(String option, String value) {
    if (value == null || value.isBlank()) {
      throw new ParameterException(spec.commandLine(), option + " must not be blank");
    }
    return value.trim();
  }

  private Duration notNegative(String option, Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), option + " must be >= 0s, got " + value);
    }
    return value;
  }
}
