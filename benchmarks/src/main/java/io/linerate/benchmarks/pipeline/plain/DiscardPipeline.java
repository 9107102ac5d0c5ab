package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.pipeline.Packet;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Source → discard: the ceiling (packet generation, watermarks and a chained sink; no shuffle, no state). */
public final class DiscardPipeline implements Pipeline {

    @Override
    public String name() {
        return "discard";
    }

    @Override
    public String description() {
        return "source → discarding sink (chained): the ceiling";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<Packet> packets, PipelineSettings settings) {
        return packets;
    }
}
