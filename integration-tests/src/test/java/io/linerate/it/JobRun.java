package io.linerate.it;

import java.io.DataInputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One run of a job on the test cluster: the job defined on a fresh environment (parallelism, exactly-once
 * checkpoints every {@link #CHECKPOINT_INTERVAL} to a folder, restarts or none, optionally restored from a
 * savepoint), submitted, and watched: whether it has read and checkpointed its input, how many checkpoints it
 * completed and restored, stop with a savepoint, cancel.
 */
public final class JobRun implements AutoCloseable {

  /** Checkpoints (and so Kafka transactions) this often. */
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(300);

  private final MiniCluster cluster;
  private final JobLauncher job;
  private final JobTopics topics;
  private final JobClient client;
  /** Restores the run makes on its own: 1 from its savepoint, if it starts from one. */
  private final long initialRestores;
  private long peakCachedScopes;

  private JobRun(MiniCluster cluster, JobLauncher job, JobTopics topics, JobClient client, long initialRestores) {
    this.cluster = cluster;
    this.job = job;
    this.topics = topics;
    this.client = client;
    this.initialRestores = initialRestores;
  }

  public static Builder of(MiniCluster cluster, JobLauncher job, JobTopics topics) {
    return new Builder(cluster, job, topics);
  }

  public JobID id() {
    return client.getJobID();
  }

  public JobClient client() {
    return client;
  }

  public JobStatus status() throws Exception {
    return client.getJobStatus().get(30, TimeUnit.SECONDS);
  }

  private CheckpointStatsSnapshot checkpoints() throws Exception {
    AccessExecutionGraph graph = cluster.getExecutionGraph(id()).get(30, TimeUnit.SECONDS);
    CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
    if (stats == null) {
      throw new IllegalStateException("job " + id() + " has no checkpoint statistics");
    }
    return stats;
  }

  /** Checkpoints completed so far (over every restart). */
  public long completedCheckpoints() throws Exception {
    return checkpoints().getCounts().getNumberOfCompletedCheckpoints();
  }

  /** The TaskManagers running at least one of the job's tasks now. */
  public Set<ResourceID> taskManagersRunningTasks() throws Exception {
    Set<ResourceID> hosts = new HashSet<>();
    for (AccessExecutionVertex v : cluster.getExecutionGraph(id()).get(30, TimeUnit.SECONDS)
        .getAllExecutionVertices()) {
      TaskManagerLocation location = v.getCurrentAssignedResourceLocation();
      if (location != null && v.getExecutionState() == ExecutionState.RUNNING) {
        hosts.add(location.getResourceID());
      }
    }
    return hosts;
  }

  /**
   * The parallelism of each of the job's vertices (operator chains), by vertex id and name: what the job really runs
   * at, which may differ from what {@link Builder#parallelism} asked for (an operator or the job can set its own).
   */
  public Map<String, Integer> vertexParallelisms() throws Exception {
    Map<String, Integer> out = new TreeMap<>();
    for (var v : cluster.getExecutionGraph(id()).get(30, TimeUnit.SECONDS).getVerticesTopologically()) {
      out.put(v.getName() + " (" + v.getJobVertexId() + ")", v.getParallelism());
    }
    return out;
  }

  /** Times the job was restored from a checkpoint (or savepoint). */
  public long restoredCheckpoints() throws Exception {
    return checkpoints().getCounts().getNumberOfRestoredCheckpoints();
  }

  /**
   * The keyed state of the checkpoint the job restored last, read from its {@code _metadata}: the number of state
   * handles of each kind over every operator and subtask, {@value #ROCKSDB_INCREMENTAL} (RocksDB's files, the SST
   * files in the checkpoints' shared folder, each uploaded once and referenced by later checkpoints), {@value
   * #ROCKSDB_FULL} (RocksDB's files, every one uploaded for this checkpoint alone: what RocksDB's checkpoints are
   * unless incremental), {@value #ROCKSDB_NO_SST} (either kind, {@link #rocksDbKind}), or the handle's class (e.g. {@code KeyGroupsStateHandle}: the heap backend's, and canonical
   * savepoints); empty if the job restored none. Call it right after the restore: the checkpoint's folder is deleted
   * once enough newer ones completed ({@code execution.checkpointing.num-retained}).
   */
  public Map<String, Integer> restoredKeyedState() throws Exception {
    RestoredCheckpointStats restored = checkpoints().getLatestRestoredCheckpoint();
    if (restored == null) {
      return Map.of();
    }
    org.apache.flink.core.fs.Path metadata = new org.apache.flink.core.fs.Path(restored.getExternalPath(),
        AbstractFsCheckpointStorageAccess.METADATA_FILE_NAME);
    CheckpointMetadata checkpoint;
    try (DataInputStream in = new DataInputStream(metadata.getFileSystem().open(metadata))) {
      checkpoint = Checkpoints.loadCheckpointMetadata(in, getClass().getClassLoader(), restored.getExternalPath());
    }
    Map<String, Integer> kinds = new TreeMap<>();
    for (OperatorState operator : checkpoint.getOperatorStates()) {
      for (OperatorSubtaskState subtask : operator.getStates()) {
        subtask.getManagedKeyedState().forEach(h -> kinds.merge(h instanceof IncrementalRemoteKeyedStateHandle r
            ? rocksDbKind(r) : h.getClass().getSimpleName(), 1, Integer::sum));
      }
    }
    return kinds;
  }

  /**
   * RocksDB's full checkpoints are native too (Flink's {@code RocksNativeFullSnapshotStrategy}): the same handle class
   * as incremental ones, with every file private to the checkpoint. What tells them apart is where the SST files are:
   * shared (incremental) or private (full). A subtask whose database holds no SST file yet (its state still in the
   * memtable, flushed into none, or none at all) uploads only RocksDB's metadata files, private in either mode:
   * {@value #ROCKSDB_NO_SST}, which shows neither kind (such a handle, classified by "nothing shared", once failed
   * a dedup run with incremental checkpoints as "full").
   */
  private static String rocksDbKind(IncrementalRemoteKeyedStateHandle handle) {
    if (handle.getPrivateState().stream().anyMatch(f -> f.getLocalPath().endsWith(".sst"))) {
      return ROCKSDB_FULL;
    }
    return handle.getSharedState().stream().anyMatch(f -> f.getLocalPath().endsWith(".sst"))
        ? ROCKSDB_INCREMENTAL : ROCKSDB_NO_SST;
  }

  /** {@link #restoredKeyedState}'s name for a RocksDB handle without SST files (either kind). */
  public static final String ROCKSDB_NO_SST = "RocksDB without SST files";
  /** {@link #restoredKeyedState}'s name for RocksDB's incremental checkpoints. */
  public static final String ROCKSDB_INCREMENTAL = "RocksDB incremental";
  /** {@link #restoredKeyedState}'s name for RocksDB's full (native) checkpoints. */
  public static final String ROCKSDB_FULL = "RocksDB full";

  /** The longest a checkpoint of the recent ones ({@code web.checkpoints.history}, 10) took to complete. */
  public Duration longestRecentCheckpoint() throws Exception {
    return Duration.ofMillis(checkpoints().getHistory().getCheckpoints().stream()
        .filter(c -> c instanceof org.apache.flink.runtime.checkpoint.CompletedCheckpointStats)
        .mapToLong(c -> c.getEndToEndDuration()).max().orElse(0));
  }

  /** Checkpoints that failed (declined, expired or aborted) so far, over every restart. */
  public long failedCheckpoints() throws Exception {
    return checkpoints().getCounts().getNumberOfFailedCheckpoints();
  }

  /**
   * Times the job restarted after a failure (the scheduler's {@code numRestarts} gauge, {@link ClusterMetrics}): a
   * restart restores the latest checkpoint if there is one, so it is {@link #restoredCheckpoints} less the restore
   * from a savepoint once the first checkpoint completed.
   */
  public long restarts() {
    long restarts = ClusterMetrics.gaugeSum(id(), "numRestarts");
    if (restarts < 0) {
      throw new IllegalStateException("job " + id() + " has no numRestarts gauge (not running?)");
    }
    return restarts;
  }

  /**
   * The sum over the running subtasks of one of the write-back caches' gauges ({@code cachedScopes}, {@code
   * stateReads}, {@code stateWrites}, {@code stateEvictions}; {@link ClusterMetrics#GAUGES}), -1 if none is
   * registered.
   */
  public long cacheGauge(String name) {
    return ClusterMetrics.gaugeSum(id(), name);
  }

  /**
   * The most structures the operators' write-back caches held at once (summed over subtasks), as sampled while this
   * class waited for checkpoints or for the input to be read: 0 on the heap backend, where the caches pass through.
   */
  public long peakCachedScopes() {
    return peakCachedScopes;
  }

  private void sampleCache() {
    peakCachedScopes = Math.max(peakCachedScopes, cacheGauge("cachedScopes"));
  }

  /** The state backend the job runs on, as Flink names it (e.g. {@code EmbeddedRocksDBStateBackend}). */
  public String stateBackendName() throws Exception {
    return cluster.getExecutionGraph(id()).get(30, TimeUnit.SECONDS).getStateBackendName().orElse("none");
  }

  /** Size in bytes of the latest completed checkpoint's state (0 if none yet). */
  public long latestCheckpointStateSize() throws Exception {
    var latest = checkpoints().getHistory().getLatestCompletedCheckpoint();
    return latest == null ? 0 : latest.getStateSize();
  }

  /** Waits at most {@code timeout} until the job restored from a checkpoint more than {@code before} times. */
  public boolean awaitRestoreAfter(long before, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (restoredCheckpoints() <= before) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /** Waits until the job is RUNNING with a checkpoint completed after {@code completedBefore}. */
  public void awaitCheckpointAfter(long completedBefore, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (completedCheckpoints() <= completedBefore) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(job.name() + ": no checkpoint completed after #" + completedBefore + " within "
            + timeout + " (status " + status() + ")");
      }
      sampleCache();
      Thread.sleep(50);
    }
  }

  /**
   * Waits until the job has read its input (what the topic holds now) and checkpointed it, then for five more
   * completed checkpoints. A partition is read when the source has emitted its last record ({@link
   * ClusterMetrics#readOffset}) or the offsets the job committed to its consumer group reach its end (a partition
   * this run received nothing new in, read to its end by the run whose savepoint it started from). Of the five, the
   * first may have been triggered before the last record was read, the second was not (one checkpoint at a time),
   * so it holds the whole input; by the fifth the watermark of the last records has fired what it closes and a
   * checkpoint has committed that output's transactions. Should the job restore from a checkpoint meanwhile (which
   * may predate the last records), it waits again.
   */
  public void awaitSettled(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers()))) {
      Map<TopicPartition, Long> end = endOffsets(admin);
      while (true) {
        // (the restore from a savepoint may not be counted yet when this is called)
        long restores = Math.max(restoredCheckpoints(), initialRestores);
        awaitRead(admin, end, deadline, timeout);
        long after = completedCheckpoints();
        awaitCheckpointAfter(after + 4, Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0)).plusSeconds(30));
        if (restoredCheckpoints() <= restores) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(job.name() + ": still restoring from checkpoints after " + timeout + " ("
              + restoredCheckpoints() + " restores)");
        }
      }
    }
  }

  /** Waits until every partition of {@code end} is read (see {@link #awaitSettled}). */
  private void awaitRead(Admin admin, Map<TopicPartition, Long> end, long deadline, Duration timeout)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
    long nextCommittedCheck = System.nanoTime();
    long began = System.nanoTime();
    long nextProgress = began + PROGRESS_EVERY.toNanos();
    long readAtLastProgress = -1;
    while (true) {
      Map<TopicPartition, Long> read = new HashMap<>();
      end.keySet().forEach(p -> read.put(p, ClusterMetrics.readOffset(id(), p.topic(), p.partition())));
      if (System.nanoTime() >= nextCommittedCheck) { // an admin request: once a second is plenty
        committed = admin.listConsumerGroupOffsets(consumerGroup()).partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
        nextCommittedCheck = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      }
      Map<TopicPartition, OffsetAndMetadata> group = committed;
      // the producer of the input is not transactional: a partition's last record is at its end offset - 1
      if (end.entrySet().stream().allMatch(e -> e.getValue() == 0 || read.get(e.getKey()) >= e.getValue() - 1
          || (group.get(e.getKey()) != null && group.get(e.getKey()).offset() >= e.getValue()))) {
        return;
      }
      JobStatus now = status();
      if (now.isGloballyTerminalState()) {
        throw new AssertionError(job.name() + ": the job is " + now + " before it consumed its input",
            failureOf(client));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(job.name() + ": input not consumed within " + timeout + ": end offsets " + end
            + ", last offsets read " + read + ", committed " + group + ", status " + now);
      }
      sampleCache();
      if (System.nanoTime() >= nextProgress) {
        readAtLastProgress = printProgress(end, read, began, readAtLastProgress);
        nextProgress += PROGRESS_EVERY.toNanos();
      }
      Thread.sleep(20);
    }
  }

  /** How often {@link #awaitSettled} says how far the reading is while it waits. */
  static final Duration PROGRESS_EVERY = Duration.ofSeconds(30);

  /**
   * Prints how far the job has read (per partition: records read of the partition's end offset), the records read
   * since the last line (negative after a restore, which reads again from its checkpoint), restarts, restores and
   * checkpoints, and the write-back caches' gauges per subtask: a slow run and a stuck one look different here.
   * Returns the records read so far.
   */
  private long printProgress(Map<TopicPartition, Long> end, Map<TopicPartition, Long> read, long began,
      long readBefore) throws Exception {
    long total = 0;
    StringBuilder partitions = new StringBuilder();
    List<TopicPartition> inOrder = end.keySet().stream()
        .sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
    for (TopicPartition p : inOrder) {
      long records = read.get(p) + 1; // NO_OFFSET (-1): none yet
      total += records;
      partitions.append(String.format(Locale.ROOT, " %d:%d/%d", p.partition(), records, end.get(p)));
    }
    StringBuilder cache = new StringBuilder();
    for (String gauge : List.of("cachedScopes", "cachedBytes", "stateReads", "stateWrites", "stateEvictions",
        "stateBytesPerKey")) {
      cache.append(' ').append(gauge).append('=').append(ClusterMetrics.gaugeValues(id(), gauge));
    }
    System.out.printf(Locale.ROOT, "[%s] waiting %d s for the input to be read:%s (%s since the last line),"
        + " %d restarts, %d restores, %d checkpoints;%s%n", job.name(), (System.nanoTime() - began) / 1_000_000_000L,
        partitions, readBefore < 0 ? "-" : String.valueOf(total - readBefore),
        ClusterMetrics.gaugeSum(id(), "numRestarts"), restoredCheckpoints(), completedCheckpoints(), cache);
    return total;
  }

  private static Throwable failureOf(JobClient client) {
    try {
      client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  /** The consumer group the job's source commits its checkpointed offsets to (ExactlyOnceSource's default). */
  private String consumerGroup() {
    return "linerate-" + job.name();
  }

  private Map<TopicPartition, Long> endOffsets(Admin admin) throws Exception {
    List<TopicPartition> partitions = admin.describeTopics(List.of(topics.input())).allTopicNames()
        .get(30, TimeUnit.SECONDS).get(topics.input()).partitions().stream()
        .map(p -> new TopicPartition(topics.input(), p.partition())).collect(Collectors.toList());
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
    Map<TopicPartition, Long> end = new HashMap<>();
    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((p, info) -> end.put(p, info.offset()));
    return end;
  }

  /** Stops the job with a canonical savepoint in {@code dir} (no drain: windows stay open in the state). */
  public String stopWithSavepoint(Path dir) throws Exception {
    return client.stopWithSavepoint(false, ItCluster.flinkPath(dir), SavepointFormatType.CANONICAL)
        .get(120, TimeUnit.SECONDS);
  }

  /** Waits for a bounded run to finish. */
  public void awaitFinished(Duration timeout) throws Exception {
    client.getJobExecutionResult().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Cancels the job (open Kafka transactions are aborted) and waits until it is gone. */
  public void cancel() throws Exception {
    JobStatus s = status();
    if (!s.isGloballyTerminalState()) {
      client.cancel().get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!status().isGloballyTerminalState() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      // a job still running would hold the shared cluster's slots and its topics' transactions for the next test
      JobStatus after = status();
      if (!after.isGloballyTerminalState()) {
        throw new IllegalStateException("job " + client.getJobID() + " still " + after + " 60 s after its cancellation");
      }
    }
  }

  @Override
  public void close() throws Exception { // NOPMD: a test helper
    cancel();
  }

  /** How to run: parallelism, restarts, checkpoint folder, savepoint to start from. */
  public static final class Builder {
    private final MiniCluster cluster;
    private final JobLauncher job;
    private final JobTopics topics;
    private int parallelism = 2;
    private FlinkOptions.StateBackend stateBackend = FlinkOptions.StateBackend.HEAP;
    private boolean restarts = true;
    private Path checkpointDir;
    private String savepoint;
    private final Configuration extra = new Configuration();

    private Builder(MiniCluster cluster, JobLauncher job, JobTopics topics) {
      this.cluster = Objects.requireNonNull(cluster, "cluster");
      this.job = Objects.requireNonNull(job, "job");
      this.topics = Objects.requireNonNull(topics, "topics");
    }

    public Builder parallelism(int parallelism) {
      this.parallelism = parallelism;
      return this;
    }

    /**
     * Where keyed state lives (default heap): {@code state.backend.type}, as the jobs' {@code --state-backend} sets
     * it. On RocksDB the operators keep the structures of recent scopes live in their write-back caches.
     */
    public Builder stateBackend(FlinkOptions.StateBackend backend) {
      this.stateBackend = Objects.requireNonNull(backend, "backend");
      return this;
    }

    /** Restart on failure (fixed delay, many attempts; default) or fail at the first failure. */
    public Builder restarts(boolean restarts) {
      this.restarts = restarts;
      return this;
    }

    /** Where checkpoints go (required). */
    public Builder checkpointDir(Path dir) {
      this.checkpointDir = dir;
      return this;
    }

    public Builder fromSavepoint(String path) {
      this.savepoint = path;
      return this;
    }

    /** Any further Flink option of this run (set last: it overrides the defaults above). */
    public <T> Builder set(org.apache.flink.configuration.ConfigOption<T> option, T value) {
      extra.set(option, value);
      return this;
    }

    public JobRun start() throws Exception {
      Objects.requireNonNull(checkpointDir, "checkpointDir");
      Configuration conf = new Configuration();
      conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
      conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
      conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
      conf.set(StateBackendOptions.STATE_BACKEND, stateBackend.flinkName());
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, ItCluster.flinkPath(checkpointDir));
      if (restarts) {
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        // long enough for a killed TaskManager's replacement to register: the restarted job then spreads over
        // both TaskManagers again (ItCluster's load balancing), and the next kill hits it wherever it lands
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
      } else {
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
      }
      if (savepoint != null) {
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
      }
      conf.addAll(extra);
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(parallelism);
      job.define(env, topics);
      JobClient client = env.executeAsync(job.name());
      return new JobRun(cluster, job, topics, client, savepoint != null ? 1 : 0);
    }
  }
}
