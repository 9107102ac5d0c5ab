package io.linerate.jobs.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.linerate.jobs.format.SplitDecoded;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LocalFlink;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The execution environment of a job command, with a checkpoint directory always named: {@code --checkpoint-dir};
 * else the one the Flink configuration the environment was created with names ({@code execution.checkpointing.dir}
 * in the cluster's {@code config.yaml}, as {@code flink run} reads it); else, on a local cluster in this JVM (the
 * demo jar), a fresh temporary folder, removed by {@link #close()}. Without any on a cluster it refuses: Flink would
 * keep checkpoints in the JobManager's memory, which takes at most 5 MiB of state per task (a flow table or dedup
 * filters pass that: every checkpoint fails, and the exactly-once sinks never commit) and loses them with the
 * JobManager.
 */
public final class JobEnvironment implements AutoCloseable {

  /** {@code execution.target} of the clusters that run in this JVM: Flink's local executor and its test cluster. */
  static final Set<String> IN_JVM_TARGETS = Set.of("local", "minicluster");

  private final StreamExecutionEnvironment env;
  private final Path temporaryCheckpoints;

  private JobEnvironment(StreamExecutionEnvironment env, Path temporaryCheckpoints) {
    this.env = env;
    this.temporaryCheckpoints = temporaryCheckpoints;
  }

