package io.linerate.benchmarks.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs one pipeline on a fresh local MiniCluster (one task manager, a slot per subtask, its REST endpoint on a free
 * loopback port), heap state backend, checkpoints every {@code checkpointInterval} to a temporary directory (deleted
 * afterwards), and measures it: processing time from {@link RunProbe}, heap from {@link HeapMonitor}, checkpoint
 * sizes from the job's checkpoint statistics ({@link CheckpointStatsSnapshot}, read from the finished job's
 * execution graph).
 *
 * <p>Besides the periodic checkpoints it triggers one when the source has emitted half the packets, so that every
 * run has a checkpoint taken mid-stream however fast it is (a bounded job's final checkpoint, taken after its end
 * of input, holds no state of its finished operators). When every sink subtask has reached its end of input it
 * triggers the final checkpoint the finished job waits for, instead of letting it wait for the next interval.
 */
public final class PipelineRunner {

    /** How the runs are set up. */
    public record Setup(int parallelism, Duration checkpointInterval, boolean midRunCheckpoint,
                        Duration progressInterval, String stateBackend) {

        /** On the heap state backend ({@code hashmap}). */
        public Setup(int parallelism, Duration checkpointInterval, boolean midRunCheckpoint,
                     Duration progressInterval) {
            this(parallelism, checkpointInterval, midRunCheckpoint, progressInterval, "hashmap");
        }

        public Setup {
            if (!stateBackend.equals("hashmap") && !stateBackend.equals("rocksdb")) {
                throw new IllegalArgumentException("stateBackend must be hashmap or rocksdb, got " + stateBackend);
            }
            if (parallelism < 1) {
                throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
            }
            if (checkpointInterval.toMillis() < 10) {
                throw new IllegalArgumentException("checkpointInterval must be >= 10 ms, got " + checkpointInterval);
            }
        }
    }

    private static final long POLL_MILLIS = 100;

    private final Setup setup;
    private final Consumer<String> log;

    public PipelineRunner(Setup setup, Consumer<String> log) {
        this.setup = setup;
        this.log = log;
    }

