package io.linerate.benchmarks.pipeline;

import io.linerate.flink.flowmeter.FlowMeter;
import java.io.Serializable;
import java.time.Duration;

/**
 * The parameters shared by a plain-Flink pipeline and its linerate counterpart, so that both do the same job.
 *
 * @param window heavy hitters: event-time tumbling window (1 s)
 * @param topK heavy hitters: flows reported per window (100)
 * @param dedupTtl dedup: how long an item is remembered (10 s; plain Flink's state TTL is processing time)
 * @param idleTimeout flow meter: a flow is exported after this much event time without a packet (10 s)
 * @param workload the packet stream (for sizing: expected flows, links)
 * @param stateCache linerate heavy hitters, flow meter and dedup: heap per subtask for the structures kept live between
 *        checkpoints on the RocksDB backend ({@code stateCacheBytes} of their builders; their default, 64 MiB)
 */
public record PipelineSettings(Duration window, int topK, Duration dedupTtl, Duration idleTimeout,
                               Workload workload, long stateCache) implements Serializable {

    public static final Duration WINDOW = Duration.ofSeconds(1);
    public static final int TOP_K = 100;
    public static final Duration DEDUP_TTL = Duration.ofSeconds(10);
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(10);

    public PipelineSettings {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be > 0, got " + window);
        }
        if (topK < 1) {
            throw new IllegalArgumentException("topK must be >= 1, got " + topK);
        }
        if (dedupTtl.isNegative() || dedupTtl.isZero()) {
            throw new IllegalArgumentException("dedupTtl must be > 0, got " + dedupTtl);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be > 0, got " + idleTimeout);
        }
        if (stateCache < 0) {
            throw new IllegalArgumentException("stateCache must be >= 0, got " + stateCache);
        }
    }

    /** The settings for {@code workload}. */
    public static PipelineSettings standard(Workload workload) {
        return new PipelineSettings(WINDOW, TOP_K, DEDUP_TTL, IDLE_TIMEOUT, workload,
                FlowMeter.DEFAULT_STATE_CACHE_BYTES);
    }

    /** These settings with another {@link #stateCache}. */
    public PipelineSettings withStateCache(long bytes) {
        return new PipelineSettings(window, topK, dedupTtl, idleTimeout, workload, bytes);
    }
}
