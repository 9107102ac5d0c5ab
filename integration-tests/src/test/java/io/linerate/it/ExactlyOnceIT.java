package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import io.linerate.it.broker.BrokerExtension;
import io.linerate.jobs.cli.FlinkOptions.StateBackend;
import io.linerate.jobs.feed.TrafficSource;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once guarantees of the three jobs, each proven by comparing what a run committed (read_committed) with
 * the failure-free run of the same input ({@link ReferenceRuns}), record for record:
 * <ul>
 *   <li>{@link #committedOutputEqualsTheFailureFreeRun}: while the job consumes a live topic (written at a steady
 *       pace over {@link Scale#feedSeconds}), a TaskManager is killed three times at random moments (seeded), each
 *       after a checkpoint completed since the previous restore; the job restores from its latest checkpoint each
 *       time;</li>
 *   <li>{@link #savepointAtTwoRescaledToFourThenOne}: the input in three parts; after each part the job stops with
 *       a savepoint and starts again from it, at parallelism 2, then 4, then 1;</li>
 *   <li>{@link #brokerRestartMidRun}: the Kafka broker is stopped and started again while the job runs; with a short
 *       checkpoint timeout the job must fail over and restore a checkpoint, with the jobs' own (at the full scale
 *       only) it must ride the outage out ({@link Outage}).</li>
 * </ul>
 * The first two run every job on the heap state backend and, on RocksDB ({@code state.backend.type: rocksdb}, what
 * the jobs' {@code --state-backend rocksdb} sets), where the operators keep the structures of recent scopes live in a
 * write-back cache (here {@link Workload#stateCache}: about two scopes, so structures are written back and read
 * again between checkpoints, except the heavy hitters' at the full scale, see
 * {@link Workload#evictsBetweenCheckpoints}): the flow meter's failures with incremental checkpoints
 * ({@link CheckpointKind}; the test checks that the checkpoints restored held RocksDB's incremental state) and the
 * heavy hitters' rescale with full ones in every build; with {@code -Dlinerate.it.rocksdb=all} (the {@code it-full}
 * profile) every job's failures with both kinds and every job's rescale with full ones. Every run is compared with
 * the same failure-free heap run.
 * A record lost or written twice by a replay, or a state not restored (or not redistributed) exactly, makes the
 * outputs differ; the message lists the records missing and in excess. The operators are deterministic for a fixed
 * seed and per-scope order, and each scope's records are in one partition, so equality is the right test.
 */
class ExactlyOnceIT {

  static final int FAILURES = 3;
  /**
   * {@code all}: every job on RocksDB too, the failures with full and incremental checkpoints ({@code it-full});
   * {@code default}: the two runs named in the class.
   */
  static final String ROCKSDB_PROPERTY = "linerate.it.rocksdb";

  @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
  @RegisterExtension static final MiniClusterExtension FLINK = ItCluster.extension();

  @TempDir static Path tmp;
  static ReferenceRuns references;
  static TaskManagerKiller killer;
  static ExecutorService writerThread;

  @BeforeAll
  static void setUp(@InjectMiniCluster MiniCluster cluster) {
    references = new ReferenceRuns(Scale.current());
    killer = new TaskManagerKiller(cluster, ItCluster.TASK_MANAGERS);
    writerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "input-writer"));
  }

  @AfterAll
  static void tearDown() {
    writerThread.shutdownNow();
  }

  /**
   * RocksDB's checkpoints: full (every checkpoint writes the whole state) or incremental ({@code
   * execution.checkpointing.incremental}: RocksDB's files, each uploaded once and shared by later checkpoints). The
   * heap backend's are always full.
   */
  enum CheckpointKind {
    FULL, INCREMENTAL;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The runs of {@link #committedOutputEqualsTheFailureFreeRun}: every job on heap, and on RocksDB (see the class)
   * with incremental checkpoints, and with {@value #ROCKSDB_PROPERTY}{@code =all} with full ones too. (RocksDB
   * restores both the same way, from its files: a full checkpoint's are all its own, an incremental one's partly
   * uploaded by earlier checkpoints; the incremental ones add the sharing.)
   */
  static Stream<Arguments> failureRuns() {
    return runs(Workload.FLOW_METER, CheckpointKind.INCREMENTAL, CheckpointKind.values());
  }

  /**
   * The runs of {@link #savepointAtTwoRescaledToFourThenOne}: every job on heap, and on RocksDB (see the class) with
   * full checkpoints. Its restores read canonical savepoints, whatever the checkpoints: RocksDB's key groups, not its
   * files, so the kind of checkpoint matters little here.
   */
  static Stream<Arguments> rescaleRuns() {
    return runs(Workload.HEAVY_HITTERS, CheckpointKind.FULL, CheckpointKind.FULL);
  }

  /**
   * Every workload on heap, then on RocksDB: {@code onRocksDbByDefault} with {@code byDefault} checkpoints only,
   * unless {@value #ROCKSDB_PROPERTY} is {@code all}: then every workload with each of {@code inAll}. (Each RocksDB
   * run costs as much as a heap run, about 15 s at the reduced size on 2 cores.)
   */
  private static Stream<Arguments> runs(Workload onRocksDbByDefault, CheckpointKind byDefault,
      CheckpointKind... inAll) {
    String rocksDb = System.getProperty(ROCKSDB_PROPERTY, "default").trim();
    if (!rocksDb.equals("default") && !rocksDb.equals("all")) {
      throw new IllegalArgumentException(ROCKSDB_PROPERTY + " must be default or all, got '" + rocksDb + "'");
    }
    Stream<Arguments> heap = Arrays.stream(Workload.values())
        .map(w -> Arguments.of(w, StateBackend.HEAP, CheckpointKind.FULL));
    Stream<Arguments> rocks = rocksDb.equals("all")
        ? Arrays.stream(inAll).flatMap(k -> Arrays.stream(Workload.values())
            .map(w -> Arguments.of(w, StateBackend.ROCKSDB, k)))
        : Stream.of(Arguments.of(onRocksDbByDefault, StateBackend.ROCKSDB, byDefault));
    return Stream.concat(heap, rocks);
  }

  /** How the test log names a run: the job and backend, and on RocksDB the kind of checkpoints. */
  private static String label(Workload w, StateBackend backend, CheckpointKind checkpoints) {
    return w + " on " + backend + (backend == StateBackend.HEAP ? "" : ", " + checkpoints + " checkpoints");
  }

  @ParameterizedTest(name = "{0} on {1}, {2} checkpoints")
  @MethodSource("failureRuns")
  @Timeout(900)
  void committedOutputEqualsTheFailureFreeRun(Workload w, StateBackend backend, CheckpointKind checkpoints,
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Scale scale = Scale.current();
    Start start = start("failures", w, backend, checkpoints, cluster);
    String name = label(w, backend, checkpoints);
    String prefix = start.prefix();
    JobTopics topics = start.topics();
    long units = w.units(scale);
    SplittableRandom random = new SplittableRandom(ReferenceRuns.SEED + w.ordinal() + 10L * backend.ordinal());
    long[] killAtMs = killTimes(random, scale.feedSeconds * 1000L);
    System.out.printf(Locale.ROOT, "[%s] %d units over %d s, TaskManager kills at %s ms%n", name, units,
        scale.feedSeconds, Arrays.toString(killAtMs));
    List<Map<String, Integer>> restored = new ArrayList<>();

    long begin = System.nanoTime();
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS);
        JobRun run = JobRun.of(cluster, job(w, backend), topics).parallelism(2).stateBackend(backend)
            .set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, checkpoints == CheckpointKind.INCREMENTAL)
            // the restored checkpoint's files stay until five newer ones completed: time to read its metadata
            .set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 5)
            .checkpointDir(Files.createDirectories(tmp.resolve(prefix))).start()) {
      run.awaitCheckpointAfter(0, Duration.ofMinutes(2));
      long feedBegin = System.nanoTime();
      Future<Long> feeding = writerThread.submit(
          () -> writer.write(w.traffic(units, ReferenceRuns.SEED).source(), Long.MAX_VALUE,
              units / (double) scale.feedSeconds));
      long checkpointsAtLastKill = run.completedCheckpoints();
      int killsWhileFeeding = 0;
      for (long at : killAtMs) {
        long wait = at - (System.nanoTime() - feedBegin) / 1_000_000;
        if (wait > 0) {
          Thread.sleep(wait);
        }
        // a failure only tests recovery from a checkpoint if one completed since the last restart
        run.awaitCheckpointAfter(checkpointsAtLastKill, Duration.ofMinutes(2));
        long restores = run.restoredCheckpoints();
        // the killer picks a TaskManager running the job's tasks; should the job move meanwhile, kill again
        // until it restores from its checkpoint
        for (int attempt = 1; run.restoredCheckpoints() == restores; attempt++) {
          assertThat(attempt).as("TaskManager kills before the job restarted").isLessThanOrEqualTo(4);
          int index = killer.killOneRunning(random, run);
          boolean fed = feeding.isDone();
          System.out.printf(Locale.ROOT, "[%s] killed TaskManager %d at %d ms (feeding %s)%n", name, index,
              (System.nanoTime() - feedBegin) / 1_000_000, fed ? "done" : "in progress");
          if (!fed) {
            killsWhileFeeding++;
          }
          if (run.awaitRestoreAfter(restores, Duration.ofSeconds(5))) {
            restored.add(run.restoredKeyedState());
          }
        }
        checkpointsAtLastKill = run.completedCheckpoints();
      }
      // the kill times lie within the feed; each waits for a checkpoint first, so on a slow machine the feed may
      // end before the last ones, but a run whose failures all came after the input was written tests less
      assertThat(killsWhileFeeding).as("TaskManager kills while the input was still being written").isPositive();
      assertThat(feeding.get()).isEqualTo(units);
      writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
      run.awaitSettled(Duration.ofMinutes(5));
      assertThat(run.restoredCheckpoints())
          .as("restores from a checkpoint (one per TaskManager kill)").isGreaterThanOrEqualTo(FAILURES);
      // the restarts the broker test reports are read the same way: here they must count the kills
      assertThat(run.restarts()).as("restarts (numRestarts), one per TaskManager kill")
          .isGreaterThanOrEqualTo(FAILURES);
      System.out.printf(Locale.ROOT, "[%s] %d restarts, %d restores, %d checkpoints, settled after %.1f s; keyed "
          + "state handles of the checkpoints restored after the kills: %s%n", name, run.restarts(),
          run.restoredCheckpoints(), run.completedCheckpoints(), (System.nanoTime() - begin) / 1e9, restored);
      assertRestoredKind(name, backend, checkpoints, restored);
      // at parallelism 2 a subtask keys six of the eight observation points (or the end markers' scopes beside its
      // tenants), read after the last restart
      assertStateBackendUsed(w, backend, run, true);
    }
    assertSameAsReference(w, topics, start.expected());
    assertThat(start.expected().get(0)).as("the reference run produced output").isNotEmpty();
  }

  /**
   * Savepoint and rescale: the same input in three parts of a third each; the job at parallelism 2 consumes part
   * 1 and stops with a savepoint, taken mid-stream (the part is still being written at a steady pace, records are in
   * flight and the sinks' transaction is open); it starts again from it at parallelism 4 (key groups redistributed over twice the
   * subtasks, Kafka splits reassigned) for part 2 and stops with a savepoint; then at parallelism 1 for part 3 and
   * the end markers. Windows, flows and dedup generations open across the stops must carry on exactly.
   */
  @ParameterizedTest(name = "{0} on {1}, {2} checkpoints")
  @MethodSource("rescaleRuns")
  @Timeout(900)
  void savepointAtTwoRescaledToFourThenOne(Workload w, StateBackend backend, CheckpointKind checkpoints,
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Scale scale = Scale.current();
    Start start = start("rescale", w, backend, checkpoints, cluster);
    String name = label(w, backend, checkpoints);
    String prefix = start.prefix();
    JobTopics topics = start.topics();
    long units = w.units(scale);
    Path checkpointDir = Files.createDirectories(tmp.resolve(prefix));
    int[] parallelisms = {2, 4, 1};
    String savepoint = null;
    long written = 0;
    TrafficSource source = w.traffic(units, ReferenceRuns.SEED).source();
    SplittableRandom random = new SplittableRandom(ReferenceRuns.SEED + 100 + w.ordinal() + 10L * backend.ordinal());
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS)) {
      Future<Long> partOne = null;
      for (int part = 0; part < parallelisms.length; part++) {
        long begin = System.nanoTime();
        boolean last = part == parallelisms.length - 1;
        if (part == 1) {
          written += partOne.get(); // the first part's writer finishes while this part's job reads it
        }
        if (part > 0) {
          written += writer.write(source, last ? Long.MAX_VALUE : units / parallelisms.length, 0);
        }
        if (last) {
          writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
        }
        try (JobRun run = JobRun.of(cluster, job(w, backend), topics).parallelism(parallelisms[part])
            .stateBackend(backend).checkpointDir(checkpointDir)
            .set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, checkpoints == CheckpointKind.INCREMENTAL)
            .fromSavepoint(savepoint).start()) {
          boolean midStream = false;
          if (part == 0) {
            // the first savepoint is taken mid-stream: while the first part is still being written at a steady pace,
            // at a seeded moment, with records in flight and the sinks' transaction open
            run.awaitCheckpointAfter(0, Duration.ofMinutes(2));
            double partSeconds = scale.feedSeconds / (double) parallelisms.length;
            partOne = writerThread.submit(() -> writer.write(source, units / parallelisms.length,
                units / (double) scale.feedSeconds));
            Thread.sleep((long) (partSeconds * 1000 * (0.2 + 0.5 * random.nextDouble())));
            midStream = !partOne.isDone();
            assertThat(midStream).as("the first savepoint is taken while its part is still being written").isTrue();
          } else {
            run.awaitSettled(Duration.ofMinutes(5));
            // at parallelism 1 the one subtask keys every scope; at 4, maybe no more than the cache holds
            assertStateBackendUsed(w, backend, run, last);
          }
          if (savepoint != null) {
            assertThat(run.restoredCheckpoints()).as("restored from the savepoint").isEqualTo(1);
          }
          // the rescale really happened: every vertex runs at this part's parallelism (a job or operator that set
          // its own would run 2 -> 2 -> 2 and compare equal all the same)
          int expectedParallelism = parallelisms[part];
          assertThat(run.vertexParallelisms()).as("parallelism of the job's vertices in part %d", part + 1)
              .isNotEmpty().allSatisfy((vertex, p) -> assertThat(p).as(vertex).isEqualTo(expectedParallelism));
          String from = savepoint;
          if (!last) {
            savepoint = run.stopWithSavepoint(Files.createDirectories(checkpointDir.resolve("savepoints")));
            if (midStream) {
              System.out.printf(Locale.ROOT, "[%s] part 1: stopped with a savepoint mid-stream, %s%n", name,
                  partOne.isDone() ? "its writer done meanwhile" : "its writer still writing");
            }
          }
          System.out.printf(Locale.ROOT, "[%s] part %d at parallelism %d: %d units written so far, %s%s "
              + "(%.1f s)%n", name, part + 1, parallelisms[part], written,
              from == null ? "fresh start" : "restored from " + from,
              last ? "" : ", stopped with savepoint " + savepoint, (System.nanoTime() - begin) / 1e9);
        }
      }
    }
    assertThat(written).isEqualTo(units);
    assertSameAsReference(w, topics, start.expected());
  }

  /**
   * Broker restart: while the job consumes a live topic, the Kafka broker stops for a few seconds and starts again at
   * the same address with its data ({@link io.linerate.jobs.kafka.KafkaBroker#restart}). The job's source and sinks
   * lose their connections, and how the job gets through depends on its checkpoint timeout ({@link Outage}): it
   * fails over (a checkpoint expires during the outage, none is tolerated, and the job restores the last one
   * completed before it) or, with the timeout the jobs set (minutes), rides the outage out on client retries.
   * The test asserts the path its {@link Outage} says, from the job's restarts (the scheduler's {@code
   * numRestarts}), restores and failed checkpoints during and after the outage; that the job had not restarted
   * before the outage; that every restart restored a checkpoint; and, either way, that its committed output equals
   * the failure-free run's.
   */
  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("outages")
  @Timeout(900)
  void brokerRestartMidRun(Workload w, Outage outage, @InjectMiniCluster MiniCluster cluster) throws Exception {
    Scale scale = Scale.current();
    Start start = start("broker-" + outage.name().toLowerCase(Locale.ROOT).replace('_', '-'), w, StateBackend.HEAP,
        CheckpointKind.FULL, cluster);
    String prefix = start.prefix();
    JobTopics topics = start.topics();
    long units = w.units(scale);
    try (InputWriter writer = new InputWriter(KAFKA.bootstrapServers(), topics.input(), Workload.PARTITIONS);
        JobRun run = outage.configure(JobRun.of(cluster, w.job(false), topics).parallelism(2)
            .checkpointDir(Files.createDirectories(tmp.resolve(prefix)))).start()) {
      run.awaitCheckpointAfter(0, Duration.ofMinutes(2));
      long feedBegin = System.nanoTime();
      Future<Long> feeding = writerThread.submit(
          () -> writer.write(w.traffic(units, ReferenceRuns.SEED).source(), Long.MAX_VALUE,
              units / (double) scale.feedSeconds));
      Thread.sleep(scale.feedSeconds * 400L); // 40% of the input written
      long restoresBefore = run.restoredCheckpoints();
      long restartsBefore = run.restarts();
      long failedBefore = run.failedCheckpoints();
      long checkpointsBefore = run.completedCheckpoints();
      Duration longestBefore = run.longestRecentCheckpoint();
      assertThat(restartsBefore).as("restarts before the broker restart (nothing else fails the job)").isZero();
      assertThat(checkpointsBefore).as("checkpoints completed before the broker restart").isPositive();
      long restartBegin = System.nanoTime();
      // that the broker was really gone: its port refuses connections during the restart (probed every 100 ms)
      java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean(true);
      String[] hostPort = KAFKA.bootstrapServers().split(",")[0].split(":");
      java.net.InetSocketAddress address = new java.net.InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
      Thread probe = new Thread(() -> {
        while (probing.get()) {
          try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(address, 200);
          } catch (java.io.IOException e) {
            refused.incrementAndGet();
          }
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "broker-probe");
      probe.start();
      KAFKA.broker().restart(outage.down);
      probing.set(false);
      probe.join();
      if (KAFKA.broker() instanceof io.linerate.jobs.kafka.EmbeddedKafka) { // a container's port may stay proxied
        assertThat(refused.get()).as("connections refused while the broker was down").isPositive();
      }
      System.out.printf(Locale.ROOT, "[%s, %s] broker restarted at %d ms (down %d s, back after %.1f s; feeding %s)%n",
          w, outage,
          (restartBegin - feedBegin) / 1_000_000, outage.down.toSeconds(), (System.nanoTime() - restartBegin) / 1e9,
          feeding.isDone() ? "done" : "in progress");
      assertThat(feeding.isDone()).as("the broker restarted while the input was being written").isFalse();
      assertThat(feeding.get()).isEqualTo(units);
      writer.writeMarkers(w, Workload.endOfTraffic(units) + Workload.MARKER_AHEAD.toMillis());
      run.awaitSettled(Duration.ofMinutes(5));
      long restarts = run.restarts() - restartsBefore;
      long restores = run.restoredCheckpoints() - restoresBefore;
      long failed = run.failedCheckpoints() - failedBefore;
      System.out.printf(Locale.ROOT, "[%s, %s] broker outage %s: %d restarts, %d restores from checkpoints, %d "
          + "checkpoints failed; %d checkpoints completed (%d before the outage, the longest of the last ten of "
          + "them took %d ms)%n", w, outage,
          restarts == 0 ? "ridden out on client retries (the job never failed)" : "survived by failing over",
          restarts, restores, failed, run.completedCheckpoints(), checkpointsBefore, longestBefore.toMillis());
      // a restart that restored no checkpoint would read the input again from the start: each must restore one
      assertThat(restores).as("restores from checkpoints during and after the outage, against %d restarts",
          restarts).isEqualTo(restarts);
      if (outage == Outage.FAILED_OVER) {
        assertThat(failed).as("checkpoints failed during the outage (one expired: the job fails over)").isPositive();
        assertThat(restarts).as("restarts after the outage (the job failed over)").isPositive();
      } else {
        assertThat(restarts).as("restarts after the outage (the job rode it out)").isZero();
      }
    }
    assertSameAsReference(w, topics, start.expected());
  }

  /**
   * The runs of {@link #brokerRestartMidRun}: the fail-over in every build, the ride-out too at the full scale
   * ({@code -Pit-full}; it costs as much as a failure run, and no failure of the clients' is involved).
   */
  static Stream<Arguments> outages() {
    return Arrays.stream(Outage.values()).filter(o -> o == Outage.FAILED_OVER || Scale.current() == Scale.FULL)
        .map(o -> Arguments.of(Workload.FLOW_METER, o));
  }

  /** How long the broker stays down in {@link #brokerRestartMidRun}, and the path through it the test requires. */
  enum Outage {
    /**
     * Down 3 s, checkpoints time out after 2.5 s and none may fail ({@code execution.checkpointing.tolerable-failed-
     * checkpoints} 0): the job fails over. While the input is written the flow meter writes flow records all the
     * time, so each sink subtask has the records of its open transaction to flush at the next barrier and the last
     * completed checkpoint's transaction to commit (in its task thread), and neither gets through while the broker
     * is away: no checkpoint triggered after the broker stopped completes before it is back. It is unreachable for
     * the 3 s and its start (1.3-2.2 s measured), at least 4.3 s, so such a checkpoint (triggered at most an interval
     * after the broker went) expires and fails the job. Checkpoints before the outage took up to 0.6 s on a loaded
     * 2-core machine, well within the 2.5 s.
     */
    FAILED_OVER(Duration.ofSeconds(3), Duration.ofMillis(2500)),
    /**
     * Down 3 s with the checkpoint timeout the jobs set (minutes) and the clients' own timeouts (delivery 2 min,
     * blocking calls 1 min, transactions 10 min): nothing gives up, the job rides the outage out.
     */
    RIDDEN_OUT(Duration.ofSeconds(3), null);

    final Duration down;
    /** The run's {@code execution.checkpointing.timeout}, null for the jobs' own. */
    final Duration checkpointTimeout;

    Outage(Duration down, Duration checkpointTimeout) {
      this.down = down;
      this.checkpointTimeout = checkpointTimeout;
    }

    JobRun.Builder configure(JobRun.Builder run) {
      return checkpointTimeout == null ? run : run.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, checkpointTimeout)
          .set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 0);
    }

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  /** What each test starts from: the failure-free run's committed output, and fresh topics named for the test. */
  private record Start(List<List<String>> expected, String prefix, JobTopics topics) {
  }

  private static Start start(String test, Workload w, StateBackend backend, CheckpointKind checkpoints,
      MiniCluster cluster) throws Exception {
    Workload.assumeSelected(w);
    List<List<String>> expected = references.of(w, KAFKA.broker(), cluster, tmp); // on heap, whatever the backend
    String prefix = test + (backend == StateBackend.HEAP ? "" : "-" + backend)
        + (checkpoints == CheckpointKind.INCREMENTAL ? "-incremental" : "") + "-"
        + w.name().toLowerCase(Locale.ROOT).replace('_', '-');
    return new Start(expected, prefix, ItTopics.create(KAFKA.broker(), prefix));
  }

  /** The job as run on {@code backend}: on RocksDB with the write-back cache of {@link Workload#stateCache}. */
  private static io.linerate.jobs.local.JobLauncher job(Workload w, StateBackend backend) {
    return backend == StateBackend.ROCKSDB ? w.job(false, w.stateCache(Scale.current())) : w.job(false);
  }

  /**
   * That a settled run ran on {@code backend}: Flink names the backend (hash map or RocksDB), and on RocksDB the
   * operator's write-back cache held structures while the run was watched (it passes through, holding none, on a
   * backend it does not recognize as storing values serialized: a renamed RocksDB class would make it so) and wrote
   * some back to the state since the last (re)start (the end markers or the part's input came after it); on heap
   * it held none. With {@code scopesBeyondTheCache} (a subtask keyed more scopes than the cache holds since the last
   * start) and a cache smaller than a subtask's structures ({@link Workload#evictsBetweenCheckpoints}), it must also
   * have evicted some, which snapshots do not do. Prints the cache's counts.
   */
  private static void assertStateBackendUsed(Workload w, StateBackend backend, JobRun run,
      boolean scopesBeyondTheCache) throws Exception {
    String name = run.stateBackendName();
    long peak = run.peakCachedScopes();
    if (backend == StateBackend.HEAP) {
      assertThat(name).as("%s: the state backend", w).containsIgnoringCase("HashMap");
      assertThat(peak).as("%s on heap: structures the write-back cache held", w).isZero();
      return;
    }
    long reads = run.cacheGauge("stateReads");
    long writes = run.cacheGauge("stateWrites");
    long evictions = run.cacheGauge("stateEvictions");
    System.out.printf(Locale.ROOT, "[%s on %s] %s, write-back caches of %d bytes per subtask: up to %d structures held"
        + ", %d read from and %d written to the state, %d evictions since the last start%n", w, backend, name,
        w.stateCache(Scale.current()), peak, reads, writes, evictions);
    assertThat(name).as("%s: the state backend", w).containsIgnoringCase("RocksDB");
    assertThat(peak).as("%s on %s: structures the write-back cache held", w, backend).isPositive();
    assertThat(writes).as("%s on %s: structures written back to the state", w, backend).isPositive();
    if (scopesBeyondTheCache && w.evictsBetweenCheckpoints(Scale.current())) {
      assertThat(evictions).as("%s on %s: structures evicted from the cache between checkpoints", w, backend)
          .isPositive();
    }
  }

  /**
   * That the checkpoints the job restored after the kills were of the kind the run asked for, read from each one's
   * metadata ({@link JobRun#restoredKeyedState}): on RocksDB with incremental checkpoints the keyed state of every one
   * is RocksDB's incremental handles only (SST files shared between checkpoints), with full ones RocksDB's full
   * handles only (every file the checkpoint's own), on heap the heap backend's key groups; and there was at least
   * one, and one showing the kind. A RocksDB subtask holding no SST file yet shows neither kind and is left out.
   */
  private static void assertRestoredKind(String name, StateBackend backend, CheckpointKind checkpoints,
      List<Map<String, Integer>> restored) {
    String expected = backend == StateBackend.HEAP ? "KeyGroupsStateHandle"
        : checkpoints == CheckpointKind.INCREMENTAL ? JobRun.ROCKSDB_INCREMENTAL : JobRun.ROCKSDB_FULL;
    assertThat(restored).as("%s: the checkpoints restored after the kills", name).isNotEmpty();
    for (Map<String, Integer> kinds : restored) {
      java.util.Set<String> telling = new java.util.TreeSet<>(kinds.keySet());
      telling.remove(JobRun.ROCKSDB_NO_SST); // a subtask without SST files yet shows neither RocksDB kind
      assertThat(telling).as("%s: keyed state handles of a restored checkpoint (%s)", name, kinds)
          .isSubsetOf(expected);
    }
    assertThat(restored).as("%s: restored checkpoints showing their kind", name)
        .anyMatch(kinds -> kinds.containsKey(expected));
  }

  /**
   * The run's committed dead letters and output equal the failure-free run's, record for record. Dead letters first:
   * a record one run rejected (say, over a detector's open sub-windows) explains the reports that then differ.
   */
  private static void assertSameAsReference(Workload w, JobTopics topics, List<List<String>> expected) {
    List<List<String>> actual = Outputs.committed(KAFKA.bootstrapServers(), w.outputTopics(topics));
    Outputs.assertSameRecords(w + " dead letters", actual.get(1), expected.get(1));
    Outputs.assertSameRecords(w + " output records", actual.get(0), expected.get(0));
  }

  /** {@value #FAILURES} kill times in [10%, 85%] of the feeding, at least 1.5 s apart. */
  static long[] killTimes(SplittableRandom random, long feedMs) {
    long[] at = new long[FAILURES];
    long span = (long) (feedMs * 0.75) - (FAILURES - 1) * 1500L;
    for (int i = 0; i < FAILURES; i++) {
      at[i] = (long) (random.nextDouble() * span);
    }
    Arrays.sort(at);
    for (int i = 0; i < FAILURES; i++) {
      at[i] += feedMs / 10 + i * 1500L;
    }
    return at;
  }
}
