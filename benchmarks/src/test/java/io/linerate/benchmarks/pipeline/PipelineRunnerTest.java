package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.benchmarks.flowtable.FlowKey;
import io.linerate.benchmarks.pipeline.linerate.LinerateDedup;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A smoke run of every built-in pipeline on a MiniCluster over a small stream of batches, with output counts
 * checked against an exact model of the packets.
 */
class PipelineRunnerTest {

    // 1.5 s of event time: windows [0, 1 s) and [1 s, 2 s); batches of up to 64 packets (a round of 4·64·4 =
    // 1,024 packets per subtask, 2,048 of the stream, spans 51 ms of event time: batches straddle the boundary)
    private static final Workload WORKLOAD = new Workload(60_000, 5_000, 1.1, 7, 40_000, 4, 64);

    private static final Path UPLOAD_FOLDER = Path.of(System.getProperty("java.io.tmpdir")).resolve("flink-web-upload");
    private static boolean uploadFolderBefore;

    @Test
    void everyPipelineRunsAndItsSinkSeesWhatTheJobMustEmit() throws Exception {
        PacketGenerator generator = new PacketGenerator(WORKLOAD);
        Set<FlowKey> flows = new HashSet<>();
        Set<Long> linkWindows = new HashSet<>();
        List<Map<FlowKey, Long>> windows = new ArrayList<>();
        for (int i = 0; i < WORKLOAD.packets(); i++) {
            Packet p = generator.packet(i);
            flows.add(p.flowKey());
            int w = (int) (p.timestamp() / 1000);
            while (windows.size() <= w) {
                windows.add(new HashMap<>());
            }
            windows.get(w).merge(p.flowKey(), 1L, Long::sum);
            linkWindows.add((long) w << 32 | p.link());
        }
        long topRecords = windows.stream().mapToLong(w -> Math.min(PipelineSettings.TOP_K, w.size())).sum();

        List<String> log = new ArrayList<>();
        PipelineRunner runner = new PipelineRunner(
                new PipelineRunner.Setup(2, Duration.ofSeconds(10), true, Duration.ofSeconds(5)), log::add);
        List<RunResult> results = new ArrayList<>();
        for (Pipeline pipeline : Pipelines.ALL) {
            RunResult r = runner.run(pipeline, PipelineSettings.standard(WORKLOAD));
            results.add(r);
            assertThat(r.packets()).as(r.pipeline()).isEqualTo(WORKLOAD.packets());
            assertThat(r.processingNanos()).as(r.pipeline()).isPositive();
            assertThat(r.checkpoints()).as(r.pipeline()).isPositive(); // at least the final one
            long expected = switch (r.pipeline()) {
                case "discard", "keyed-discard" -> WORKLOAD.packets(); // the sink counts the packets of batches
                case "flink-heavy-hitters" -> topRecords;
                case "flink-dedup", "flink-flow-meter" -> flows.size(); // first packets; one export per flow
                // one export per flow: the stream is shorter than the idle timeout, the tables have headroom
                case "linerate-flow-meter" -> flows.size();
                case "linerate-heavy-hitters" -> linkWindows.size(); // one report per link and window
                case "linerate-dedup" -> {
                    // a first packet is flagged with probability <= FPP; allow 4 binomial standard deviations
                    double mean = flows.size() * LinerateDedup.FPP;
                    long flagged = flows.size() - r.sinkRecords();
                    assertThat(flagged).as("first packets flagged").isBetween(0L, (long) (mean + 4 * Math.sqrt(mean)));
                    yield r.sinkRecords();
                }
                default -> throw new AssertionError("new pipeline " + r.pipeline() + ": add its expected output");
            };
            assertThat(r.sinkRecords()).as(r.pipeline()).isEqualTo(expected);
        }
        String report = Report.markdown("### test", results, Pipelines.ALL);
        for (Pipeline p : Pipelines.ALL) {
            assertThat(report).contains("| " + p.name() + " | 60,000 |");
        }
    }

