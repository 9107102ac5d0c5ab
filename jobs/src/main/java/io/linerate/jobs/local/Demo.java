package io.linerate.jobs.local;

import io.linerate.jobs.cli.Terminals;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.linerate.jobs.kafka.EmbeddedKafka;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The demo's orchestration: starts an {@link EmbeddedKafka} broker, creates the job's topics and the broker's
 * consumer offsets topic (before the job's readers have the broker create it, which made it log a
 * {@code TOPIC_ALREADY_EXISTS} warning: {@link EmbeddedKafka#startGroupCoordinator}), starts a
 * {@link LocalFlink} cluster, submits the {@link JobLauncher}'s job, starts the {@link Feeder} on a thread of its
 * own, prints progress, and after {@code duration} (or on Ctrl-C: a shutdown hook) stops the feeder, lets the job
 * {@linkplain JobLauncher#drain drain}, cancels it (between two of its checkpoints: {@link #CHECKPOINT_WAIT}), and
 * stops the cluster and the broker — the reverse order of
 * their start — deleting their temporary folders (the topics go with the broker's folder).
 *
 * <p>On Ctrl-C (or {@link #stop()}) the run ends without waiting for the job's output. Ctrl-C (SIGINT, or
 * SIGTERM) runs the demo's one shutdown hook: it asks {@link #run()} to stop and waits (at most 60 s) while the
 * thread of {@code run()} stops the feeder, cancels the job, stops the cluster and then the broker, in that order.
 * The broker is started {@linkplain EmbeddedKafka.Builder#shutdownHook(boolean) without a hook of its own}: the JVM
 * runs hooks concurrently, and a broker hook stopped the broker under the flushing feeder and the committing job,
 * which then waited for timeouts (11–30 s); in order the teardown takes about 1–2 s. The JVM then exits with 130
 * (SIGINT) or 143 (SIGTERM), whatever {@code run()} returns.
 *
 * <p>Progress goes to {@code out}: one line per step, and while the job runs a status line (what the feeder sent,
 * in its {@linkplain Feeder#unit() unit}: packets or events; job status, completed checkpoints) refreshed in place on a terminal, printed every {@code progressInterval}
 * otherwise.
 */
public final class Demo {

  /** Topic names the demo creates. */
  public static final String INPUT_TOPIC = "linerate-demo-input";
  public static final String OUTPUT_TOPIC = "linerate-demo-output";
  public static final String DEAD_LETTER_TOPIC = "linerate-demo-dead-letters";

  /**
   * How long the teardown waits for a checkpoint in progress to complete before it cancels the job
   * ({@link LocalFlink#cancelBetweenCheckpoints}); one of the demo's takes well under a second.
   */
  static final Duration CHECKPOINT_WAIT = Duration.ofSeconds(5);

  /**
   * How long the start waits for the broker's group coordinator ({@link EmbeddedKafka#startGroupCoordinator}); it
   * takes well under a second.
   */
  static final Duration COORDINATOR_TIMEOUT = Duration.ofSeconds(30);

  private final JobLauncher job;
  private final Feeder feeder;
  private final Configuration flinkConfiguration;
  private final int slots;
  private final int partitions;
  private final Duration duration;
  private final PrintStream out;
  private final boolean terminal;
  private final Duration progressInterval;
  private final Consumer<JobTopics> beforeStop;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  /** Guards {@link #draining}: the shutdown hook interrupts {@link #runner} only inside a drain. */
  private final Object drainLock = new Object();
  private boolean draining;
  private volatile Thread runner;
  /** Set by the shutdown hook: the JVM is exiting (Ctrl-C, SIGTERM, System.exit elsewhere). */
  private volatile long interruptedAt;

  private Demo(Builder b) {
    this.job = b.job;
    this.feeder = b.feeder;
    this.flinkConfiguration = b.flinkConfiguration;
    this.slots = b.slots;
    this.partitions = b.partitions;
    this.duration = b.duration;
    this.out = b.out;
    this.terminal = b.terminal;
    this.progressInterval = b.progressInterval;
    this.beforeStop = b.beforeStop;
  }

  /** A demo running {@code job} fed by {@code feeder}. */
  public static Builder builder(JobLauncher job, Feeder feeder) {
    return new Builder(job, feeder);
  }

  /**
   * What a run did.
   *
   * @param recordsFed what the feeder reported as sent, in its {@linkplain Feeder#unit() unit} (packets, events)
   * @param jobStatus the job's status when the demo stopped it ({@code RUNNING} when it ran until the end)
   * @param drained whether the job's output was complete for the input ({@link JobLauncher#drain})
   * @param stoppedEarly whether Ctrl-C or {@link Demo#stop()} ended the run (then there is no drain)
   * @param failure what went wrong, or null
   */
  public record Result(long recordsFed, JobStatus jobStatus, boolean drained, boolean stoppedEarly,
      Throwable failure) {
    /**
     * No failure, the job ran until the demo stopped it, and its output was complete (or the user stopped the run
     * before its end, so nothing was waited for).
     */
    public boolean succeeded() {
      return failure == null && jobStatus == JobStatus.RUNNING && (drained || stoppedEarly);
    }
  }

  /** Asks a running {@link #run()} to stop, as Ctrl-C does. */
  public void stop() {
    stopRequested.countDown();
  }

  /**
   * What Ctrl-C does (the shutdown hook): says so, asks the run to stop, and cuts a drain short (a drain waits on
   * its own clock, minutes with a long checkpoint interval, and the hook's wait for the teardown is bounded).
   */
  void signal() {
    interruptedAt = System.nanoTime();
    out.println();
    out.println("interrupted: stopping the feeder, the job, the Flink cluster and the Kafka broker, in that order");
    out.flush();
    stop();
    synchronized (drainLock) { // only inside a drain: an interrupt must not reach the teardown
      if (draining) {
        runner.interrupt();
      }
    }
  }

  /**
   * Runs the demo until {@code duration} has passed since the job started running, or {@link #stop()} / Ctrl-C,
   * or the job or the feeder fails; then stops and removes everything. Returns what happened; exceptions of the
   * start (a broker or cluster that cannot start) are thrown after the cleanup.
   */
  public Result run() {
    CountDownLatch finished = new CountDownLatch(1);
    runner = Thread.currentThread();
    Thread hook = new Thread(() -> {
      signal();
      try {
        finished.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "linerate-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    Deque<AutoCloseable> started = new ArrayDeque<>();
    long begin = System.nanoTime();
    Result result = null;
    Throwable thrown = null; // unchecked only: runStarted throws no checked exception
    try {
      result = runStarted(started);
    } catch (RuntimeException | Error e) {
      thrown = e;
    }
    try {
      // every step is tried and each failure printed; one does not replace the run's own result or exception
      RuntimeException teardown = closeAll(started);
      String whatIsLeft = teardown == null ? "everything it started is stopped and its files removed"
          : "its teardown failed (above)";
      long end = System.nanoTime();
      long interrupted = interruptedAt;
      if (interrupted != 0) {
        out.printf(Locale.ROOT, "demo stopped on interrupt after %.1f s (teardown %.1f s); %s%n", (end - begin) / 1e9,
            (end - interrupted) / 1e9, whatIsLeft);
      } else {
        out.printf(Locale.ROOT, "demo stopped after %.1f s; %s%n", (end - begin) / 1e9, whatIsLeft);
      }
      out.flush();
      if (teardown != null) {
        if (thrown != null) {
          thrown.addSuppressed(teardown);
        } else if (result.failure() == null) {
          result = new Result(result.recordsFed(), result.jobStatus(), result.drained(), result.stoppedEarly(),
              teardown);
        }
      }
    } finally {
      // always, or the hook would hold the JVM's exit for its whole wait
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is what waits for this
      }
    }
    if (thrown instanceof Error error) {
      throw error;
    }
    if (thrown != null) {
      throw (RuntimeException) thrown;
    }
    return result;
  }

  private Result runStarted(Deque<AutoCloseable> started) {
    out.println("linerate demo: " + job.description());
    out.println("traffic: " + feeder.description());
    // no hook of its own: the demo's hook stops it last, after the feeder and the job that use it
    EmbeddedKafka kafka = EmbeddedKafka.builder().shutdownHook(false).progress(out::println).start();
    started.push(kafka);
    JobTopics topics = new JobTopics(kafka.bootstrapServers(), INPUT_TOPIC, OUTPUT_TOPIC, DEAD_LETTER_TOPIC);
    kafka.createTopics(partitions, topics.names().toArray(new String[0]));
    // before the job's readers: their first offset commits had the broker create the offsets topic, racing
    Duration coordinatorStart = kafka.startGroupCoordinator(COORDINATOR_TIMEOUT);
    out.printf(Locale.ROOT, "topics %s created (%d partitions each), group coordinator started in %.1f s%n",
        String.join(", ", topics.names()), partitions, coordinatorStart.toNanos() / 1e9);
    if (stopping()) {
      return new Result(0, JobStatus.CREATED, false, true, null);
    }

    AtomicReference<JobID> submitted = new AtomicReference<>();
    // after the cluster has stopped: its checkpoint cleaner has then discarded the cancelled job's checkpoints
    started.push(() -> removeEmptyCheckpointFolder(submitted.get()));
    LocalFlink flink = LocalFlink.builder().slots(slots).configuration(flinkConfiguration).progress(out::println).start();
    started.push(flink);
    if (stopping()) { // a Ctrl-C during the cluster's start: no job, no feeder
      return new Result(0, JobStatus.CREATED, false, true, null);
    }
    StreamExecutionEnvironment env = new StreamExecutionEnvironment(jobConfiguration(flink.folder()));
    job.define(env, topics);
    JobID jobId = flink.submit(env, job.name());
    submitted.set(jobId);
    started.push(() -> {
      // not in the middle of a checkpoint: its abort would print a failed checkpoint the demo itself caused
      JobStatus status = flink.cancelBetweenCheckpoints(jobId, CHECKPOINT_WAIT, Duration.ofSeconds(60));
      out.println("job " + job.name() + " " + status);
    });
    try {
      synchronized (drainLock) {
        draining = !stopping(); // a Ctrl-C may interrupt this wait as it does a drain
      }
      flink.awaitStatus(jobId, JobStatus.RUNNING, Duration.ofSeconds(60));
    } catch (InterruptedException e) {
      if (stopping()) {
        return new Result(0, flink.status(jobId), false, true, null);
      }
      Thread.currentThread().interrupt();
      return new Result(0, flink.status(jobId), false, false, e);
    } finally {
      synchronized (drainLock) {
        draining = false;
        if (stopping()) {
          Thread.interrupted(); // an interrupt meant for the wait must not reach the teardown
        }
      }
    }
    if (stopping()) {
      return new Result(0, flink.status(jobId), false, true, null);
    }
    out.println("job " + job.name() + " running (" + jobId + "); see " + flink.webUrl());

    FeedContext feed = new FeedContext(kafka.bootstrapServers(), topics.input());
    AtomicReference<Throwable> feederFailure = new AtomicReference<>();
    Thread feederThread = new Thread(() -> {
      try {
        feeder.feed(feed);
      } catch (InterruptedException e) {
        // stopped
      } catch (Throwable t) {
        feederFailure.set(t);
        stop();
      }
    }, "linerate-demo-feeder");
    feederThread.start();
    started.push(() -> stopFeeder(feed, feederThread));
    out.println(duration.isZero() ? "running until Ctrl-C" : "running for " + duration.toSeconds() + " s (or until Ctrl-C)");

    LiveView view = job.liveView(topics, terminal);
    if (view != null) {
      started.push(view); // open until the teardown: after the drain it prints its final frame
    }
    JobStatus status = watch(flink, jobId, feed, view);
    if (terminal) {
      out.println();
    }
    try {
      stopFeeder(feed, feederThread);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(feed.sentCount(), status, false, stopping(), e);
    }
    out.printf(Locale.ROOT, "feeder stopped: %,d %s fed%n", feed.sentCount(), feeder.unit());
    if (feederFailure.get() != null) {
      out.println("the feeder failed: " + feederFailure.get());
      return new Result(feed.sentCount(), status, false, false, feederFailure.get());
    }
    if (status.isGloballyTerminalState()) {
      String cause = flink.latestFailure(jobId);
      IllegalStateException failure = new IllegalStateException("job " + job.name() + " is " + status
          + (cause == null ? "" : ": " + cause));
      out.println("the job stopped on its own: " + status
          + (cause == null ? "" : ", after " + LocalFlink.rootCauseLine(cause)));
      return new Result(feed.sentCount(), status, false, false, failure);
    }
    if (stopping()) {
      out.println("stopped before the end: not waiting for the job's output (uncommitted output is aborted)");
      return new Result(feed.sentCount(), status, false, true, null);
    }
    boolean drained;
    try {
      Duration drainTimeout = Duration.ofSeconds(30).plus(
          flinkConfiguration.get(CheckpointingOptions.CHECKPOINTING_INTERVAL,
              Duration.ofSeconds(10)).multipliedBy(3));
      if (job.drains()) {
        out.println("draining: waiting up to " + drainTimeout.toSeconds()
            + " s for the job to commit its output (at its next checkpoint)");
      } else {
        out.println("nothing to drain: stopping the job (its output since its last checkpoint is aborted; flows"
            + " still open are not written)");
      }
      synchronized (drainLock) {
        draining = !stopping();
      }
      drained = draining && job.drain(topics, feed, drainTimeout, out);
      if (view != null && !stopping()) {
        view.printFinal(out); // what the drain waited for; a Ctrl-C interrupts its reads as it does the drain's
      }
    } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
      out.println("stopped while draining: not waiting for the job's output (uncommitted output is aborted)");
      return new Result(feed.sentCount(), status, false, true, null);
    } finally {
      synchronized (drainLock) {
        draining = false;
        Thread.interrupted(); // an interrupt meant for the drain must not reach the teardown
      }
    }
    if (stopping()) {
      out.println("stopped while draining: not waiting for the job's output (uncommitted output is aborted)");
      return new Result(feed.sentCount(), status, false, true, null);
    }
    if (beforeStop != null) {
      beforeStop.accept(topics);
    }
    return new Result(feed.sentCount(), flink.status(jobId), drained, false, null);
  }

  /**
   * The job's configuration: the demo's, except that checkpoints Flink would keep in the JobManager's memory (no
   * checkpoint directory: the CLI's {@code jobmanager} storage, Flink's default) go to files in the cluster's
   * folder instead, removed with it. The JobManager storage refuses a task's state above 5 MiB
   * ({@code JobManagerCheckpointStorage.DEFAULT_MAX_STATE_SIZE}, not configurable): the dedup demo's filters pass
   * that within 20 s at the default rate, and every checkpoint then failed, the job restarting in a loop.
   */
  Configuration jobConfiguration(Path clusterFolder) {
    Configuration conf = new Configuration(flinkConfiguration);
    String dir = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
    String storage = conf.get(CheckpointingOptions.CHECKPOINT_STORAGE);
    if ((dir == null || dir.isBlank()) && (storage == null || storage.equalsIgnoreCase("jobmanager"))) {
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, LocalFlink.flinkPath(clusterFolder.resolve("checkpoints")));
    }
    return conf;
  }

  /** {@code d} in nanoseconds, or Long.MAX_VALUE past 292 years (a run that long is as good as endless). */
  static long nanosOrMax(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * Prints the status line (and the job's live view, if it has one) until the time is up, a stop is requested,
   * or the job leaves RUNNING. On a terminal a live view replaces the status line, which would break its redraw.
   */
  private JobStatus watch(LocalFlink flink, JobID jobId, FeedContext feed, LiveView view) {
    long begin = System.nanoTime();
    long limit = duration.isZero() ? Long.MAX_VALUE : nanosOrMax(duration); // elapsed time: no end to overflow
    long tick = terminal ? Duration.ofSeconds(1).toNanos() : progressInterval.toNanos();
    long nextLine = begin + tick;
    long lastFailure = 0; // a failure before the first read is reported too
    while (true) {
      JobStatus status = flink.status(jobId);
      long now = System.nanoTime();
      // by the failure's time, not by a status change: a restart can be over (RUNNING again) between two reads
      long failure = flink.latestFailureTime(jobId);
      if (failure != lastFailure && !status.isGloballyTerminalState()) {
        // a task failed and Flink restarts the job from its last checkpoint (the jobs are built for that): go on
        out.println((terminal ? "\n" : "") + "job " + status + " after a failure: "
            + LocalFlink.rootCauseLine(flink.latestFailure(jobId)));
      }
      lastFailure = failure;
      if (status.isGloballyTerminalState() || now - begin >= limit || stopping()) {
        return status;
      }
      if (view != null && view.poll(Duration.ofMillis(100))) {
        view.print(out);
      }
      if (now >= nextLine && (view == null || !terminal)) {
        String line = String.format(Locale.ROOT, "%6.0f s  fed %,d %s  job %s  checkpoints %d",
            (now - begin) / 1e9, feed.sentCount(), feeder.unit(), status, flink.completedCheckpoints(jobId));
        if (terminal) {
          out.print("\r" + line + "   ");
          out.flush();
        } else {
          out.println(line);
        }
        nextLine += tick;
      }
      try {
        stopRequested.await(Math.min(100, Math.max(1, Math.min(limit - (now - begin), nextLine - now) / 1_000_000)),
            TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return status;
      }
    }
  }

  /**
   * With a local checkpoint directory Flink leaves {@code <dir>/<job id>/} behind, empty once the cancelled job's
   * checkpoints are discarded: removed here; a folder still holding files (retained checkpoints) stays.
   */
  private void removeEmptyCheckpointFolder(JobID jobId) throws IOException {
    String dir = flinkConfiguration.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
    if (jobId == null || dir == null || dir.isBlank()) {
      return;
    }
    Path base;
    try {
      // parsed as Flink parses it: "file:///a b/c" (a space, unescaped) and "file://localhost/..." are accepted
      URI uri = new org.apache.flink.core.fs.Path(dir).toUri();
      if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
        return; // a remote file system: left to its owner
      }
      base = Path.of(uri.getPath());
    } catch (IllegalArgumentException e) { // also java.nio.file.InvalidPathException
      out.println("checkpoint folder " + dir + " not cleaned up: " + e.getMessage());
      return;
    }
    Path jobFolder = base.resolve(jobId.toString());
    if (!Files.isDirectory(jobFolder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(jobFolder)) {
      if (paths.anyMatch(Files::isRegularFile)) {
        out.println("checkpoints of the job kept in " + jobFolder);
        return;
      }
    }
    LocalFlink.deleteFolder(jobFolder);
    out.println("empty checkpoint folder " + jobFolder + " removed");
  }

  private boolean stopping() {
    return stopRequested.getCount() == 0;
  }

  private static void stopFeeder(FeedContext feed, Thread feederThread) throws InterruptedException {
    feed.requestStop();
    feederThread.join(10_000);
    if (feederThread.isAlive()) {
      feederThread.interrupt();
      feederThread.join(10_000);
    }
  }

  /** Closes everything started, last first, printing each failure; returns the first (or null). */
  private RuntimeException closeAll(Deque<AutoCloseable> started) {
    RuntimeException first = null;
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        out.println("while stopping: " + e);
        if (first == null) {
          first = e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
        }
      }
    }
    return first;
  }

  /** Options of a {@link Demo}. */
  public static final class Builder {
    private final JobLauncher job;
    private final Feeder feeder;
    private Configuration flinkConfiguration = new Configuration();
    private int slots = 2;
    private int partitions = 2;
    private Duration duration = Duration.ZERO;
    private PrintStream out = System.out;
    private boolean terminal = Terminals.standardOutput();
    private Duration progressInterval = Duration.ofSeconds(5);
    private Consumer<JobTopics> beforeStop;

    private Builder(JobLauncher job, Feeder feeder) {
      this.job = Objects.requireNonNull(job, "job");
      this.feeder = Objects.requireNonNull(feeder, "feeder");
    }

    /** Flink configuration of the cluster and the job (parallelism, checkpointing, state backend). */
    public Builder flinkConfiguration(Configuration configuration) {
      this.flinkConfiguration = new Configuration(Objects.requireNonNull(configuration, "configuration"));
      return this;
    }

    /** Task slots of the local cluster, at least the job's parallelism (default 2). */
    public Builder slots(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("slots must be >= 1, got " + slots);
      }
      this.slots = slots;
      return this;
    }

    /** Partitions of each topic the demo creates (default 2). */
    public Builder partitions(int partitions) {
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
      }
      this.partitions = partitions;
      return this;
    }

    /** How long the job runs once started; zero: until Ctrl-C or {@link Demo#stop()} (default). */
    public Builder duration(Duration duration) {
      if (duration.isNegative()) {
        throw new IllegalArgumentException("duration must be >= 0, got " + duration);
      }
      this.duration = duration;
      return this;
    }

    /** Where progress lines go (default {@code System.out}). */
    public Builder out(PrintStream out) {
      this.out = Objects.requireNonNull(out, "out");
      return this;
    }

    /** Whether {@code out} is a terminal (status line refreshed in place); default: whether a console is attached. */
    public Builder terminal(boolean terminal) {
      this.terminal = terminal;
      return this;
    }

    /** Time between status lines when not on a terminal (default 5 s). */
    public Builder progressInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("progressInterval must be > 0, got " + interval);
      }
      this.progressInterval = interval;
      return this;
    }

    /** Called after the job drained, before anything stops, e.g. to read the topics back (tests). */
    public Builder beforeStop(Consumer<JobTopics> beforeStop) {
      this.beforeStop = beforeStop;
      return this;
    }

    public Demo build() {
      int parallelism = flinkConfiguration.get(CoreOptions.DEFAULT_PARALLELISM);
      if (parallelism > slots) {
        throw new IllegalArgumentException("slots must be >= the parallelism " + parallelism + ", got " + slots);
      }
      return new Demo(this);
    }
  }
}
