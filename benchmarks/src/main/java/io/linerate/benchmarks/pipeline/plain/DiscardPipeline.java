package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Source → discard: the ceiling (packet generation and batching, watermarks and a chained sink that counts the
 * packets of each batch; no shuffle, no state, no per-packet record).
 */
public final class DiscardPipeline implements Pipeline {

    @Override
    public String name() {
        return "discard";
    }

    @Override
    public String description() {
        return "source → discarding sink (chained, counts the packets of each batch): the ceiling";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        return batches;
    }
}