    @BeforeAll
    static void noteWhetherAnUploadFolderIsThereAlready() {
        uploadFolderBefore = Files.exists(UPLOAD_FOLDER); // left by a run before this fix, in an old target/
    }

    /**
     * The REST endpoint's upload folder goes into the run's own folder, removed after the run: before, every run
     * left an empty {@code flink-web-upload} in {@code java.io.tmpdir} (this module's {@code target/} in tests).
     */
    @AfterAll
    static void noRunLeftFlinksUploadFolderInTheTemporaryFolder() {
        if (!uploadFolderBefore) {
            assertThat(UPLOAD_FOLDER).doesNotExist();
        }
    }

    @Test
    void withBatchesOfOneTheDiscardPipelinesCountEveryPacketToo() throws Exception {
        PipelineRunner runner = new PipelineRunner(
                new PipelineRunner.Setup(2, Duration.ofSeconds(10), false, Duration.ofSeconds(5)), s -> { });
        Workload perPacket = WORKLOAD.withBatch(1);
        for (String name : List.of("discard", "keyed-discard")) {
            RunResult r = runner.run(Pipelines.byName().get(name), PipelineSettings.standard(perPacket));
            assertThat(r.packets()).as(name).isEqualTo(perPacket.packets());
            assertThat(r.sinkRecords()).as(name).isEqualTo(perPacket.packets());
        }
    }

    @Test
    void aRunStartsWhileFlinksDefaultRestPortIsTaken() throws Exception {
        // CI once failed here: something on the machine held port 8081, Flink's default REST port
        try (ServerSocket taken = takeIfFree(8081)) {
            PipelineRunner runner = new PipelineRunner(
                    new PipelineRunner.Setup(1, Duration.ofSeconds(10), false, Duration.ofSeconds(5)), s -> { });
            Workload small = new Workload(2_000, 100, 1.1, 7, 40_000, 1, 64);
            RunResult r = runner.run(Pipelines.byName().get("discard"), PipelineSettings.standard(small));
            assertThat(r.sinkRecords()).isEqualTo(small.packets());
        }
    }

    /** A socket bound to {@code port}, or null if something else holds it already (the port is taken either way). */
    private static ServerSocket takeIfFree(int port) {
        try {
            return new ServerSocket(port);
        } catch (IOException alreadyTaken) {
            return null;
        }
    }

    @Test
    void unbatchedPacketsCarryTheirOwnEventTimeAndAreNeverBehindTheWatermark() throws Exception {
        Pipeline checking = new Pipeline() {
            @Override
            public String name() {
                return "unbatch-check";
            }

            @Override
            public String description() {
                return "source → unbatch → fails on a packet stamped otherwise than its timestamp, or late";
            }

            @Override
            public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                                       PipelineSettings settings) {
                return Unbatch.packetsOf(batches).process(new CheckTime());
            }
        };
        PipelineRunner runner = new PipelineRunner(
                new PipelineRunner.Setup(2, Duration.ofSeconds(10), false, Duration.ofSeconds(5)), s -> { });
        RunResult r = runner.run(checking, PipelineSettings.standard(WORKLOAD));
        assertThat(r.sinkRecords()).isEqualTo(WORKLOAD.packets());
    }

    /** Passes a packet on if its record timestamp is its own and the watermark is still below it. */
    static final class CheckTime extends ProcessFunction<Packet, Packet> {
        @Override
        public void processElement(Packet p, Context context, Collector<Packet> out) {
            if (context.timestamp() == null || context.timestamp() != p.timestamp()) {
                throw new IllegalStateException(p + " stamped " + context.timestamp());
            }
            if (context.timerService().currentWatermark() >= p.timestamp()) {
                throw new IllegalStateException(p + " behind the watermark "
                        + context.timerService().currentWatermark());
            }
            out.collect(p);
        }
    }
}
