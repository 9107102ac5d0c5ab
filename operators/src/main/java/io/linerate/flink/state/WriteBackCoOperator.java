package io.linerate.flink.state;

import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;

/**
 * {@link WriteBackOperator} for two inputs: Flink's {@link KeyedCoProcessOperator} for a {@link WriteBackFunction},
 * which gets the key context before {@code open} (none unless the backend stores values serialized) and writes back
 * whenever the operator's state is snapshotted and when the input ends.
 *
 * @param <K> the key
 * @param <I1> the first input
 * @param <I2> the second input
 * @param <O> the output
 */
public final class WriteBackCoOperator<K, I1, I2, O> extends KeyedCoProcessOperator<K, I1, I2, O> {

    private static final long serialVersionUID = 1L;

    public <F extends KeyedCoProcessFunction<K, I1, I2, O> & WriteBackFunction<K>> WriteBackCoOperator(F function) {
        super(function);
    }

    @Override
    public void open() throws Exception {
        function().bindKeys(WriteBackCache.keysOf(this));
        super.open();
    }

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
