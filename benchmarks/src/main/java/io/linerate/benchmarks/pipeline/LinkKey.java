package io.linerate.benchmarks.pipeline;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Keys packets (and, {@link #ofBatches()}, batches) by their link (the scope of a linerate operator) with keys chosen so that {@code keyBy} puts the
 * links round-robin on the subtasks: link j goes to subtask j mod P.
 *
 * <p>Keying by the link number itself would not: Flink places a key by the murmur hash of its {@code hashCode}
 * (key group = murmur(k) mod maxParallelism, subtask = keyGroup · P / maxParallelism), and for P = 2 and the
 * default max parallelism 128 the integers 0 … 3 all land on subtask 1 (0 … 7: six of eight). With this stream's
 * 8 links that left one subtask 82% of the packets. The plain-Flink pipelines key by flow (1M keys) and are
 * balanced by numbers alone; this key gives the operators keyed by scope the same footing.
 */
public final class LinkKey implements KeySelector<Packet, Integer> {

    private static final long serialVersionUID = 1L;

    private final Integer[] keyOfLink;

    private LinkKey(Integer[] keyOfLink) {
        this.keyOfLink = keyOfLink;
    }

    /** Balanced over {@code env}'s parallelism and max parallelism (Flink's default if unset). */
    public static LinkKey balanced(StreamExecutionEnvironment env, int links) {
        int parallelism = env.getParallelism();
        int max = env.getConfig().getMaxParallelism();
        return balanced(links, parallelism,
                max > 0 ? max : KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism));
    }

    /** Link j gets the smallest unused integer key that Flink places on subtask j mod {@code parallelism}. */
    public static LinkKey balanced(int links, int parallelism, int maxParallelism) {
        if (links < 1 || parallelism < 1 || maxParallelism < parallelism) {
            throw new IllegalArgumentException("need links >= 1 and 1 <= parallelism <= maxParallelism, got links "
                    + links + ", parallelism " + parallelism + ", maxParallelism " + maxParallelism);
        }
        Integer[] keys = new Integer[links];
        Set<Integer> used = new HashSet<>();
        for (int j = 0; j < links; j++) {
            int subtask = j % parallelism;
            int k = 0;
            while (used.contains(k)
                    || KeyGroupRangeAssignment.assignKeyToParallelOperator(k, maxParallelism, parallelism) != subtask) {
                k++;
            }
            used.add(k);
            keys[j] = k;
        }
        return new LinkKey(keys);
    }

    /** The key of link {@code link}. */
    public int keyOf(int link) {
        return keyOfLink[link];
    }

    @Override
    public Integer getKey(Packet packet) {
        return keyOfLink[packet.link()];
    }

    /** The same keys for {@link PacketBatch}es (a batch's link): a batch goes where its packets would. */
    public KeySelector<PacketBatch, Integer> ofBatches() {
        return new OfBatches(keyOfLink);
    }

    private static final class OfBatches implements KeySelector<PacketBatch, Integer> {
        private static final long serialVersionUID = 1L;

        private final Integer[] keyOfLink;

        OfBatches(Integer[] keyOfLink) {
            this.keyOfLink = keyOfLink;
        }

        @Override
        public Integer getKey(PacketBatch batch) {
            return keyOfLink[batch.link()];
        }
    }
}
