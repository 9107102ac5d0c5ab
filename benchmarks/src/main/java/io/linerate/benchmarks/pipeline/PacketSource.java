package io.linerate.benchmarks.pipeline;

import java.util.Collection;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReader;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded source of a {@link Workload}'s packets (new Source API) in {@link PacketBatch}es of one link each, as
 * the Kafka packet format carries them: one interleaved {@link PacketSplit} per subtask, packets generated on
 * demand by {@link PacketGenerator} and batched by {@link PacketBatchIterator}, one batch per {@code pollNext}.
 * Event time is the batch's {@link PacketBatch#timestamp()} (its smallest packet timestamp); use it with
 * {@link #watermarks()}.
 */
public final class PacketSource
        implements Source<PacketBatch, PacketSplit, Collection<PacketSplit>>, ResultTypeQueryable<PacketBatch> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final Workload workload;

    /** A source of {@code workload} reporting to the {@link RunProbe} named {@code runId}. */
    public PacketSource(String runId, Workload workload) {
        this.runId = runId;
        this.workload = workload;
    }

    /**
     * Monotonous event time from {@link PacketBatch#timestamp()}: each split's batch timestamps never decrease,
     * and a batch's packets are all at or after its timestamp, so the watermark (the largest batch timestamp seen,
     * minus 1 ms) is below every packet still to come.
     */
    public static org.apache.flink.api.common.eventtime.WatermarkStrategy<PacketBatch> watermarks() {
        return org.apache.flink.api.common.eventtime.WatermarkStrategy.<PacketBatch>forMonotonousTimestamps()
                .withTimestampAssigner((batch, previous) -> batch.timestamp());
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<PacketBatch, PacketSplit> createReader(SourceReaderContext context) {
        return new IteratorSourceReader<>(context);
    }

    @Override
    public SplitEnumerator<PacketSplit, Collection<PacketSplit>> createEnumerator(
            SplitEnumeratorContext<PacketSplit> context) {
        return new IteratorSourceEnumerator<>(context,
                PacketSplit.of(runId, workload, context.currentParallelism()));
    }

    @Override
    public SplitEnumerator<PacketSplit, Collection<PacketSplit>> restoreEnumerator(
            SplitEnumeratorContext<PacketSplit> context, Collection<PacketSplit> checkpoint) {
        return new IteratorSourceEnumerator<>(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<PacketSplit> getSplitSerializer() {
        return new PacketSplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<Collection<PacketSplit>> getEnumeratorCheckpointSerializer() {
        return new PacketSplit.EnumeratorSerializer();
    }

    @Override
    public TypeInformation<PacketBatch> getProducedType() {
        return PacketBatchTypeInfo.INSTANCE;
    }
}
