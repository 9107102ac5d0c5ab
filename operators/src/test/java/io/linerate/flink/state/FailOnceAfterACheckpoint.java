package io.linerate.flink.state;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.functions.FromElementsGeneratorFunction;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The source side of a MiniCluster job (parallelism 1) that fails once after a completed checkpoint, at record
 * {@code failFrom}: the job restores from that checkpoint. One job at a time per JVM ({@link #resetFor} before each;
 * the flags are static because the functions are serialized into the job).
 *
 * <p>Record {@code failFrom} is held back in the source until a checkpoint has completed. The map that fails cannot
 * wait for one itself: it is chained to the source, and the task takes a checkpoint (and hears of its completion)
 * only between records, from its mailbox, so a map blocking on a record blocks the checkpoint it waits for; and
 * sleeping a little on each record bounds the wait by the records left (under load the first checkpoint can take
 * seconds, and the input ran out first: the job finished without the failure). The source is the one
 * {@code env.fromData} builds, with a rate limiter that from record {@code failFrom} on answers with a future
 * completed by the reader's checkpoint-complete notice: the reader reports nothing available, the task idles in its
 * mailbox, where checkpoints are triggered and their completion is delivered (to the map as well, in the same mail),
 * and only then is record {@code failFrom} emitted. The wait lasts as long as the first checkpoint takes, whatever
 * the load, and no longer.
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

    private FailOnceAfterACheckpoint(int failFrom, FilterFunction<T> slow) {
        this.failFrom = failFrom;
        this.slow = slow;
    }

    /**
     * Clears the flags and returns the configuration of a job that uses {@link #source}: the state backend
     * ({@code hashmap} or {@code rocksdb}) and a fixed-delay restart strategy with room for the injected failure.
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

    /**
     * The elements in order (parallelism 1, as {@code env.fromData}), record {@code failFrom} (1-based) held back
     * until a checkpoint has completed, then a map (parallelism 1) that fails once on it.
     *
     * @param failFrom the record on which the job fails (on a later one if no checkpoint had completed, which the
     *        source rules out)
     * @param slow the records after which to sleep 5 ms (spreading the input over several checkpoint intervals)
     */
    public static <T> SingleOutputStreamOperator<T> source(StreamExecutionEnvironment env, List<T> elements,
                                                           TypeInformation<T> type, int failFrom,
                                                           FilterFunction<T> slow) {
        DataGeneratorSource<T> source = new DataGeneratorSource<>(
                new FromElementsGeneratorFunction<>(type, env.getConfig(), elements), elements.size(),
                parallelism -> new HoldBack(failFrom), type);
        return env.fromSource(source, WatermarkStrategy.forMonotonousTimestamps(), "elements, held back at " + failFrom)
                .setParallelism(1)
                .map(new FailOnceAfterACheckpoint<>(failFrom, slow)).returns(type).setParallelism(1);
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
        if (++seen >= failFrom && !FAILED.get() && CHECKPOINTED.get()) {
            FAILED.set(true);
            throw new IllegalStateException("injected failure after a completed checkpoint");
        }
        return record;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        CHECKPOINTED.set(true);
    }

    /**
     * The source reader asks for a permit before each record; from record {@code failFrom} on, the answer completes
     * with the first completed checkpoint the reader hears of. Not after the failure: the restored reader counts
     * from its restored position.
     */
    private static final class HoldBack implements RateLimiter<NumberSequenceSplit> {

        private final int failFrom;
        private final CompletableFuture<Void> checkpointed = new CompletableFuture<>();
        private long permits;

        HoldBack(int failFrom) {
            this.failFrom = failFrom;
        }

        @Override
        public CompletionStage<Void> acquire(int n) {
            permits += n;
            return permits >= failFrom && !FAILED.get() ? checkpointed : CompletableFuture.completedFuture(null);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed.complete(null);
        }
    }
}
