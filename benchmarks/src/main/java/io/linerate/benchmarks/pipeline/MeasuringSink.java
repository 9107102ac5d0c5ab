package io.linerate.benchmarks.pipeline;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Discards its input, counting it (records, or the packets of {@link PacketBatch}es: {@link #countingPackets}),
 * and tells the run's {@link RunProbe} when its input ended: the moment the last
 * record of the pipeline was processed (end of input reaches a sink only after every operator upstream has
 * processed all its input and fired its last windows and timers).
 */
public final class MeasuringSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final boolean packetsOfBatches;

    private MeasuringSink(String runId, boolean packetsOfBatches) {
        this.runId = runId;
        this.packetsOfBatches = packetsOfBatches;
    }

    /** A sink counting the records it gets. */
    public static <T> MeasuringSink<T> countingRecords(String runId) {
        return new MeasuringSink<>(runId, false);
    }

    /** A sink of batches counting the packets in them (a discard pipeline's count is in packets). */
    public static MeasuringSink<PacketBatch> countingPackets(String runId) {
        return new MeasuringSink<>(runId, true);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        return new Writer<>(RunProbe.of(runId), packetsOfBatches);
    }

    private static final class Writer<T> implements SinkWriter<T> {
        private final RunProbe probe;
        private final boolean packetsOfBatches;
        private long records;
        private boolean finished;

        Writer(RunProbe probe, boolean packetsOfBatches) {
            this.probe = probe;
            this.packetsOfBatches = packetsOfBatches;
        }

        @Override
        public void write(T element, Context context) {
            records += packetsOfBatches ? ((PacketBatch) element).size() : 1;
        }

        @Override
        public void flush(boolean endOfInput) {
            if (endOfInput && !finished) {
                finished = true;
                probe.sinkFinished(System.nanoTime(), records);
            }
        }

        @Override
        public void close() {
        }
    }
}
