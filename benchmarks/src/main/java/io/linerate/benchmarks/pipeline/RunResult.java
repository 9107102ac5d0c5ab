package io.linerate.benchmarks.pipeline;

/**
 * What one run of one pipeline measured.
 *
 * @param pipeline the pipeline's name
 * @param packets packets the source emitted
 * @param processingNanos first packet → last sink's end of input
 * @param sinkRecords records that reached the measuring sink
 * @param idleHeap heap in use after a full GC with the MiniCluster started and the job not yet submitted, bytes
 * @param peakHeapAfterGc largest heap in use right after a GC during the run, bytes (-1: no GC ran)
 * @param peakHeapUsed largest heap in use sampled during the run, garbage included, bytes
 * @param gcCount collections during the run
 * @param checkpointSize the largest state size of the run's completed checkpoints, bytes (-1: none completed)
 * @param checkpoints completed checkpoints (the final one a bounded job takes after its end of input included)
 * @param wallNanos submission → job finished (deployment and the final checkpoint included)
 */
public record RunResult(String pipeline, long packets, long processingNanos, long sinkRecords, long idleHeap,
                        long peakHeapAfterGc, long peakHeapUsed, long gcCount, long checkpointSize,
                        int checkpoints, long wallNanos) {

    /** Packets per second of processing time. */
    public double packetsPerSecond() {
        return processingNanos <= 0 ? Double.NaN : packets * 1e9 / processingNanos;
    }
}