    /** Runs {@code pipeline} over {@code workload} once and returns what it measured. */
    public RunResult run(Pipeline pipeline, PipelineSettings settings) throws Exception {
        Workload workload = settings.workload();
        String runId = pipeline.name() + "-" + UUID.randomUUID();
        // one folder per run for what the run writes, removed after it: the checkpoints, and the REST endpoint's
        // web.tmpdir (its flink-web-upload folder stayed behind in java.io.tmpdir otherwise)
        Path runFolder = Files.createTempDirectory("linerate-pipeline-");
        Path checkpoints = Files.createDirectory(runFolder.resolve("checkpoints"));
        Configuration conf = new Configuration();
        conf.set(WebOptions.TMP_DIR, Files.createDirectory(runFolder.resolve("web")).toString());
        conf.set(StateBackendOptions.STATE_BACKEND, setup.stateBackend());
        // a failing job fails the run (with checkpointing on, Flink would otherwise restart it without end)
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        // Flink's form of the folder, not its URI: Flink reads "%20" in a URI string as those three characters
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                org.apache.flink.core.fs.Path.fromLocalFile(checkpoints.toFile()).toString());
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, setup.checkpointInterval());
        conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 10_000);
        // a free loopback port for the cluster's REST endpoint: the default 8081 may be taken (a local Flink
        // cluster's web UI, another run), and a MiniCluster built directly does not pick another one itself
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_PORT, "0");
        MiniClusterConfiguration clusterConf = new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(setup.parallelism())
                .build();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
            env.setParallelism(setup.parallelism());
            env.enableCheckpointing(setup.checkpointInterval().toMillis());
            DataStream<PacketBatch> batches = env.fromSource(new PacketSource(runId, workload),
                    PacketSource.watermarks(), "packet batches");
            sinkTo(pipeline.build(env, batches, settings), runId);
            new PacketGenerator(workload); // its alias table (cached per JVM) counts in the idle heap, not the run's
            long idleHeap = HeapMonitor.usedAfterFullGc();
            RunProbe probe = RunProbe.of(runId);
            try (HeapMonitor heap = HeapMonitor.start()) {
                long submitted = System.nanoTime();
                JobID job = cluster.submitJob(env.getStreamGraph()).get().getJobID();
                CompletableFuture<JobResult> result = cluster.requestJobResult(job);
                watch(cluster, job, result, probe, workload, pipeline.name(), heap);
                JobResult done = result.get();
                long wall = System.nanoTime() - submitted;
                if (!done.isSuccess()) {
                    done.toJobExecutionResult(getClass().getClassLoader()); // throws the job's failure
                }
                AccessExecutionGraph graph = cluster.getExecutionGraph(job).get(1, TimeUnit.MINUTES);
                long largest = -1;
                int completed = 0;
                CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
                if (stats != null) {
                    for (AbstractCheckpointStats c : stats.getHistory().getCheckpoints()) {
                        if (c.getStatus() == CheckpointStatsStatus.COMPLETED) {
                            completed++;
                            largest = Math.max(largest, c.getStateSize());
                        }
                    }
                }
                log.accept(String.format(Locale.ROOT, "  %s: %,d source records, %.1f packets each", pipeline.name(),
                        probe.emittedBatches(), (double) probe.emitted() / Math.max(1, probe.emittedBatches())));
                return new RunResult(pipeline.name(), probe.emitted(), probe.processingNanos(), probe.sunk(),
                        idleHeap, heap.peakAfterGc(), heap.peakUsed(), heap.collections(), largest, completed,
                        wall);
            }
        } finally {
            RunProbe.remove(runId);
            deleteRecursively(runFolder);
        }
    }

    /** The measuring sink, counting packets if the pipeline ends in batches (a discard), else records. */
    @SuppressWarnings("unchecked")
    private static void sinkTo(DataStream<?> end, String runId) {
        if (end.getType() instanceof PacketBatchTypeInfo) {
            ((DataStream<PacketBatch>) end).sinkTo(MeasuringSink.countingPackets(runId)).name("measuring sink");
        } else {
            end.sinkTo(MeasuringSink.countingRecords(runId)).name("measuring sink");
        }
    }

    /** Prints progress, and triggers the mid-run checkpoint, until the job ends. */
    private void watch(MiniCluster cluster, JobID job, CompletableFuture<JobResult> result, RunProbe probe,
                       Workload workload, String name, HeapMonitor heap) throws InterruptedException {
        long start = System.nanoTime();
        long nextProgress = start + setup.progressInterval().toNanos();
        long lastEmitted = 0;
        long lastTime = start;
        boolean triggered = !setup.midRunCheckpoint();
        boolean finalTriggered = false;
        while (!result.isDone()) {
            Thread.sleep(POLL_MILLIS);
            long emitted = probe.emitted();
            if (!triggered && emitted >= workload.packets() / 2) {
                triggered = true;
                long at = emitted;
                cluster.triggerCheckpoint(job, CheckpointType.FULL).whenComplete((id, failure) -> log.accept(
                        failure == null
                                ? String.format(Locale.ROOT,
                                        "  %s: checkpoint %d (triggered at %,d packets) completed", name, id,
                                        at)
                                : String.format(Locale.ROOT, "  %s: no mid-run checkpoint (%s)", name,
                                        result.isDone() ? "the job finished first" : failure)));
            }
            if (!finalTriggered && probe.finishedSinks() >= setup.parallelism()) {
                // processing is over; the finished tasks wait for one more checkpoint: take it now rather than at
                // the next interval (not measured either way; this only shortens the run)
                finalTriggered = true;
                cluster.triggerCheckpoint(job, CheckpointType.FULL);
            }
            long now = System.nanoTime();
            if (now >= nextProgress) {
                double rate = (emitted - lastEmitted) * 1e9 / (now - lastTime);
                log.accept(String.format(Locale.ROOT,
                        "  %s: %.0f s, %,d packets emitted (%.0f%%), %,.0f packets/s now, heap %s "
                                + "(peak after GC %s), %,d sink records",
                        name, (now - start) / 1e9, emitted, 100.0 * emitted / workload.packets(), rate,
                        Report.bytes(HeapMonitor.usedNow()), Report.bytes(heap.peakAfterGc()), probe.sunk()));
                lastEmitted = emitted;
                lastTime = now;
                nextProgress = now + setup.progressInterval().toNanos();
            }
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
