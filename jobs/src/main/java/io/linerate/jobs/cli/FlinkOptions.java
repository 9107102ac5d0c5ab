package io.linerate.jobs.cli;

import java.time.Duration;
import java.util.Locale;

import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.KafkaJobOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How a job runs on Flink: the options every job sub-command shares ({@code @Mixin FlinkOptions flink;}), turned
 * into Flink configuration by {@link #configuration()}. Checkpointing is always on, in exactly-once mode: the Kafka
 * sinks commit their transactions on checkpoints, so the interval is the output's latency, and it must be shorter
 * than the sinks' transaction timeout ({@code --transaction-timeout}; checked by {@link #validate()}, which
 * {@link #configuration()} calls, so before any job is defined or submitted).
 */
public class FlinkOptions {

  /** Flink refuses checkpoint intervals below 10 ms. */
  public static final Duration MIN_CHECKPOINT_INTERVAL = Duration.ofMillis(10);

  /** Where keyed state lives. */
  public enum StateBackend {
    /** Objects on the JVM heap ({@code hashmap}): fastest; state must fit in the heap. */
    HEAP("hashmap"),
    /**
     * Serialized in embedded RocksDB on local disk ({@code rocksdb}): larger than the heap. Checkpoints are full
     * unless {@code --incremental-checkpoints} is given, which sets Flink's
     * {@code execution.checkpointing.incremental} (without it {@link #configuration()} leaves that setting to the
     * cluster, off by Flink's default). The integration tests restore incremental checkpoints in every build, full
     * ones with {@code -Pit-full}.
     */
    ROCKSDB("rocksdb");

    private final String flinkName;

    StateBackend(String flinkName) {
      this.flinkName = flinkName;
    }

    /** The value of Flink's {@code state.backend.type}. */
    public String flinkName() {
      return flinkName;
    }

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The class flink-statebackend-rocksdb provides (flink-dist's lib/ on a cluster, bundled in the demo jar). */
  static final String ROCKSDB_FACTORY = "org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackendFactory";

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  private int parallelism = 1;
  private Duration checkpointInterval = Duration.ofSeconds(10);
  private StateBackend stateBackend = StateBackend.HEAP;
  private String checkpointDir = "";
  private Duration transactionTimeout = ExactlyOnceSink.DEFAULT_TRANSACTION_TIMEOUT;
  private String jobName;
  private boolean incrementalCheckpoints;

  @Option(names = "--job-name", paramLabel = "NAME", defaultValue = "",
      description = "Names this instance of the job: Flink's job name, the Kafka consumer group (linerate-JOB.NAME) "
          + "and the sinks' transactional id prefixes (linerate-JOB.NAME.TOPIC); two instances of one job on one "
          + "broker need different names, and a restored job needs the same one; " + KafkaJobOptions.JOB_NAME_RULE
          + " (default: none, the job's own: linerate-JOB, linerate-JOB-TOPIC)")
  void jobName(String value) {
    String name = value.trim();
    if (!name.isEmpty() && !KafkaJobOptions.validJobName(name)) {
      throw new ParameterException(spec.commandLine(), "--job-name must be " + KafkaJobOptions.JOB_NAME_RULE
          + ", got '" + value + "'");
    }
    jobName = name.isEmpty() ? null : name;
  }

  @Option(names = "--parallelism", paramLabel = "N", defaultValue = "1",
      description = "Parallel instances of each operator; at most the task slots free (default: ${DEFAULT-VALUE})")
  void parallelism(int value) {
    if (value < 1 || value > MAX_PARALLELISM) {
      throw new ParameterException(spec.commandLine(), "--parallelism must be in [1, " + MAX_PARALLELISM
          + "] (Flink's largest max parallelism), got " + value);
    }
    parallelism = value;
  }

  @Option(names = "--checkpoint-interval", paramLabel = "DURATION", defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Time between checkpoints (exactly-once); output becomes visible to read_committed readers at each "
          + "one, e.g. 500ms, 10s, 1m (default: ${DEFAULT-VALUE})")
  void checkpointInterval(Duration value) {
    if (value.compareTo(MIN_CHECKPOINT_INTERVAL) < 0) {
      throw new ParameterException(spec.commandLine(), "--checkpoint-interval must be >= "
          + DurationConverter.format(MIN_CHECKPOINT_INTERVAL) + ", got " + DurationConverter.format(value));
    }
    checkpointInterval = value;
  }

  @Option(names = "--transaction-timeout", paramLabel = "DURATION", defaultValue = "10m",
      converter = DurationConverter.class,
      description = "transaction.timeout.ms of the exactly-once Kafka sinks: at least 30s and --checkpoint-interval "
          + "plus 10s plus a margin of a tenth of the timeout (at least 10s), at most 15m (the brokers' default "
          + "transaction.max.timeout.ms); also bounds the checkpoint timeout (default: ${DEFAULT-VALUE})")
  void transactionTimeout(Duration value) {
    Duration max = ExactlyOnceSink.DEFAULT_BROKER_MAX_TRANSACTION_TIMEOUT;
    if (value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
      throw new ParameterException(spec.commandLine(), "--transaction-timeout must be in (0s, "
          + DurationConverter.format(max) + "] (the brokers' default transaction.max.timeout.ms), got "
          + DurationConverter.format(value));
    }
    transactionTimeout = value;
  }

  @Option(names = "--state-backend", paramLabel = "heap|rocksdb", defaultValue = "heap",
      converter = StateBackendConverter.class,
      description = "Where keyed state lives: heap (JVM objects) or rocksdb (local disk; needs "
          + "flink-statebackend-rocksdb, in flink-dist and in the demo jar) (default: ${DEFAULT-VALUE})")
  void stateBackend(StateBackend value) {
    if (value == StateBackend.ROCKSDB && !onClassPath(ROCKSDB_FACTORY)) {
      throw new ParameterException(spec.commandLine(),
          "--state-backend rocksdb needs flink-statebackend-rocksdb on the class path, and it is not there");
    }
    stateBackend = value;
  }

  @Option(names = "--incremental-checkpoints", defaultValue = "false",
      description = "Incremental checkpoints (execution.checkpointing.incremental: each RocksDB file uploaded once, "
          + "later checkpoints refer to it); needs --state-backend rocksdb; without it the cluster's setting holds "
          + "(default: ${DEFAULT-VALUE})")
  void incrementalCheckpoints(boolean value) {
    incrementalCheckpoints = value;
  }

  @Option(names = "--checkpoint-dir", paramLabel = "URI", defaultValue = "",
      description = "Where checkpoints are written (a file system URI: file:///..., s3://..., hdfs://...); without it "
          + "the Flink configuration's execution.checkpointing.dir; without either, a temporary folder on the local "
          + "cluster in the JVM (removed when the command ends), and refused on a cluster: the JobManager's memory "
          + "takes at most 5 MiB of state per task and loses it with the JobManager (default: none)")
  void checkpointDir(String value) {
    String dir = value.trim();
    if (!dir.isEmpty() && !dir.contains(":/") && !dir.startsWith("/")) {
      throw new ParameterException(spec.commandLine(),
          "--checkpoint-dir must be an absolute path or a URI such as file:///tmp/checkpoints, got '" + value + "'");
    }
    checkpointDir = dir;
  }

  public int parallelism() {
    return parallelism;
  }

  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  public StateBackend stateBackend() {
    return stateBackend;
  }

  /** Whether {@code --incremental-checkpoints} was given (only with {@link StateBackend#ROCKSDB}). */
  public boolean incrementalCheckpoints() {
    return incrementalCheckpoints;
  }

  /** The checkpoint directory, empty when not given (see {@link JobEnvironment}). */
  public String checkpointDir() {
    return checkpointDir;
  }

  /** The job's name, or null for the sub-command's default. */
  public String jobName() {
    return jobName;
  }

  /** Flink's upper limit on an operator's max parallelism (2^15), so on its parallelism too. */
  static final int MAX_PARALLELISM = 1 << 15;

  /** {@code transaction.timeout.ms} of the jobs' Kafka sinks. */
  public Duration transactionTimeout() {
    return transactionTimeout;
  }

  /**
   * Checks the options together: the checkpoint interval must be shorter than the transaction timeout, or the
   * Kafka sinks' transactions time out before a checkpoint commits them (and the job would fail when defined);
   * incremental checkpoints need the RocksDB state backend (the heap backend takes full ones only, and would ignore
   * the setting silently).
   *
   * @throws ParameterException naming both options (and the limit)
   */
  public void validate() {
    if (incrementalCheckpoints && stateBackend != StateBackend.ROCKSDB) {
      throw new ParameterException(spec.commandLine(), "--incremental-checkpoints needs --state-backend rocksdb, "
          + "got --state-backend " + stateBackend + ": the heap backend takes full checkpoints only");
    }
    if (transactionTimeout.compareTo(ExactlyOnceSink.MIN_TRANSACTION_TIMEOUT) < 0) {
      throw new ParameterException(spec.commandLine(), "--transaction-timeout must be at least "
          + DurationConverter.format(ExactlyOnceSink.MIN_TRANSACTION_TIMEOUT) + ", got "
          + DurationConverter.format(transactionTimeout) + ": a transaction can live through two checkpoints (the "
          + "next one waits for a slow one), each needs at least 10s, and a margin of at least 10s stays free");
    }
    if (ExactlyOnceSink.checkpointTimeoutFor(checkpointInterval, transactionTimeout)
        .compareTo(ExactlyOnceSink.MIN_CHECKPOINT_TIMEOUT) < 0) {
      throw new ParameterException(spec.commandLine(), "--checkpoint-interval must be shorter than "
          + "--transaction-timeout (" + DurationConverter.format(transactionTimeout) + ") by at least 10s plus a "
          + "tenth of the timeout (at least 10s), got " + DurationConverter.format(checkpointInterval)
          + ": the Kafka sinks commit their transactions on checkpoints, the broker aborts a transaction older than"
          + " the timeout, and a checkpoint needs time to complete");
    }
  }

  /**
   * {@code execution.checkpointing.timeout}: what the transaction timeout leaves after the interval and a margin
   * ({@link ExactlyOnceSink#checkpointTimeoutFor}), so that no checkpoint completes after the transactions it
   * commits have timed out.
   */
  public Duration checkpointTimeout() {
    return ExactlyOnceSink.checkpointTimeoutFor(checkpointInterval, transactionTimeout);
  }

  /**
   * These options as Flink configuration: {@code parallelism.default}, {@code execution.checkpointing.interval},
   * {@code .timeout} ({@link #checkpointTimeout()}) and {@code .mode} (EXACTLY_ONCE), {@code state.backend.type};
   * with {@code --checkpoint-dir} {@code execution.checkpointing.storage} ({@code filesystem}) and
   * {@code execution.checkpointing.dir} (without it neither: the cluster's configuration holds, and
   * {@link JobEnvironment} names a directory if it names none, never the JobManager's memory); and
   * {@code execution.checkpointing.incremental} (true) with {@code --incremental-checkpoints} (unset without it: the
   * cluster's setting holds), after {@link #validate()}.
   *
   * @throws ParameterException if the options do not fit together
   */
  public Configuration configuration() {
    validate();
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, checkpointTimeout());
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    conf.set(StateBackendOptions.STATE_BACKEND, stateBackend.flinkName());
    if (incrementalCheckpoints) {
      conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    }
    if (!checkpointDir.isEmpty()) {
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
    }
    return conf;
  }

  private static boolean onClassPath(String className) {
    try {
      Class.forName(className, false, FlinkOptions.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** {@code heap} or {@code rocksdb}, any case. */
  public static final class StateBackendConverter implements picocli.CommandLine.ITypeConverter<StateBackend> {
    @Override
    public StateBackend convert(String value) {
      for (StateBackend b : StateBackend.values()) {
        if (b.toString().equalsIgnoreCase(value.trim())) {
          return b;
        }
      }
      throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a state backend (heap or rocksdb)");
    }
  }
}