  /**
   * The environment {@code getExecutionEnvironment(flink.configuration())} gives, with a checkpoint directory as the
   * class describes; prints to {@code out} where checkpoints go when it is a temporary folder.
   *
   * @throws ParameterException naming --checkpoint-dir when no directory is named on a cluster outside this JVM
   */
  public static JobEnvironment create(FlinkOptions flink, CommandSpec spec, PrintStream out) {
    Configuration conf = flink.configuration();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    if (!flink.checkpointDir().isEmpty() || namesCheckpointDir(env.getConfiguration())) {
      return new JobEnvironment(env, null);
    }
    if (!inThisJvm(env)) {
      throw new ParameterException(spec.commandLine(), "--checkpoint-dir is needed: neither it nor the Flink "
          + "configuration (" + CheckpointingOptions.CHECKPOINTS_DIRECTORY.key() + ") names a checkpoint "
          + "directory, and Flink would keep checkpoints in the JobManager's memory, which refuses more than 5 MiB "
          + "of state per task (every checkpoint fails, and the exactly-once output is never committed) and loses "
          + "them with the JobManager; give a durable URI such as s3://bucket/checkpoints or hdfs:///checkpoints");
    }
    Path dir;
    try {
      dir = Files.createTempDirectory("linerate-checkpoints-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary checkpoint folder: " + e.getMessage(), e);
    }
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, LocalFlink.flinkPath(dir));
    out.println(spec.name() + ": checkpoints go to " + dir + " (a temporary folder, removed when the command "
        + "ends; --checkpoint-dir keeps them)");
    return new JobEnvironment(StreamExecutionEnvironment.getExecutionEnvironment(conf), dir);
  }

  /**
   * Checks the topics the job writes ({@link TopicChecks}), says what runs, runs the job until it ends (a bounded one
   * at the end of its input), says how long it ran, and checks that a bounded run's output is readable
   * ({@link OutputVisibility}) and not all dead letters ({@link SplitDecoded}'s accumulators: the records of the whole
   * run, restores from a checkpoint or savepoint included). On a cluster in this JVM, Ctrl-C (the JVM's shutdown)
   * first cancels the job and waits for it, so that its sinks abort their open transactions: left open, each would
   * keep {@code read_committed} readers of its partition waiting until the transaction timeout, other jobs' output
   * behind it included.
   *
   * @return the command's exit code: 0, or 1 if a topic was refused, or a bounded run read only dead letters or its
   *     output is not readable
   */
  public int run(CommandSpec spec, JobLauncher job, JobTopics topics, boolean bounded, PrintStream out)
      throws Exception {
    boolean local = inThisJvm(env);
    if (local) { // a cluster in this JVM: where it may hang, say so first
      LocalFlink.javaWarnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
    }
    if (!TopicChecks.allow(spec, job, topics, local)) {
      return 1;
    }
    WrittenTopics written = job.writtenTopics(topics);
    boolean attached = local || env.getConfiguration().get(DeploymentOptions.ATTACHED);
    out.println(spec.name() + ": " + job.description());
    out.println(spec.name() + ": reading topic '" + topics.input() + "' on " + topics.bootstrapServers()
        + (bounded ? " up to its end offsets at the start" : "") + "; writing "
        + String.join(", ", written.topics().stream().map(written::describe).toList())
        + (local ? "; Ctrl-C cancels the job (its open transactions are aborted)" : ""));
    out.flush();
    long start = System.nanoTime();
    JobExecutionResult result = local ? runCancellingOnShutdown(job.name(), out)
        : env.execute(job.name()); // flink run: the cluster owns the job, and the CLI's own options say what Ctrl-C does
    if (!attached) { // flink run --detached: execute returned once the job was submitted
      out.println(spec.name() + ": job " + job.name() + " submitted (detached)");
      return 0;
    }
    Long values = result.getAccumulatorResult(SplitDecoded.VALUES);
    Long deadLetters = result.getAccumulatorResult(SplitDecoded.DEAD_LETTERS);
    out.printf(Locale.ROOT, "%s: job %s finished after %.1f s%s%n", spec.name(), job.name(),
        (System.nanoTime() - start) / 1e9, values == null || deadLetters == null ? ""
            : String.format(Locale.ROOT, ": %,d records read (those before a restore from a checkpoint or "
                + "savepoint included), %,d of them dead letters (to topic '%s')", values + deadLetters, deadLetters,
                topics.deadLetter()));
    out.flush();
    if (bounded && values != null && deadLetters != null && values == 0 && deadLetters > 0) {
      spec.commandLine().getErr().println(spec.name() + ": every record read was a dead letter (" + deadLetters
          + "): nothing was counted. The dead-letter topic '" + topics.deadLetter() + "' gives each one's reason; "
          + "check the input topic and the options that say how to read it");
      spec.commandLine().getErr().flush();
      return 1;
    }
    // a bounded run ends here: its output must be readable (an open transaction on a written partition hides it)
    return bounded && !OutputVisibility.check(spec, job, topics) ? 1 : 0;
  }

  /** Executes the job on the cluster in this JVM; a shutdown of the JVM cancels it first ({@link #cancelling}). */
  private JobExecutionResult runCancellingOnShutdown(String name, PrintStream out) throws Exception {
    JobClient client = env.executeAsync(name);
    Thread cancel = cancelling(client, name, out);
    Runtime.getRuntime().addShutdownHook(cancel);
    try {
      return client.getJobExecutionResult().get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(cancel);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs already
      }
    }
  }

  /**
   * The shutdown hook of a job run in this JVM: cancels the job and waits up to 30 s for it to end, so that its
   * Kafka sinks close their producers, aborting the transactions they hold open (Flink's cluster in this JVM would
   * otherwise stop under them at the JVM's exit).
   */
  static Thread cancelling(JobClient client, String name, PrintStream out) {
    return new Thread(() -> {
      try {
        out.println("cancelling job " + name + " (its sinks abort their open transactions)");
        out.flush();
        client.cancel().get(30, TimeUnit.SECONDS);
        client.getJobExecutionResult().handle((r, e) -> null).get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        System.err.println("job " + name + " not cancelled cleanly: " + e);
      }
    }, "linerate-job-cancel");
  }

  /** Whether {@code conf} names a checkpoint directory. */
  static boolean namesCheckpointDir(ReadableConfig conf) {
    String dir = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
    return dir != null && !dir.isBlank();
  }

  /** Whether {@code env} runs its jobs on a cluster in this JVM. */
  static boolean inThisJvm(StreamExecutionEnvironment env) {
    return env instanceof LocalStreamEnvironment
        || IN_JVM_TARGETS.contains(env.getConfiguration().get(DeploymentOptions.TARGET));
  }

  /** The environment to define and execute the job in. */
  public StreamExecutionEnvironment env() {
    return env;
  }

  /** The temporary checkpoint folder, or null when checkpoints go to a directory named by the user or cluster. */
  public Path temporaryCheckpoints() {
    return temporaryCheckpoints;
  }

  /** Removes the temporary checkpoint folder, if any. */
  @Override
  public void close() {
    if (temporaryCheckpoints == null || !Files.exists(temporaryCheckpoints)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(temporaryCheckpoints)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("checkpoint folder " + temporaryCheckpoints + " not removed: " + e.getMessage());
    }
  }
}
