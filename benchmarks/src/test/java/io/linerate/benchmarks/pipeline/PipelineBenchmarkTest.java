package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

class PipelineBenchmarkTest {

    @Test
    void optionsFailNamingTheOptionAndWhatItExpects() {
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--pipelines", "nope"))
                .hasMessageContaining("--pipelines: unknown pipeline 'nope'").hasMessageContaining("discard");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--checkpoint-interval", "soon"))
                .hasMessageContaining("--checkpoint-interval expects a duration");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--packets", "lots"))
                .hasMessageContaining("--packets expects a count");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--repeat", "0"))
                .hasMessageContaining("--repeat must be >= 1");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--append"))
                .hasMessageContaining("--append needs --output");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--flows", "0"))
                .hasMessageContaining("flows must be >= 1");
        PipelineBenchmark.Options o = PipelineBenchmark.Options.parse("--packets", "20M", "--flows", "100k",
                "--checkpoint-interval", "500ms", "--pipelines", "flink-dedup,discard");
        assertThat(o.workload()).extracting(Workload::packets, Workload::flows)
                .containsExactly(20_000_000L, 100_000);
        assertThat(o.checkpointInterval).isEqualTo(Duration.ofMillis(500));
        assertThat(o.pipelines).containsExactly("flink-dedup", "discard");
        assertThat(o.workload().batch()).isEqualTo(Workload.BATCH);
        assertThat(PipelineBenchmark.Options.parse("--batch", "1").workload().batch()).isEqualTo(1);
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--batch", "0"))
                .hasMessageContaining("batch must be in [1, 65536], got 0");
    }

    @Test
    void stateBackendAndTheFlowMetersTableCache() {
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--state-backend", "memory"))
                .hasMessageContaining("stateBackend must be hashmap or rocksdb, got memory");
        assertThatThrownBy(() -> PipelineBenchmark.Options.parse("--state-cache", "-1"))
                .hasMessageContaining("--state-cache expects bytes >= 0 such as 64M or 0, got '-1'");
        PipelineBenchmark.Options defaults = PipelineBenchmark.Options.parse();
        assertThat(defaults.stateBackend).isEqualTo("hashmap");
        assertThat(defaults.settings(defaults.workload()).stateCache()).isEqualTo(64L << 20);
        PipelineBenchmark.Options o = PipelineBenchmark.Options.parse("--state-backend", "RocksDB", "--state-cache",
                "512k");
        assertThat(o.stateBackend).isEqualTo("rocksdb");
        assertThat(o.settings(o.workload()).stateCache()).isEqualTo(512L << 10);
        assertThat(PipelineBenchmark.Options.parse("--state-cache", "0").settings(o.workload())
                .stateCache()).isZero();
    }

    @Test
    void theMedianRunIsReported() {
        List<RunResult> runs = List.of(run("x", 30, 1), run("x", 10, 1), run("x", 20, 1), run("x", 40, 1));
        assertThat(PipelineBenchmark.median(runs).packetsPerSecond()).isEqualTo(20e6);
        assertThat(PipelineBenchmark.median(runs.subList(0, 3)).packetsPerSecond()).isEqualTo(20e6);
    }

    @Test
    void theReportGivesRatiosAndVerdictsAgainstTheTargets() {
        Pipeline fast = counterpart("linerate-fast");
        Pipeline slow = counterpart("linerate-slow");
        List<Pipeline> pipelines = List.of(Pipelines.byName().get("discard"),
                Pipelines.byName().get("flink-heavy-hitters"), fast, slow);
        // packets/s in millions, checkpoint bytes
        List<RunResult> results = List.of(run("discard", 20, 500), run("flink-heavy-hitters", 1, 1_000_000),
                run("linerate-fast", 12, 50_000), run("linerate-slow", 5, 200_000));
        String md = Report.markdown("### test", results, pipelines);
        assertThat(md).contains("| linerate-fast | 1,000,000 | 12,000,000 |")
                .contains("| 12.0 | 0.0500 | 0.60 |")
                .contains("| 5.00 | 0.20 | 0.25 |")
                .contains("- **linerate-fast**: 12.0× the packets/s of flink-heavy-hitters (target ≥ 10×: met); "
                        + "0.0500 of its checkpoint size (target ≤ 0.10: met); 0.60 of the discard packets/s "
                        + "(target ≥ 0.50: met)")
                .contains("- **linerate-slow**: 5.00× the packets/s of flink-heavy-hitters (target ≥ 10×: "
                        + "**missed**); 0.20 of its checkpoint size (target ≤ 0.10: **missed**); 0.25 of the "
                        + "discard packets/s (target ≥ 0.50: **missed**)");
    }

    /** Issue 6 judges heavy hitters and flow metering: the dedup pipeline gets its ratios but no verdict. */
    @Test
    void theDedupPipelineIsComparedButNotJudged() {
        Pipeline dedup = Pipelines.byName().get("linerate-dedup");
        assertThat(dedup.comparedWith()).contains("flink-dedup");
        List<Pipeline> pipelines = List.of(Pipelines.byName().get("discard"), Pipelines.byName().get("flink-dedup"),
                dedup);
        List<RunResult> results = List.of(run("discard", 20, 500), run("flink-dedup", 1, 1_000_000),
                run("linerate-dedup", 5, 200_000));
        String md = Report.markdown("### test", results, pipelines);
        assertThat(md).contains("| 5.00 | 0.20 | 0.25 |").doesNotContain("- **linerate-dedup**");
    }

    /** A run of 1M packets at {@code millionsPerSecond}, with the given checkpoint size. */
    private static RunResult run(String name, double millionsPerSecond, long checkpointBytes) {
        long nanos = (long) (1_000_000 / (millionsPerSecond * 1e6) * 1e9);
        return new RunResult(name, 1_000_000, nanos, 1, 0, 0, 0, 0, checkpointBytes, 1, nanos);
    }

    private static Pipeline counterpart(String name) {
        return new Pipeline() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return "test";
            }

            @Override
            public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                                       PipelineSettings settings) {
                return batches;
            }

            @Override
            public Optional<String> comparedWith() {
                return Optional.of("flink-heavy-hitters");
            }
        };
    }
}
