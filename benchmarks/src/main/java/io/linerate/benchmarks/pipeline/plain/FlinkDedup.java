package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.benchmarks.pipeline.Unbatch;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Deduplication as the Flink documentation suggests it: {@code keyBy} the item (here the flow 5-tuple) and keep a
 * {@code ValueState<Boolean>} with a state TTL; a record passes if its key's flag is absent (never seen, or expired).
 * Flink's state TTL runs on processing time only, so "10 s" here is 10 s of wall clock, not of event time.
 */
public final class FlinkDedup implements Pipeline {

    @Override
    public String name() {
        return "flink-dedup";
    }

    @Override
    public String description() {
        return "unbatch → keyBy flow → ValueState<Boolean> with 10 s TTL (processing time) → "
                + "first packet of each flow";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        return Unbatch.packetsOf(batches)
                .keyBy(Packet::flowKey)
                .process(new FirstSeen(settings.dedupTtl()))
                .name("dedup (TTL " + settings.dedupTtl() + ")");
    }

    static final class FirstSeen extends KeyedProcessFunction<FlowKey, Packet, Packet> {
        private final Duration ttl;
        private transient ValueState<Boolean> seen;

        FirstSeen(Duration ttl) {
            this.ttl = ttl;
        }

        @Override
        public void open(OpenContext context) {
            ValueStateDescriptor<Boolean> descriptor = new ValueStateDescriptor<>("seen", Types.BOOLEAN);
            descriptor.enableTimeToLive(StateTtlConfig.newBuilder(ttl).build());
            seen = getRuntimeContext().getState(descriptor);
        }

        @Override
        public void processElement(Packet packet, Context context, Collector<Packet> out) throws Exception {
            if (seen.value() == null) {
                seen.update(true);
                out.collect(packet);
            }
        }
    }
}
