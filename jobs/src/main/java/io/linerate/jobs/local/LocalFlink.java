package io.linerate.jobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.checkpoint.CheckpointStatsCounts;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * A Flink cluster in this JVM (Flink's {@link MiniCluster}: one JobManager, one TaskManager with {@code slots}
 * task slots) for the demo and for the job commands run without a cluster around: REST API and web UI on a free
 * port of 127.0.0.1, every other socket on loopback, and its working files (blobs, the RPC system's jar, RocksDB's
 * files in {@code rocksdb/}, the web UI's files) in one temporary folder.
 * {@link #close()} cancels what still runs, shuts the cluster down and deletes that folder.
 *
 * <pre>{@code
 * try (LocalFlink flink = LocalFlink.builder().slots(2).start()) {     // prints the web UI's address
 *   JobID job = flink.submit(env, "my job");
 *   flink.awaitStatus(job, JobStatus.RUNNING, Duration.ofSeconds(30));
 *   ...
 *   flink.cancel(job, Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class LocalFlink implements AutoCloseable {

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);
  /** How long {@link Builder#start()} waits for the cluster by default: it starts in 1–2 s on 2 cores. */
  static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  /**
   * {@code state.backend.rocksdb.localdir} (flink-statebackend-rocksdb's {@code RocksDBOptions.LOCAL_DIRECTORIES},
   * named here so that this class loads without that jar): where RocksDB's instances live, {@code rocksdb/} in the
   * cluster's folder. Flink's default, the TaskManager's working directory, adds
   * {@code minicluster_<32 hex digits>/tm_0/tmp/} (56 characters) to an instance path that is some 140 characters
   * long already ({@code job_<id>_op_<operator>_<id>__<subtask>__uuid_<uuid>/db}); past 251 characters Flink warns
   * "RocksDB instance path length exceeds limit" at every start of a keyed operator, seen with a
   * {@code java.io.tmpdir} as long as macOS's ({@code /var/folders/xx/.../T/}, about 50 characters).
   */
  static final ConfigOption<String> ROCKSDB_LOCAL_DIR =
      ConfigOptions.key("state.backend.rocksdb.localdir").stringType().noDefaultValue();

  private final MiniCluster cluster;
  private final Path folder;
  private final URI webUrl;
  private final Consumer<String> progress;
  private boolean closed;

  private LocalFlink(MiniCluster cluster, Path folder, URI webUrl, Consumer<String> progress) {
    this.cluster = cluster;
    this.folder = folder;
    this.webUrl = webUrl;
    this.progress = progress;
  }

  /** Options: task slots, extra configuration, where progress lines go. */
  public static Builder builder() {
    return new Builder();
  }

  /** The REST API's and web UI's address, {@code http://127.0.0.1:<port>}. */
  public URI webUrl() {
    return webUrl;
  }

  /** The port of {@link #webUrl()}. */
  public int restPort() {
    return webUrl.getPort();
  }

  /** The temporary folder of the cluster's working files; deleted by {@link #close()}. */
  public Path folder() {
    return folder;
  }

  /**
   * Submits the pipeline defined on {@code env} (its transformations are consumed, as by {@code execute}) and
   * returns once the cluster accepted it. The environment's configuration (parallelism, checkpointing, state
   * backend) travels with the job.
   */
  public JobID submit(StreamExecutionEnvironment env, String jobName) {
    ensureOpen();
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName(jobName);
    return submit(graph);
  }

  /** Submits {@code graph} under its job name and returns once the cluster accepted it. */
  public JobID submit(StreamGraph graph) {
    ensureOpen();
    return get(cluster.submitJob(graph), Duration.ofSeconds(60), "submit job " + graph.getJobName()).getJobID();
  }

  /**
   * The task slots a job of this graph takes on a cluster whose tasks share slots (Flink's default): the highest
   * parallelism of its operators, at least 1.
   */
  public static int slotsFor(StreamGraph graph) {
    return Math.max(1, graph.getStreamNodes().stream().mapToInt(n -> n.getParallelism()).max().orElse(1));
  }

  /** The job's current status. */
  public JobStatus status(JobID job) {
    return get(cluster.getJobStatus(job), Duration.ofSeconds(10), "read the status of job " + job);
  }

  /**
   * Waits until the job is in {@code wanted} (or, for {@code RUNNING}, until every task runs), and fails if it
   * reaches a terminal status first or the time runs out.
   */
  public void awaitStatus(JobID job, JobStatus wanted, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JobStatus status = status(job);
      if (status == wanted && (wanted != JobStatus.RUNNING || allTasksRunning(job))) {
        return;
      }
      if (status.isGloballyTerminalState() && status != wanted) {
        throw new IllegalStateException("job " + job + " is " + status + " instead of " + wanted
            + failureOf(job));
      }
      if (System.nanoTime() > deadline) {
        // RUNNING while tasks wait for slots, or RESTARTING while tasks keep failing: say which, and why
        String failure = latestFailure(job);
        throw new IllegalStateException("job " + job + " not " + wanted
            + (status == wanted ? " with all its tasks running" : "") + " within " + timeout + " (it is " + status
            + "; tasks: " + taskStates(job) + ")" + (failure == null ? "" : "; its latest failure: " + failure));
      }
      Thread.sleep(50);
    }
  }

  /** Completed checkpoints of the job so far (0 if none or the job is unknown). */
  public long completedCheckpoints(JobID job) {
    CheckpointStatsCounts counts = checkpointCounts(job);
    return counts == null ? 0 : counts.getNumberOfCompletedCheckpoints();
  }

  /** The job's checkpoint counts (completed, failed, in progress), or null if it has no checkpoint statistics. */
  CheckpointStatsCounts checkpointCounts(JobID job) {
    AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
    CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
    return stats == null ? null : stats.getCounts();
  }

  /** The job's result, once it has ended: a future that completes exceptionally if the cluster stops first. */
  public CompletableFuture<JobResult> result(JobID job) {
    ensureOpen();
    return cluster.requestJobResult(job);
  }

  /** Waits for the job to end (bounded jobs) and returns its result. */
  public JobResult awaitResult(JobID job, Duration timeout) {
    return get(cluster.requestJobResult(job), timeout, "wait for the end of job " + job);
  }

  /** Cancels the job unless it has ended, and waits until it has. Returns its final status. */
  public JobStatus cancel(JobID job, Duration timeout) {
    ensureOpen();
    if (!status(job).isGloballyTerminalState()) {
      try {
        get(cluster.cancelJob(job), timeout, "cancel job " + job);
      } catch (IllegalStateException e) {
        if (!status(job).isGloballyTerminalState()) {
          throw e;
        }
      }
    }
    return awaitResult(job, timeout).getApplicationStatus().deriveJobStatus();
  }

  /**
   * {@link #cancel}, once none of the job's checkpoints is in progress: waits for that at most
   * {@code checkpointWait} (or until interrupted), then cancels the job either way. A cancel aborts a checkpoint in
   * progress, which Flink reports as a failed checkpoint (a warning of its {@code CheckpointFailureManager} with the
   * stack trace of "Checkpoint Coordinator is suspending"); waiting lets it complete instead, and commit the output
   * of the transactions it ends. Flink may still trigger the job's next checkpoint in the milliseconds between the
   * last check and the cancel, so this makes such an abort unlikely, not impossible.
   */
  public JobStatus cancelBetweenCheckpoints(JobID job, Duration checkpointWait, Duration timeout) {
    ensureOpen();
    boolean interrupted = false;
    long deadline = System.nanoTime() + checkpointWait.toNanos();
    while (!status(job).isGloballyTerminalState()) {
      CheckpointStatsCounts counts = checkpointCounts(job);
      if (counts == null || counts.getNumberOfInProgressCheckpoints() == 0 || System.nanoTime() - deadline >= 0) {
        break;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        interrupted = true; // stop waiting; the job is cancelled all the same
        break;
      }
    }
    try {
      return cancel(job, timeout);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Shuts the cluster down (cancelling any job still running), waits for it, and deletes its folder. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    long begin = System.nanoTime();
    try {
      cluster.closeAsync().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          withWarnings("the local Flink cluster did not shut down within " + CLOSE_TIMEOUT), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while shutting the local Flink cluster down", e);
    } finally {
      deleteFolder(folder);
    }
    progress.accept(String.format(Locale.ROOT, "local Flink cluster stopped in %.1f s, %s removed",
        (System.nanoTime() - begin) / 1e9, folder));
  }

  private boolean allTasksRunning(JobID job) {
    AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
    return graph.getAllExecutionVertices().iterator().hasNext()
        && StreamSupport.stream(graph.getAllExecutionVertices().spliterator(), false)
            .allMatch(v -> v.getExecutionState() == ExecutionState.RUNNING
                || v.getExecutionState() == ExecutionState.FINISHED);
  }

  /**
   * The job's latest failure (what made it restart or fail), as Flink's exception history holds it, or null if it
   * has none (or the graph cannot be read).
   */
  public String latestFailure(JobID job) {
    try {
      AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
      org.apache.flink.runtime.executiongraph.ErrorInfo info = graph.getFailureInfo();
      return info == null ? null : info.getExceptionAsString();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * How many times the job has restarted so far: the highest attempt number of its tasks (each restart from a
   * checkpoint starts every task of the restarted region again, with its attempt number one higher); 0 if the job is
   * unknown.
   */
  public int restarts(JobID job) {
    try {
      AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
      return StreamSupport.stream(graph.getAllExecutionVertices().spliterator(), false)
          .mapToInt(v -> v.getCurrentExecutionAttempt().getAttemptNumber()).max().orElse(0);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /**
   * The root cause's line of a stack trace as text (its last "Caused by:", else its first line): Flink wraps a
   * task's exception, e.g. in the source's "Failed to deserialize consumer record". "(none recorded)" for null.
   */
  public static String rootCauseLine(String stackTrace) {
    if (stackTrace == null) {
      return "(none recorded)";
    }
    int cause = stackTrace.lastIndexOf("\nCaused by: ");
    int start = cause < 0 ? 0 : cause + "\nCaused by: ".length();
    int end = stackTrace.indexOf('\n', start);
    return (end < 0 ? stackTrace.substring(start) : stackTrace.substring(start, end)).strip();
  }

  /**
   * When the job's latest failure happened (epoch milliseconds), 0 if it has none or the job is unknown: a new value
   * means a new failure, even one the job recovered from before its status was read.
   */
  public long latestFailureTime(JobID job) {
    try {
      AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
      org.apache.flink.runtime.executiongraph.ErrorInfo info = graph.getFailureInfo();
      return info == null ? 0 : info.getTimestamp();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** How many of the job's tasks are in which state, e.g. {@code 1 RUNNING, 1 SCHEDULED}. */
  private String taskStates(JobID job) {
    try {
      AccessExecutionGraph graph = get(cluster.getExecutionGraph(job), Duration.ofSeconds(10), "read job " + job);
      java.util.Map<ExecutionState, Long> counts = new java.util.EnumMap<>(ExecutionState.class);
      for (var v : graph.getAllExecutionVertices()) {
        counts.merge(v.getExecutionState(), 1L, Long::sum);
      }
      return counts.isEmpty() ? "none yet" : counts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
          .collect(java.util.stream.Collectors.joining(", "));
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private String failureOf(JobID job) {
    try {
      JobResult result = get(cluster.requestJobResult(job), Duration.ofSeconds(5), "read the result of job " + job);
      return result.getSerializedThrowable().map(t -> ": " + t.getFullStringifiedStackTrace()).orElse("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the local Flink cluster is closed");
    }
  }

  private static <T> T get(CompletableFuture<T> future, Duration timeout, String what) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot " + what + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot " + what + " within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while trying to " + what, e);
    }
  }

  /** Options of a {@link LocalFlink}. */
  public static final class Builder {
    private int slots = 2;
    private Configuration configuration = new Configuration();
    private Consumer<String> progress = System.out::println;
    private Duration startTimeout = START_TIMEOUT;
    private Path parent; // null: java.io.tmpdir

    private Builder() {}

    /** Task slots of the one TaskManager: the highest parallelism a job can have (default 2). */
    public Builder slots(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("slots must be >= 1, got " + slots);
      }
      this.slots = slots;
      return this;
    }

    /**
     * Flink configuration for the cluster (and, as the cluster's defaults, for its jobs), e.g. the state backend.
     * The addresses, ports and folders belong to this class and are overwritten.
     */
    public Builder configuration(Configuration configuration) {
      this.configuration = new Configuration(Objects.requireNonNull(configuration, "configuration"));
      return this;
    }

    /** Where the progress lines go (one at start, one at stop); default {@code System.out::println}. */
    public Builder progress(Consumer<String> progress) {
      this.progress = Objects.requireNonNull(progress, "progress");
      return this;
    }

    /** Where the cluster's temporary folder is made (default {@code java.io.tmpdir}). */
    Builder parent(Path parent) {
      this.parent = Objects.requireNonNull(parent, "parent");
      return this;
    }

    /** How long {@link #start()} waits for the cluster before it gives up (default 2 minutes). */
    Builder startTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be > 0, got " + timeout);
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Creates the folder, starts the cluster and returns once its REST endpoint listens. On a Java version not
     * supported ({@link SupportedJava}), or on Java 25 with too small a common pool ({@link CommonPool}), it first
     * prints a warning; a cluster not started within the start timeout is closed and reported as an exception, not
     * waited for without end.
     */
    public LocalFlink start() {
      long begin = System.nanoTime();
      javaWarnings().forEach(w -> progress.accept("warning: " + w));
      Path folder;
      try {
        folder = parent == null ? Files.createTempDirectory("linerate-flink-")
            : Files.createTempDirectory(parent, "linerate-flink-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the local Flink cluster's temporary folder", e);
      }
      Configuration conf = new Configuration(configuration);
      String loopback = "127.0.0.1";
      conf.set(RestOptions.ADDRESS, loopback);
      conf.set(RestOptions.BIND_ADDRESS, loopback);
      conf.set(RestOptions.BIND_PORT, "0");
      conf.set(JobManagerOptions.ADDRESS, loopback);
      conf.set(JobManagerOptions.BIND_HOST, loopback);
      conf.set(TaskManagerOptions.HOST, loopback);
      conf.set(TaskManagerOptions.BIND_HOST, loopback);
      conf.set(CoreOptions.TMP_DIRS, folder.toString());
      conf.set(WebOptions.TMP_DIR, folder.resolve("web").toString());
      conf.set(ROCKSDB_LOCAL_DIR, folder.resolve("rocksdb").toString());
      MiniClusterConfiguration config = new MiniClusterConfiguration.Builder()
          .setConfiguration(conf)
          .setNumTaskManagers(1)
          .setNumSlotsPerTaskManager(slots)
          .build();
      MiniCluster cluster = new MiniCluster(config);
      URI url;
      try {
        onOwnThread(cluster::start, "start", startTimeout);
        url = cluster.getRestAddress().get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        try {
          // on a thread of its own too: the close waits for the lock that a start still running holds
          onOwnThread(() -> cluster.closeAsync().get(), "shut down", CLOSE_TIMEOUT);
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        } finally {
          deleteFolder(folder);
        }
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException(withWarnings("cannot start the local Flink cluster: " + e), e);
      }
      LocalFlink flink = new LocalFlink(cluster, folder, url, progress);
      progress.accept(String.format(Locale.ROOT,
          "local Flink cluster %s, %d task slot%s, web UI and REST API on %s, files in %s (started in %.1f s)",
          flinkVersion(), slots, slots == 1 ? "" : "s", url, folder, (System.nanoTime() - begin) / 1e9));
      return flink;
    }
  }

  /**
   * What in this JVM's Java may keep a Flink cluster in it from starting or stopping: the warnings of
   * {@link SupportedJava} and {@link CommonPool} that apply, none on a supported Java set up as the build sets it up.
   */
  public static List<String> javaWarnings() {
    List<String> warnings = new ArrayList<>(2);
    SupportedJava.warning().ifPresent(warnings::add);
    CommonPool.warning().ifPresent(warnings::add);
    return warnings;
  }

  /** {@code message}, followed by {@link #javaWarnings()}: what may explain a cluster that did not start or stop. */
  private static String withWarnings(String message) {
    return message + javaWarnings().stream().map(w -> ". " + w).collect(Collectors.joining());
  }

  /** What {@link #onOwnThread} runs. */
  private interface ClusterStep {
    void run() throws Exception;
  }

  /**
   * Runs {@code step} on a daemon thread of its own and waits for it at most {@code timeout}: a step that never
   * returns (a start or stop of Flink 2.2 on Java 25 with too small a common pool, {@link CommonPool}) then neither
   * holds the caller nor, as a daemon, the JVM's exit. It is not interrupted: Flink's RPC start waits in an
   * uninterruptible join.
   */
  private static void onOwnThread(ClusterStep step, String what, Duration timeout) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        step.run();
        done.complete(null);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }, "linerate-local-flink-" + what.replace(' ', '-'));
    thread.setDaemon(true);
    thread.start();
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new TimeoutException("the cluster did not " + what + " within " + timeout);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /**
   * A local folder as Flink reads a path option such as {@code execution.checkpointing.dir}: {@code file:/a b/c}, not
   * the URI {@code file:///a%20b/c}, whose {@code %20} Flink would take as three characters of a folder's name.
   */
  public static String flinkPath(Path folder) {
    return org.apache.flink.core.fs.Path.fromLocalFile(folder.toFile()).toString();
  }

  /** The version of the Flink runtime on the class path. */
  public static String flinkVersion() {
    return EnvironmentInformation.getVersion();
  }

  static void deleteFolder(Path folder) {
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      List<Path> all = paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
      for (Path path : all) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the local Flink cluster's folder " + folder, e);
    }
  }
}
