package io.linerate.benchmarks.pipeline;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the source and the measuring sink of one run saw, shared through this JVM (the harness runs the job on a
 * MiniCluster in its own process): when the first packet was generated, when the last sink subtask reached the
 * end of its input, how many packets (and batches) were emitted and how many records reached the sink (packets,
 * for a sink of batches).
 *
 * <p>Processing time = last end of input − first packet. It leaves out job deployment before the first packet
 * and, after the end of input, the final checkpoint a bounded job with checkpointing waits for.
 */
public final class RunProbe {

    private static final Map<String, RunProbe> RUNS = new ConcurrentHashMap<>();

    private final AtomicLong firstNanos = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong lastNanos = new AtomicLong(Long.MIN_VALUE);
    private final LongAdder emitted = new LongAdder();
    private final LongAdder emittedBatches = new LongAdder();
    private final LongAdder sunk = new LongAdder();
    private final LongAdder finishedSinks = new LongAdder();

    private RunProbe() {
    }

    /** The probe of run {@code runId}, created on first use. */
    public static RunProbe of(String runId) {
        return RUNS.computeIfAbsent(runId, id -> new RunProbe());
    }

    /** Forgets run {@code runId}. */
    public static void remove(String runId) {
        RUNS.remove(runId);
    }

    void started(long nanos) {
        firstNanos.accumulateAndGet(nanos, Math::min);
    }

    void emitted(long packets, long batches) {
        emitted.add(packets);
        emittedBatches.add(batches);
    }

    void sinkFinished(long nanos, long records) {
        lastNanos.accumulateAndGet(nanos, Math::max);
        sunk.add(records);
        finishedSinks.increment();
    }

    /**
     * Packets the source has emitted so far (updated every {@value PacketBatchIterator#REPORT_EVERY} packets or so
     * per subtask, more often in a small run).
     */
    public long emitted() {
        return emitted.sum();
    }

    /** Source records ({@link PacketBatch}es) emitted so far, updated with {@link #emitted()}. */
    public long emittedBatches() {
        return emittedBatches.sum();
    }

    /**
     * Records that reached the measuring sink, over the sink subtasks that have finished; for a sink of
     * {@link PacketBatch}es, the packets in them.
     */
    public long sunk() {
        return sunk.sum();
    }

    /** Sink subtasks that have reached the end of their input. */
    public long finishedSinks() {
        return finishedSinks.sum();
    }

    /** Nanoseconds from the first packet to the last sink's end of input; -1 if either is missing. */
    public long processingNanos() {
        long first = firstNanos.get();
        long last = lastNanos.get();
        return first == Long.MAX_VALUE || last == Long.MIN_VALUE ? -1 : last - first;
    }
}
