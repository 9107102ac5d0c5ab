package io.linerate.flink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job on {@link TestCluster} writes its checkpoints into the cluster's checkpoint folder, whose name has a space,
 * and nowhere else. Why this can fail: a folder handed to Flink as a URI ({@code file:/a%20b}) is read with a
 * literal {@code %20}, and the checkpoints land in a sibling folder of that name.
 */
class TestClusterTest {

    static final Path CHECKPOINTS = TestCluster.newCheckpointFolder();

    @RegisterExtension
    static final MiniClusterExtension FLINK = TestCluster.twoSlots(new Configuration(), CHECKPOINTS);

    @Test
    void checkpointsLandInTheFolderWithASpaceInItsName() throws Exception {
        assertThat(CHECKPOINTS.getFileName().toString()).contains(" ");
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.fromSequence(1, Long.MAX_VALUE).map(new Slow()).sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("checkpoints");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (metadataFiles(CHECKPOINTS).isEmpty()) {
                assertThat(System.nanoTime()).as("no completed checkpoint in %s within 60 s", CHECKPOINTS)
                        .isLessThan(deadline);
                Thread.sleep(50);
            }
        } finally {
            job.cancel().get();
        }
        Path escaped = CHECKPOINTS.resolveSibling(CHECKPOINTS.getFileName().toString().replace(" ", "%20"));
        assertThat(escaped).doesNotExist();
    }

    private static List<Path> metadataFiles(Path folder) throws Exception {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata")).collect(Collectors.toList());
        }
    }

    /** Keeps the job running between checkpoints without spinning a core. */
    static final class Slow implements MapFunction<Long, Long> {
        @Override
        public Long map(Long value) throws Exception {
            if (value % 100 == 0) {
                Thread.sleep(1);
            }
            return value;
        }
    }
}
