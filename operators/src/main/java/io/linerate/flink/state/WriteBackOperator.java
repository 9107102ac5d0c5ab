package io.linerate.flink.state;

import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * Flink's {@link KeyedProcessOperator} for a {@link WriteBackFunction}: gives the function the key context its
 * {@link WriteBackCache} switches for write-backs (none unless {@link WriteBackCache#storesSerialized}), and has it
 * write back whenever the operator's state is snapshotted ({@link #snapshotState}, checkpoints and savepoints, before
 * the keyed state backend takes its snapshot) and when the input ends. Timers, side outputs and state names are those
 * of {@code KeyedProcessOperator}, so state written under either restores under the other.
 *
 * @param <K> the key
 * @param <I> the input
 * @param <O> the output
 */
public final class WriteBackOperator<K, I, O> extends KeyedProcessOperator<K, I, O> {

    private static final long serialVersionUID = 1L;

    public <F extends KeyedProcessFunction<K, I, O> & WriteBackFunction<K>> WriteBackOperator(F function) {
        super(function);
    }

    @Override
    public void open() throws Exception {
        function().bindKeys(WriteBackCache.keysOf(this));
        super.open();
    }

    /**
     * Writes back before the state is snapshotted: Flink calls this, in the task's thread, before it snapshots the
     * keyed state backend, for checkpoints and savepoints alike.
     */
    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        function().writeBack();
        super.snapshotState(context);
    }

    /** Writes back at the end of the input too (defensive: a snapshot after {@code finish()} holds what is written). */
    @Override
    public void finish() throws Exception {
        super.finish();
        function().writeBack();
    }

    @SuppressWarnings("unchecked")
    private WriteBackFunction<K> function() {
        return (WriteBackFunction<K>) userFunction;
    }
}
