package io.linerate.benchmarks.pipeline.linerate;

import io.linerate.benchmarks.pipeline.LinkKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.PacketTypeInfo;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@link FlowMeter} keyed by link: one multilevel-hash flow table per link, sized for the link's share of the flows
 * with 25% headroom, exporting a flow after 10 s of event time without a packet and at the end of input.
 */
public final class LinerateFlowMeter implements Pipeline {

    @Override
    public String name() {
        return "linerate-flow-meter";
    }

    @Override
    public String description() {
        return "keyBy link → FlowMeter (one MHT flow table per link, idle 10 s) → flow records";
    }

    @Override
    public Optional<String> comparedWith() {
        return Optional.of("flink-flow-meter");
    }

    /** Flows per link table: the link's share of the workload's flows, plus 25% (links are uniform per flow). */
    static long capacityPerLink(PipelineSettings settings) {
        long share = (settings.workload().flows() + settings.workload().links() - 1) / settings.workload().links();
        return share + share / 4 + 64;
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        LinkKey links = LinkKey.balanced(env, settings.workload().links());
        FlowMeter<Packet, Integer> meter = FlowMeter.<Packet>builder()
                .scope(links, Types.INT)
                .packets((p, sink) -> sink.ipv4(p.srcAddress(), p.dstAddress(), p.srcPort(), p.dstPort(),
                        p.protocol()))
                .bytes(Packet::bytes)
                .tcpFlags(Packet::tcpFlags)
                .timestamps(Packet::timestamp)
                .capacity(capacityPerLink(settings))
                .keyFormat(FlowKeyFormat.IPV4_ONLY) // the workload is IPv4 only: 48-byte entries instead of 72
                .idleTimeout(settings.idleTimeout())
                .stateCacheBytes(settings.stateCache()) // used on RocksDB only
                .build();
        return applyTo(meter, batches, links).name("linerate flow meter").uid("linerate-flow-meter");
    }

    /** The batches enter the operator whole: one state access per batch, each packet with its own event time. */
    static SingleOutputStreamOperator<MeteredFlow<Integer>> applyTo(FlowMeter<Packet, Integer> meter,
                                                                    DataStream<PacketBatch> batches, LinkKey links) {
        return meter.applyToBatches(batches, links.ofBatches(), PacketBatch.PACKETS, PacketTypeInfo.INSTANCE);
    }
}
