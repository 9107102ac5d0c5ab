package io.linerate.benchmarks.pipeline;

import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One job of the pipeline benchmark: what it does to the packet stream, which arrives as {@link PacketBatch}es
 * (packets of one link per record, as the Kafka packet format carries them). The harness makes the source (with
 * event time and watermarks), calls {@link #build}, and sends the stream it returns to its measuring sink; it
 * measures throughput (in packets), heap and checkpoint size the same way for every pipeline. A per-packet job
 * starts with {@link Unbatch#packetsOf}.
 *
 * <p>To add one, implement this interface and list the instance in {@link Pipelines#ALL}.
 */
public interface Pipeline {

    /** The name the command line selects it by, e.g. {@code flink-heavy-hitters}. */
    String name();

    /** One line: what the job does, for the report. */
    String description();

    /**
     * Adds the job's operators to {@code batches} (parallelism and checkpointing are already set on {@code env});
     * returns the stream whose end marks the end of processing (its records are counted and discarded; a stream
     * of {@link PacketBatch}es is counted in packets).
     */
    DataStream<?> build(StreamExecutionEnvironment env, DataStream<PacketBatch> batches, PipelineSettings settings);

    /**
     * The plain-Flink pipeline this one is measured against (throughput and checkpoint size ratios), e.g.
     * {@code flink-heavy-hitters} for {@code linerate-heavy-hitters}; empty for the baselines themselves.
     */
    default Optional<String> comparedWith() {
        return Optional.empty();
    }

    /**
     * Whether the targets apply: at least 10× the throughput of {@link #comparedWith()}, at most 1/10 of its
     * checkpoint size, within 2× of the source → discard throughput. By default, whenever there is a counterpart.
     */
    default boolean hasTargets() {
        return comparedWith().isPresent();
    }
}
