package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.benchmarks.pipeline.Unbatch;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * A flow table as a Flink user writes it: {@code keyBy} flow, the flow's counters in {@code ValueState}, and an
 * event-time timer per flow moved to last packet + idle timeout on every packet (delete the old, register the
 * new); when it fires, the flow is exported and its state cleared. At the end of input every remaining flow is
 * exported (the final watermark fires all timers).
 */
public final class FlinkFlowMeter implements Pipeline {

    @Override
    public String name() {
        return "flink-flow-meter";
    }

    @Override
    public String description() {
        return "unbatch → keyBy flow → ValueState<FlowCounters> + event-time idle timer moved per packet (10 s) "
                + "→ export";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        return Unbatch.packetsOf(batches)
                .keyBy(Packet::flowKey)
                .process(new IdleFlows(settings.idleTimeout().toMillis()))
                .name("flow table (idle " + settings.idleTimeout() + ")");
    }

    static final class IdleFlows extends KeyedProcessFunction<FlowKey, Packet, FlowSummary> {
        private final long idleMillis;
        private transient ValueState<FlowCounters> counters;

        IdleFlows(long idleMillis) {
            this.idleMillis = idleMillis;
        }

        @Override
        public void open(OpenContext context) {
            counters = getRuntimeContext().getState(
                    new ValueStateDescriptor<>("counters", TypeInformation.of(FlowCounters.class)));
        }

        @Override
        public void processElement(Packet packet, Context context, Collector<FlowSummary> out) throws Exception {
            FlowCounters c = counters.value();
            if (c == null) {
                c = new FlowCounters();
                c.first = packet.timestamp();
            } else {
                context.timerService().deleteEventTimeTimer(c.timer);
            }
            c.packets++;
            c.bytes += packet.bytes();
            c.tcpFlags |= packet.tcpFlags();
            c.last = packet.timestamp();
            c.timer = packet.timestamp() + idleMillis;
            context.timerService().registerEventTimeTimer(c.timer);
            counters.update(c);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext context, Collector<FlowSummary> out) throws Exception {
            FlowCounters c = counters.value();
            if (c != null && c.timer == timestamp) {
                out.collect(new FlowSummary(context.getCurrentKey(), c.packets, c.bytes, c.tcpFlags, c.first,
                        c.last));
                counters.clear();
            }
        }
    }
}
