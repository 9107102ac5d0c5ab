package io.linerate.benchmarks.pipeline.linerate;

import io.linerate.benchmarks.pipeline.LinkKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.PacketTypeInfo;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.flink.heavyhitters.HeavyHitterDetector;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.items.ItemSelector;
import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@link HeavyHitterDetector} keyed by link: per link and 1 s tumbling window, a Space-Saving tracker of
 * 4·max(k, ⌈1/φ⌉) counters reports the top-100 flows and every flow above 1% of the window's packets. One report
 * per link and window.
 */
public final class LinerateHeavyHitters implements Pipeline {

    /** φ of the report: the plain pipeline has none, so the default (1%) keeps the tracker at 400 counters. */
    static final double PHI = 0.01;

    @Override
    public String name() {
        return "linerate-heavy-hitters";
    }

    @Override
    public String description() {
        return "keyBy link → HeavyHitterDetector (Space-Saving, 1 s tumbling, top-100, φ = 1%) → one report per link";
    }

    @Override
    public Optional<String> comparedWith() {
        return Optional.of("flink-heavy-hitters");
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        LinkKey links = LinkKey.balanced(env, settings.workload().links());
        HeavyHitterDetector<Packet, Integer> detector = HeavyHitterDetector
                .builder(links, ItemSelector.longs(Packet::flowId))
                .tumbling(settings.window())
                .topK(settings.topK())
                .phi(PHI)
                .timestamps(Packet::timestamp)
                .stateCacheBytes(settings.stateCache()) // used on RocksDB only
                .build();
        return applyTo(detector, batches, links).name("linerate heavy hitters").uid("linerate-heavy-hitters");
    }

    /** The batches enter the operator whole: one state access per batch, each packet with its own event time. */
    static SingleOutputStreamOperator<HeavyHitterReport<Integer>> applyTo(
            HeavyHitterDetector<Packet, Integer> detector, DataStream<PacketBatch> batches, LinkKey links) {
        return detector.applyToBatches(batches, links.ofBatches(), PacketBatch.PACKETS, PacketTypeInfo.INSTANCE);
    }
}
