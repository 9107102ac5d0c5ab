package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.pipeline.LinkKey;
import io.linerate.benchmarks.pipeline.PacketBatch;
import io.linerate.benchmarks.pipeline.Pipeline;
import io.linerate.benchmarks.pipeline.PipelineSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Source → {@code keyBy} link ({@link LinkKey#ofBatches()}, balanced) → discard: the ceiling of a job keyed by
 * scope, which pays one network exchange (serialize, hash-partition, deserialize) per BATCH and nothing else;
 * the sink counts the packets of each batch.
 */
public final class KeyedDiscardPipeline implements Pipeline {

    @Override
    public String name() {
        return "keyed-discard";
    }

    @Override
    public String description() {
        return "source → keyBy link (batches) → discarding sink: the ceiling of a job keyed by scope "
                + "(one shuffle per batch)";
    }

    @Override
    public DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches,
                               PipelineSettings settings) {
        return batches.keyBy(LinkKey.balanced(env, settings.workload().links()).ofBatches());
    }
}
