package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class LinkKeyTest {

    @Test
    void linksGoRoundRobinOnTheSubtasksWithDistinctKeys() {
        for (int parallelism : new int[] {1, 2, 3, 4}) {
            for (int links : new int[] {1, 2, 8, 16}) {
                int max = KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
                LinkKey key = LinkKey.balanced(links, parallelism, max);
                Set<Integer> keys = new HashSet<>();
                for (int j = 0; j < links; j++) {
                    assertThat(keys.add(key.keyOf(j))).isTrue();
                    assertThat(KeyGroupRangeAssignment.assignKeyToParallelOperator(key.keyOf(j), max, parallelism))
                            .as("link %d of %d at parallelism %d", j, links, parallelism)
                            .isEqualTo(j % parallelism);
                }
            }
        }
    }

    @Test
    void theStreamsPacketsAreSpreadEvenlyOverTwoSubtasks() {
        // 8 links of about 1/8 of the packets each (the link of the heaviest flow, ~10% of all packets, more):
        // four links per subtask; keying by the link number itself gave 18% / 82%.
        Workload w = new Workload(200_000, 100_000, 1.1, Workload.SEED, 1_000_000, 8);
        PacketGenerator generator = new PacketGenerator(w);
        LinkKey key = LinkKey.balanced(8, 2, 128);
        long[] perSubtask = new long[2];
        for (int i = 0; i < w.packets(); i++) {
            perSubtask[KeyGroupRangeAssignment.assignKeyToParallelOperator(key.getKey(generator.packet(i)), 128, 2)]++;
        }
        assertThat(perSubtask[0]).isBetween(w.packets() * 35 / 100, w.packets() * 65 / 100);
    }
}
