package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import io.linerate.benchmarks.pipeline.Unbatch;
import java.util.Comparator;
import java.util.PriorityQueue;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Top-k flows per event-time window as the Flink documentation's patterns put it together: {@code keyBy} flow →
 * tumbling window → count ({@code aggregate}, one counter per flow and window) → {@code keyBy} window end → collect
 * the window's counts in {@code ListState} and emit the k largest when the watermark passes the window's end
 * (the "hot items" pattern of the Flink training).
 */
public final class FlinkHeavyHitters implements Pipeline {

    @Override
    public String name() {
        return "flink-heavy-hitters";
    }

    @Override
    public String description() {
        return "unbatch → keyBy flow → 1 s tumbling event-time window → count → keyBy window → top-100 "
                + "(ListState, timer)";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        return Unbatch.packetsOf(batches)
                .keyBy(Packet::flowKey)
                .window(TumblingEventTimeWindows.of(settings.window()))
                .aggregate(new CountPackets(), new EmitCount())
                .name("count per flow")
                .keyBy(FlowCount::windowEnd)
                .process(new TopFlows(settings.topK()))
                .name("top-" + settings.topK());
    }

    static final class CountPackets implements AggregateFunction<Packet, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Packet packet, Long count) {
            return count + 1;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    static final class EmitCount extends ProcessWindowFunction<Long, FlowCount, FlowKey, TimeWindow> {
        @Override
        public void process(FlowKey flow, Context context, Iterable<Long> counts, Collector<FlowCount> out) {
            out.collect(new FlowCount(flow, context.window().getEnd(), counts.iterator().next()));
        }
    }

    /** Keyed by window end: gathers the window's counts, emits the k largest at the window's end. */
    static final class TopFlows extends KeyedProcessFunction<Long, FlowCount, RankedFlow> {
        private final int k;
        private transient ListState<FlowCount> counts;

        TopFlows(int k) {
            this.k = k;
        }

        @Override
        public void open(OpenContext context) {
            counts = getRuntimeContext().getListState(
                    new ListStateDescriptor<>("counts", TypeInformation.of(FlowCount.class)));
        }

        @Override
        public void processElement(FlowCount count, Context context, Collector<RankedFlow> out) throws Exception {
            counts.add(count);
            context.timerService().registerEventTimeTimer(count.windowEnd());
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext context, Collector<RankedFlow> out) throws Exception {
            PriorityQueue<FlowCount> top = new PriorityQueue<>(k + 1, Comparator.comparingLong(FlowCount::count));
            for (FlowCount c : counts.get()) {
                top.add(c);
                if (top.size() > k) {
                    top.poll();
                }
            }
            counts.clear();
            FlowCount[] ranked = top.toArray(new FlowCount[0]);
            java.util.Arrays.sort(ranked, Comparator.comparingLong(FlowCount::count).reversed());
            for (int i = 0; i < ranked.length; i++) {
                out.collect(new RankedFlow(timestamp, i + 1, ranked[i].flow(), ranked[i].count()));
            }
        }
    }
}
