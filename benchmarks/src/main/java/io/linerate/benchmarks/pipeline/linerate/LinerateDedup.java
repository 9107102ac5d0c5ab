package io.linerate.benchmarks.pipeline.linerate;

import io.linerate.benchmarks.pipeline.LinkKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.benchmarks.pipeline.Unbatch;
import io.linerate.flink.dedup.DedupStreams;
import io.linerate.flink.dedup.Deduplicator;
import io.linerate.flink.items.ItemSelector;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@link Deduplicator} keyed by link: the first packet of each flow within a 10 s event-time horizon passes; later
 * packets go to the duplicates side output (not counted by the sink). Sized for the link's packet rate at
 * {@value #FPP} false-positive probability over the horizon.
 */
public final class LinerateDedup implements Pipeline {

    /** P(a flow's first packet is flagged as a duplicate), over the horizon. */
    public static final double FPP = 0.01;

    @Override
    public String name() {
        return "linerate-dedup";
    }

    @Override
    public String description() {
        return "keyBy link → Deduplicator (4 rotating blocked Bloom filters, 10 s event-time horizon, 1% FPP)";
    }

    @Override
    public Optional<String> comparedWith() {
        return Optional.of("flink-dedup");
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        // every packet is inserted (repeats refresh), so the rate is the link's packet rate
        double perLink = (double) settings.workload().packetsPerSecond() / settings.workload().links();
        LinkKey links = LinkKey.balanced(env, settings.workload().links());
        Deduplicator<Packet, Integer> dedup = Deduplicator.<Packet, Integer>builder()
                .scope(links, Types.INT)
                .item(ItemSelector.longs(Packet::flowId))
                .horizon(settings.dedupTtl())
                .eventTime()
                .expectedRate(perLink * 1.25)
                .fpp(FPP)
                .build();
        return applyTo(dedup, batches, links).firstOccurrences().name("linerate dedup").uid("linerate-dedup");
    }

    /**
     * Where the batches enter the operator: for now unbatched into packets ({@link Unbatch}, chained to the source,
     * each packet with its own event time), then the per-packet {@code apply}. With {@code applyToBatches} this
     * body becomes the one line
     * {@code return dedup.applyToBatches(batches, links.ofBatches(), PacketBatch.PACKETS, PacketTypeInfo.INSTANCE);}
     * and the builder above gets {@code .timestamps(Packet::timestamp)} (without it a packet's event time is its
     * batch's, the batch's smallest).
     */
    static DedupStreams<Packet> applyTo(Deduplicator<Packet, Integer> dedup, DataStream<PacketBatch> batches,
                                        LinkKey links) {
        return dedup.apply(Unbatch.packetsOf(batches));
    }
}
