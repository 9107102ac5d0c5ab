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
 * new); when it fires, the flow is exported and its state cleared. A packet that comes at least the idle timeout
 * after its flow's last one ends the record first, whether or not the timer has fired yet: the watermark is emitted
 * on processing time and lags the packets, and the records must not depend on how far (the linerate flow table cuts
 * them the same way). At the end of input every remaining flow is exported (the final watermark fires all timers).
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
            if (c != null) {
                context.timerService().deleteEventTimeTimer(c.timer);
                if (packet.timestamp() - c.last >= idleMillis) {
                    // idle for the timeout already: its timer has not fired only because the watermark (emitted on
                    // processing time) lags the packets; the record ends here all the same, as NetFlow's idle
                    // timeout (and the linerate flow table) cut it, so the records do not depend on that lag
                    out.collect(summaryOf(context.getCurrentKey(), c));
                    c = null;
                }
            }
            if (c == null) {
                c = new FlowCounters();
                c.first = packet.timestamp();
                c.last = packet.timestamp();
            }
            c.packets++;
            c.bytes += packet.bytes();
            c.tcpFlags |= packet.tcpFlags();
            c.first = Math.min(c.first, packet.timestamp()); // packets of a flow from two source subtasks may
            c.last = Math.max(c.last, packet.timestamp());   // arrive a little out of order
            c.timer = c.last + idleMillis;
            context.timerService().registerEventTimeTimer(c.timer);
            counters.update(c);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext context, Collector<FlowSummary> out) throws Exception {
            FlowCounters c = counters.value();
            if (c != null && c.timer == timestamp) {
                out.collect(summaryOf(context.getCurrentKey(), c));
                counters.clear();
            }
        }

        private static FlowSummary summaryOf(FlowKey flow, FlowCounters c) {
            return new FlowSummary(flow, c.packets, c.bytes, c.tcpFlags, c.first, c.last);
        }
    }
}
