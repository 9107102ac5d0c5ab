package io.linerate.flink.state;

import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;

/**
 * Flink's {@link KeyedProcessOperator} for a {@link WriteBackFunction}: gives the function the key context its
 * {@link WriteBackCache} switches for write-backs (none unless {@link WriteBackCache#storesSerialized}), and has it
 * write back whenever the operator's state is snapshotted ({@link #snapshotState}, checkpoints and savepoints, before
 * the keyed state backend takes its snapshot) and when the input ends. Timers, side outputs and state names are those
 * of {@code KeyedProcessOperator}, so state written under either restores under the other. It also tells the
 * function when event time ends ({@link WriteBackFunction#atEndOfEventTime}) and when the input ends
 * ({@link WriteBackFunction#atEndOfInput}), with a walk over every key of a state.
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

    /**
     * Writes back at the end of the input too (a snapshot after {@code finish()} holds what is written), before and
     * after the function's end-of-input pass: before, so that the pass walks the keys only cached until then.
     */
    @Override
    public void finish() throws Exception {
        super.finish();
        function().writeBack();
        function().atEndOfInput(this::forEachKey);
        function().writeBack();
    }

    /** After the timers a watermark fires; at {@code Long.MAX_VALUE} the function's end-of-event-time pass. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        if (mark.getTimestamp() == Long.MAX_VALUE) {
            function().atEndOfEventTime(this::forEachKey);
        }
    }

    private void forEachKey(StateDescriptor<?, ?> state, WriteBackFunction.Action action) throws Exception {
        walk(state, action);
    }

    private <S extends State, V> void walk(StateDescriptor<S, V> state, WriteBackFunction.Action action)
            throws Exception {
        getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, state,
                (key, value) -> action.run());
    }

    @SuppressWarnings("unchecked")
    private WriteBackFunction<K> function() {
        return (WriteBackFunction<K>) userFunction;
    }
}
