package io.linerate.benchmarks.pipeline;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Discards its input, counting it, and tells the run's {@link RunProbe} when its input ended: the moment the last
 * record of the pipeline was processed (end of input reaches a sink only after every operator upstream has
 * processed all its input and fired its last windows and timers).
 */
public final class MeasuringSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final String runId;

    public MeasuringSink(String runId) {
        this.runId = runId;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        return new Writer<>(RunProbe.of(runId));
    }

    private static final class Writer<T> implements SinkWriter<T> {
        private final RunProbe probe;
        private long records;
        private boolean finished;

        Writer(RunProbe probe) {
            this.probe = probe;
        }

        @Override
        public void write(T element, Context context) {
            records++;
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
