package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.CheckpointStatsCounts;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local cluster: REST API and web UI answer on the printed loopback port, a bounded job runs to its end, an
 * unbounded one is cancelled, and {@link LocalFlink#close()} frees the port, removes the folder and leaves no
 * non-daemon thread. Why this can fail: a cluster left running keeps its port and threads; a web UI missing from
 * the class path answers 404.
 */
class LocalFlinkTest {

  @Test
  void servesTheWebUiRunsAndCancelsJobsAndLeavesNothingWhenClosed() throws Exception {
    Set<Thread> before = DemoTest.nonDaemonThreads();
    List<String> progress = new ArrayList<>();
    LocalFlink flink = LocalFlink.builder().slots(2).configuration(new Configuration()).progress(progress::add).start();
    int port = flink.restPort();
    Path folder = flink.folder();
    try {
      assertThat(flink.webUrl().getHost()).isEqualTo("127.0.0.1");
      assertThat(progress.get(0)).contains("web UI and REST API on " + flink.webUrl()).contains("2 task slots");
      assertThat(get(flink.webUrl() + "/")).contains("<html");               // the dashboard (flink-runtime-web)
      assertThat(get(flink.webUrl() + "/overview")).contains("\"slots-total\":2");

      StreamExecutionEnvironment bounded = new StreamExecutionEnvironment(new Configuration());
      bounded.fromSequence(1, 1_000).sinkTo(new DiscardingSink<>());
      JobID done = flink.submit(bounded, "bounded");
      JobResult result = flink.awaitResult(done, Duration.ofSeconds(60));
      assertThat(result.isSuccess()).isTrue();

      StreamExecutionEnvironment unbounded = new StreamExecutionEnvironment(new Configuration());
      unbounded.fromSequence(1, Long.MAX_VALUE).sinkTo(new DiscardingSink<>());
      JobID running = flink.submit(unbounded, "unbounded");
      flink.awaitStatus(running, JobStatus.RUNNING, Duration.ofSeconds(60));
      assertThat(flink.cancel(running, Duration.ofSeconds(60))).isEqualTo(JobStatus.CANCELED);

      // a job whose task fails on every start never reaches RUNNING (with checkpointing on, Flink restarts it
      // without end): the timeout says so, with the task states and the failure
      Configuration checkpointing = new Configuration();
      checkpointing.set(org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL,
          Duration.ofSeconds(1));
      StreamExecutionEnvironment failing = new StreamExecutionEnvironment(checkpointing);
      failing.fromSequence(1, Long.MAX_VALUE).map(new FailsOnOpen()).sinkTo(new DiscardingSink<>());
      JobID broken = flink.submit(failing, "failing");
      // the message names the latest failure once there is one: on a loaded machine the first deployment can take
      // longer than a fixed wait, so the test waits for a failure first; the timeout below, which runs out by
      // design, then only has to be long enough to be one (it was 6 s: 5 s of this test spent waiting)
      awaitCondition(() -> flink.latestFailure(broken) != null, "a failure of job " + broken);
      assertThatThrownBy(() -> flink.awaitStatus(broken, JobStatus.RUNNING, Duration.ofSeconds(1)))
          .hasMessageContaining("not RUNNING").hasMessageContaining("tasks: ")
          .hasMessageContaining("its latest failure: java.lang.IllegalStateException: boom: the task cannot open");
      flink.cancel(broken, Duration.ofSeconds(60));
      // a job that cannot get its slots is RUNNING while its tasks wait: the timeout does not say "not RUNNING
      // (it is RUNNING)"
      StreamExecutionEnvironment wide = new StreamExecutionEnvironment(new Configuration());
      wide.fromSequence(1, Long.MAX_VALUE).setParallelism(3).sinkTo(new DiscardingSink<>()).setParallelism(3);
      JobID waiting = flink.submit(wide, "too wide");
      // the job itself RUNNING (its tasks cannot be): what the 1 s wait below, which runs out by design, must then
      // report (it was 3 s; the tasks cannot get slots however long it waits)
      awaitCondition(() -> flink.status(waiting) == JobStatus.RUNNING, "job " + waiting + " RUNNING");
      assertThatThrownBy(() -> flink.awaitStatus(waiting, JobStatus.RUNNING, Duration.ofSeconds(1)))
          .hasMessageContaining("not RUNNING with all its tasks running within PT1S (it is RUNNING; tasks: ");
      flink.cancel(waiting, Duration.ofSeconds(60));
    } finally {
      flink.close();
    }
    flink.close(); // idempotent
    assertThat(folder).doesNotExist();
    DemoTest.assertBindable(port);
    assertThat(progress.get(progress.size() - 1)).contains("stopped").contains("removed");
    assertThatThrownBy(() -> flink.submit(new StreamExecutionEnvironment(), "late"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    Set<Thread> left = DemoTest.nonDaemonThreads();
    left.removeAll(before);
    for (long deadline = System.nanoTime() + 5_000_000_000L; !left.isEmpty() && System.nanoTime() < deadline; ) {
      Thread.sleep(100);
      left.removeIf(t -> !t.isAlive());
    }
    assertThat(left.stream().map(Thread::getName).collect(Collectors.toList())).isEmpty();
  }

  /**
   * Cancelling between checkpoints: the checkpoint in progress (each takes 1 s here, every 2 s) completes first, and
   * none is aborted, so Flink reports no failed checkpoint (a plain cancel aborts it: 1 failed). Why this can fail:
   * a cancel that does not wait for the checkpoint in progress.
   */
  /**
   * A cluster that does not start within the start timeout (here 1 ms; a Flink 2.2 cluster on Java 25 with too small
   * a common pool can hang in its start without end, see {@link CommonPool}) ends in an exception that says so, and
   * is closed, its folder removed. Why this can fail: a start waited for without a bound hangs the demo; a cluster not closed after the
   * timeout leaves its folder and threads.
   */
  @Test
  void aClusterNotStartedWithinTheTimeoutIsReportedAndClosed(@TempDir Path tmp) throws Exception {
    // a folder of its own: the other test JVM's clusters come and go in java.io.tmpdir meanwhile
    Set<Path> foldersBefore = localFlinkFolders(tmp);
    Set<Thread> before = DemoTest.nonDaemonThreads();
    assertThatThrownBy(() -> LocalFlink.builder().parent(tmp).startTimeout(Duration.ofMillis(1)).progress(line -> { })
        .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot start the local Flink cluster")
        .hasMessageContaining("the cluster did not start within PT0.001S");
    assertThat(localFlinkFolders(tmp)).as("cluster folders left in " + tmp).isEqualTo(foldersBefore);
    awaitCondition(() -> {
      Set<Thread> left = DemoTest.nonDaemonThreads();
      left.removeAll(before);
      return left.isEmpty();
    }, "end of the cluster's non-daemon threads");
    assertThatThrownBy(() -> LocalFlink.builder().startTimeout(Duration.ZERO))
        .hasMessage("startTimeout must be > 0, got PT0S");
  }

  private static Set<Path> localFlinkFolders(Path tmp) throws java.io.IOException {
    try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(tmp)) {
      return entries.filter(p -> p.getFileName().toString().startsWith("linerate-flink-")).collect(Collectors.toSet());
    }
  }

  @Test
  void cancelsBetweenCheckpointsSoThatNoneIsAborted() throws Exception {
    Configuration checkpointing = new Configuration();
    checkpointing.set(org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL,
        Duration.ofSeconds(2));
    try (LocalFlink flink = LocalFlink.builder().slots(1).progress(line -> { }).start()) {
      StreamExecutionEnvironment env = new StreamExecutionEnvironment(checkpointing);
      env.fromSequence(1, Long.MAX_VALUE).map(new SlowSnapshot()).sinkTo(new DiscardingSink<>());
      JobID job = flink.submit(env, "slow checkpoints");
      flink.awaitStatus(job, JobStatus.RUNNING, Duration.ofSeconds(60));
      awaitCondition(() -> flink.checkpointCounts(job) != null
          && flink.checkpointCounts(job).getNumberOfInProgressCheckpoints() > 0, "a checkpoint in progress");

      assertThat(flink.cancelBetweenCheckpoints(job, Duration.ofSeconds(30), Duration.ofSeconds(60)))
          .isEqualTo(JobStatus.CANCELED);
      CheckpointStatsCounts counts = flink.checkpointCounts(job);
      assertThat(counts.getNumberOfFailedCheckpoints()).as("aborted checkpoints").isZero();
      assertThat(counts.getNumberOfCompletedCheckpoints()).isGreaterThanOrEqualTo(1);
    }
  }

  /**
   * With the RocksDB state backend the instances live in the cluster's folder, {@code rocksdb/}, not in the
   * TaskManager's working directory ({@code minicluster_<32 hex digits>/tm_0/tmp/}, 56 characters more, which
   * took Flink's instance paths past its limit of 251 characters with a {@code java.io.tmpdir} as long as macOS's).
   * Why this can fail: the RocksDB directory not set, or not where the folder is.
   */
  @Test
  void keepsRocksDbInstancesInTheRocksdbFolder() throws Exception {
    Configuration rocksdb = new Configuration();
    rocksdb.set(org.apache.flink.configuration.StateBackendOptions.STATE_BACKEND, "rocksdb");
    try (LocalFlink flink = LocalFlink.builder().slots(1).configuration(rocksdb).progress(line -> { }).start()) {
      StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
      env.fromSequence(1, Long.MAX_VALUE).keyBy(v -> v % 4).map(new CountPerKey()).sinkTo(new DiscardingSink<>());
      JobID job = flink.submit(env, "keyed");
      flink.awaitStatus(job, JobStatus.RUNNING, Duration.ofSeconds(60));
      String prefix = "job_" + job + "_op_";
      List<Path> instances = new ArrayList<>();
      awaitCondition(() -> {
        instances.clear();
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(flink.folder(), 5)) {
          paths.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(instances::add);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
          return false; // a folder went away while walked: look again
        }
        return !instances.isEmpty();
      }, "a RocksDB instance of job " + job);
      assertThat(instances).allSatisfy(p -> assertThat(p.getParent()).isEqualTo(flink.folder().resolve("rocksdb")));
      flink.cancel(job, Duration.ofSeconds(60));
    }
  }

  /** Passes its input on; each snapshot takes 1 s. */
  static final class SlowSnapshot implements org.apache.flink.api.common.functions.MapFunction<Long, Long>,
      org.apache.flink.streaming.api.checkpoint.CheckpointedFunction {
    @Override
    public Long map(Long value) {
      return value;
    }

    @Override
    public void snapshotState(org.apache.flink.runtime.state.FunctionSnapshotContext context)
        throws InterruptedException {
      Thread.sleep(1_000);
    }

    @Override
    public void initializeState(org.apache.flink.runtime.state.FunctionInitializationContext context) {
    }
  }

  /** A count per key in keyed state: the operator has a keyed state backend. */
  static final class CountPerKey extends org.apache.flink.api.common.functions.RichMapFunction<Long, Long> {
    private transient org.apache.flink.api.common.state.ValueState<Long> count;

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) {
      count = getRuntimeContext().getState(
          new org.apache.flink.api.common.state.ValueStateDescriptor<>("count", Long.class));
    }

    @Override
    public Long map(Long value) throws java.io.IOException {
      long next = count.value() == null ? 1 : count.value() + 1;
      count.update(next);
      return next;
    }
  }

  /** Waits up to 60 s for {@code condition}. */
  private static void awaitCondition(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline).as("no " + what + " within 60 s").isTrue();
      Thread.sleep(50);
    }
  }

  /** A task that cannot start. */
  static final class FailsOnOpen extends org.apache.flink.api.common.functions.RichMapFunction<Long, Long> {
    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) {
      throw new IllegalStateException("boom: the task cannot open");
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  private static String get(String url) throws Exception {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    try (InputStream in = c.getInputStream()) {
      assertThat(c.getResponseCode()).isEqualTo(200);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }
}
