package io.linerate.jobs.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import io.linerate.jobs.format.SplitDecoded;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import io.linerate.jobs.local.LocalFlink;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.clusterframework.ApplicationStatus;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
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

  /** The exit code of a run cut short by Ctrl-C (SIGINT): 128 + 2, as the shell reports it. */
  static final int INTERRUPTED = 130;
  /** How often a job on its own local cluster is looked at for failures. */
  private static final long REPORT_INTERVAL_MS = 200;

  private final StreamExecutionEnvironment env;
  private final Configuration configuration;
  private final Path temporaryCheckpoints;
  private int restarts = -1;

  private JobEnvironment(StreamExecutionEnvironment env, Configuration configuration, Path temporaryCheckpoints) {
    this.env = env;
    this.configuration = configuration;
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
      return new JobEnvironment(env, conf, null);
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
    return new JobEnvironment(StreamExecutionEnvironment.getExecutionEnvironment(conf), conf, dir);
  }

  /**
   * Checks the topics the job writes ({@link TopicChecks}), says what runs, runs the job until it ends (a bounded one
   * at the end of its input), says how long it ran, and checks that a bounded run's output is readable
   * ({@link OutputVisibility}) and not all dead letters ({@link SplitDecoded}'s accumulators: the records of the whole
   * run, restores from a checkpoint or savepoint included). On a cluster in this JVM, Ctrl-C (the JVM's shutdown)
   * first cancels the job and waits for it, so that its sinks abort their open transactions: left open, each would
   * keep {@code read_committed} readers of its partition waiting until the transaction timeout, other jobs' output
   * behind it included. Without a Flink cluster around (the demo jar's {@code java -jar ... <job>}), the job runs on
   * a {@link LocalFlink} cluster started for it, whose web UI address is printed, and each restart from a checkpoint
   * is printed as it happens, with the failure's root cause ({@link #runOnLocalFlink}).
   *
   * @return the command's exit code: 0, or 1 if a topic was refused, or a bounded run read only dead letters or its
   *     output is not readable, or 130 if Ctrl-C cancelled a job on a local cluster of its own
   */
  public int run(CommandSpec spec, JobLauncher job, JobTopics topics, boolean bounded, PrintStream out)
      throws Exception {
    boolean local = inThisJvm(env);
    boolean ownCluster = env instanceof LocalStreamEnvironment; // no cluster around: one of our own, started here
    if (local && !ownCluster) { // a cluster in this JVM: where it may hang, say so first (LocalFlink says it itself)
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
    restarts = -1;
    JobExecutionResult result = ownCluster ? runOnLocalFlink(spec, job.name(), out)
        : local ? runCancellingOnShutdown(job.name(), out)
        : env.execute(job.name()); // flink run: the cluster owns the job, and the CLI's options say what Ctrl-C does
    if (result == null) { // the JVM shuts down (Ctrl-C): the shutdown hook cancelled the job and said so
      return INTERRUPTED;
    }
    if (!attached) { // flink run --detached: execute returned once the job was submitted
      out.println(spec.name() + ": job " + job.name() + " submitted (detached)");
      return 0;
    }
    Long values = result.getAccumulatorResult(SplitDecoded.VALUES);
    Long deadLetters = result.getAccumulatorResult(SplitDecoded.DEAD_LETTERS);
    out.printf(Locale.ROOT, "%s: job %s finished after %.1f s%s%s%n", spec.name(), job.name(),
        (System.nanoTime() - start) / 1e9, values == null || deadLetters == null ? ""
            : String.format(Locale.ROOT, ": %,d records read (those before a restore from a checkpoint or "
                + "savepoint included), %,d of them dead letters (to topic '%s')", values + deadLetters, deadLetters,
                topics.deadLetter()),
        restarts <= 0 ? "" : "; it restarted " + (restarts == 1 ? "once" : restarts + " times") + " after a failure");
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

  /**
   * Runs the job on a {@link LocalFlink} cluster of its own, with as many task slots as its highest parallelism
   * ({@code taskmanager.numberOfTaskSlots} if the configuration sets it): the cluster prints its web UI address as it
   * starts. Until the job ends, each failure it restarts from is printed, with its root cause, and {@link #restarts}
   * counts them. A shutdown of the JVM (Ctrl-C) cancels the job, then stops the cluster, which removes its files
   * ({@link #cancelling(LocalFlink, JobID, String, String, PrintStream)}), and removes the temporary checkpoint folder.
   *
   * @return the job's result, or null if the JVM's shutdown cancelled it
   */
  private JobExecutionResult runOnLocalFlink(CommandSpec spec, String name, PrintStream out) throws Exception {
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName(name);
    int slots = configuration.getOptional(TaskManagerOptions.NUM_TASK_SLOTS).orElse(LocalFlink.slotsFor(graph));
    PrintWriter err = spec.commandLine().getErr();
    try (LocalFlink flink = LocalFlink.builder().slots(slots).configuration(configuration)
        .progress(line -> {
          if (line.startsWith("warning: ")) { // a Java that may keep the cluster from starting or stopping
            err.println(spec.name() + ": " + line);
            err.flush();
          } else {
            out.println(spec.name() + ": " + line);
            out.flush();
          }
        })
        .start()) {
      JobID id = flink.submit(graph);
      Runnable stop = cancelling(flink, id, spec.name() + ": ", name, out);
      // and the temporary checkpoint folder, and the closing line: the JVM halts once its hooks are done, which may
      // be before this thread, woken by the job's end, gets to either
      Thread cancel = new Thread(() -> {
        stop.run();
        close();
        out.println(spec.name() + ": job " + name + " cancelled on interrupt");
        out.flush();
      }, "linerate-job-cancel");
      Runtime.getRuntime().addShutdownHook(cancel);
      try {
        JobResult result = awaitReportingRestarts(flink, id, spec.name() + ": job " + name, out);
        restarts = flink.restarts(id);
        return result.toJobExecutionResult(JobEnvironment.class.getClassLoader());
      } catch (Exception e) {
        if (cancel.getState() == Thread.State.NEW) {
          throw e;
        }
        // Ctrl-C: the hook cancelled the job and stopped the cluster under this thread; the JVM halts after it
        cancel.join();
        return null;
      } finally {
        removeHook(cancel);
      }
    }
  }

  /**
   * Waits for the job's end and returns its result, printing a line for each failure it restarts from (from its
   * latest completed checkpoint, or from the start if it has none). A failure is told by its time in the job's
   * exception history, not by the job's status: a restart can be over between two looks. The failure that ends a
   * job that FAILED is its result's, not a restart.
   */
  private static JobResult awaitReportingRestarts(LocalFlink flink, JobID id, String job, PrintStream out)
      throws Exception {
    CompletableFuture<JobResult> done = flink.result(id);
    long lastFailure = 0;
    while (true) {
      JobResult result;
      try {
        result = done.get(REPORT_INTERVAL_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException running) {
        result = null;
      }
      long failure = flink.latestFailureTime(id); // 0: none, or not readable this time
      boolean failedForGood = result != null && result.getApplicationStatus() == ApplicationStatus.FAILED;
      if (failure != 0 && failure != lastFailure && !failedForGood) {
        out.println(job + " restarts after a failure (from its latest checkpoint, if it has one): "
            + LocalFlink.rootCauseLine(flink.latestFailure(id)));
        out.flush();
      }
      lastFailure = failure == 0 ? lastFailure : failure;
      if (result != null) {
        return result;
      }
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs already
    }
  }

  /**
   * What the shutdown hook of a job run on a {@link LocalFlink} of its own does: cancels the job and waits up to
   * 30 s for it to end (its sinks abort their open transactions, as in
   * {@link #cancelling(JobClient, String, PrintStream)}), then stops the cluster, which removes its folder before the
   * JVM exits. Its lines start with {@code prefix} (the command's name).
   */
  static Runnable cancelling(LocalFlink flink, JobID job, String prefix, String name, PrintStream out) {
    return () -> {
      try {
        out.println(prefix + "cancelling job " + name + " (its sinks abort their open transactions)");
        out.flush();
        flink.cancel(job, Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        System.err.println(prefix + "job " + name + " not cancelled cleanly: " + e);
      } finally {
        flink.close();
      }
    };
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
      removeHook(cancel);
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

  /**
   * How many times the job of the last {@link #run} restarted after a failure, when it ran on a cluster of its own;
   * -1 when not known (a cluster it did not start).
   */
  public int restarts() {
    return restarts;
  }

  /** The temporary checkpoint folder, or null when checkpoints go to a directory named by the user or cluster. */
  public Path temporaryCheckpoints() {
    return temporaryCheckpoints;
  }

  /** Removes the temporary checkpoint folder, if any. */
  @Override
  public synchronized void close() {
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
