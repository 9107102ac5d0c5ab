package io.linerate.flink.state;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;

/**
 * A map for the source side of a MiniCluster job (parallelism 1) that slows the input so it spans several checkpoints
 * and, from record {@code failFrom} on, waits a record at a time (so that checkpoints can be taken between records)
 * for a completed checkpoint, then fails once: the job restores from that checkpoint. One job at a time per JVM
 * ({@link #resetFor} before each; the flags are static because the function is serialized into the job).
 *
 * @param <T> the records, passed through unchanged
 */
public final class FailOnceAfterACheckpoint<T> extends RichMapFunction<T, T> implements CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    private final int failFrom;
    private final FilterFunction<T> slow;
    private int seen;

    /**
     * @param failFrom the record from which on the map fails once a checkpoint has completed
     * @param slow the records after which to sleep 5 ms (spreading the input over several checkpoint intervals)
     */
    public FailOnceAfterACheckpoint(int failFrom, FilterFunction<T> slow) {
        this.failFrom = failFrom;
        this.slow = slow;
    }

    /**
     * Clears the flags and returns the configuration of a job that uses this map: the state backend ({@code hashmap}
     * or {@code rocksdb}) and a fixed-delay restart strategy with room for the injected failure.
     */
    public static Configuration resetFor(String stateBackend) {
        reset();
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, stateBackend);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        return conf;
    }

    /** Clears the flags before a job. */
    private static void reset() {
        CHECKPOINTED.set(false);
        FAILED.set(false);
    }

    /** Whether the failure was injected (after a completed checkpoint). */
    public static boolean failed() {
        return FAILED.get();
    }

    @Override
    public T map(T record) throws Exception {
        if (slow.filter(record)) {
            Thread.sleep(5);
        }
        if (++seen >= failFrom && !FAILED.get()) {
            if (CHECKPOINTED.get()) {
                FAILED.set(true);
                throw new IllegalStateException("injected failure after a completed checkpoint");
            }
            Thread.sleep(10); // until a checkpoint completes (the second half can wait over a second)
        }
        return record;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        CHECKPOINTED.set(true);
    }
}
