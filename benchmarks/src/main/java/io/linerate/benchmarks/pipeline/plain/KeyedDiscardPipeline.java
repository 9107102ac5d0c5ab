package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.pipeline.LinkKey;
import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Source → {@code keyBy} link ({@link LinkKey}, balanced) → discard: the ceiling of a job keyed by scope, which
 * pays one network exchange (serialize, hash-partition, deserialize) per packet and nothing else.
 */
public final class KeyedDiscardPipeline implements Pipeline {

    @Override
    public String name() {
        return "keyed-discard";
    }

    @Override
    public String description() {
        return "source → keyBy link → discarding sink: the ceiling of a job keyed by scope (one shuffle)";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<Packet> packets, PipelineSettings settings) {
        return packets.keyBy(LinkKey.balanced(env, settings.workload().links()));
    }
}
