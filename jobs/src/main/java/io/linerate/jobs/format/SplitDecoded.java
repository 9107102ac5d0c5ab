package io.linerate.jobs.format;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Splits the {@link Decoded} stream of a Kafka source: values go to the main output, dead letters to
 * {@link DeadLetter#TAG} (then to the dead-letter topic through {@link OutputJson#deadLetters()}). Chained to the source, so
 * the union costs no serialization when object reuse is on, and a copy of the decoded value otherwise.
 *
 * <p>Metric: counter {@code deadLetters}, of this attempt of the subtask (it starts at 0 on every restart).
 * Accumulators {@value #VALUES} and {@value #DEAD_LETTERS}, in the job's result (a job command's summary of a run
 * that ended): the records of the whole run, each once. Both counts are operator state ({@link CheckpointedFunction}),
 * in the same checkpoint as the Kafka source's offsets, and a restored subtask starts its accumulators at the sum of
 * the entries it is given (rescaling moves entries, never splits or copies one): the restored count plus the records
 * read since is every record of the input read up to now, exactly once, across failures and restores from a
 * checkpoint or a savepoint. Two exceptions, both undercounts: a savepoint taken before the counts were state
 * restores them as 0 (the records read before it are not counted), and Flink keeps no operator state of a subtask
 * that had finished (a bounded source's partitions read to their end) when the checkpoint was taken, so a restore
 * from such a checkpoint loses that subtask's count.
 * <pre>{@code
 * SingleOutputStreamOperator<PacketBatch> batches = SplitDecoded.split(source, PacketBatchTypeInfo.INSTANCE);
 * DataStream<DeadLetter> dead = batches.getSideOutput(DeadLetter.TAG);
 * }</pre>
 */
public final class SplitDecoded<T> extends ProcessFunction<Decoded<T>, T>
        implements ResultTypeQueryable<T>, CheckpointedFunction {

    private static final long serialVersionUID = 1L;
    /** Accumulator of the records decoded into values. */
    public static final String VALUES = "linerate-values";
    /** Accumulator of the records sent to the dead letters. */
    public static final String DEAD_LETTERS = "linerate-dead-letters";

    /** Operator list state: the subtask's count of values at the checkpoint, one entry (a restore may give several). */
    private static final String VALUES_STATE = "values-read";
    /** Operator list state: likewise for dead letters. */
    private static final String DEAD_LETTERS_STATE = "dead-letters-read";

    private final TypeInformation<T> valueType;
    private transient Counter deadLetters;
    private transient LongCounter valuesRead;
    private transient LongCounter deadLettersRead;
    private transient ListState<Long> valuesState;
    private transient ListState<Long> deadLettersState;
    /** The counts restored by {@link #initializeState} (0 without state), the accumulators' start in {@link #open}. */
    private transient long restoredValues;
    private transient long restoredDeadLetters;

    public SplitDecoded(TypeInformation<T> valueType) {
        this.valueType = Objects.requireNonNull(valueType, "valueType");
    }

    /** {@code decoded.process(new SplitDecoded<>(valueType))}, named "split dead letters". */
    public static <T> SingleOutputStreamOperator<T> split(DataStream<Decoded<T>> decoded, TypeInformation<T> valueType) {
        return decoded.process(new SplitDecoded<>(valueType), valueType).name("split dead letters");
    }

    /**
     * Restores the counts: the sum of every entry given, since a rescale gives a subtask the entries of several
     * subtasks or none (even-split redistribution moves whole entries).
     */
    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        // a descriptor each time: a descriptor sets its serializer up on first use, not to be shared across subtasks
        valuesState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>(VALUES_STATE, Types.LONG));
        deadLettersState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>(DEAD_LETTERS_STATE, Types.LONG));
        restoredValues = sum(valuesState);
        restoredDeadLetters = sum(deadLettersState);
    }

    private static long sum(ListState<Long> state) throws Exception {
        long sum = 0;
        for (Long n : state.get()) {
            sum += n;
        }
        return sum;
    }

    /** Each count as one entry: the accumulators hold the restored counts plus this attempt's records. */
    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        valuesState.update(List.of(valuesRead.getLocalValue()));
        deadLettersState.update(List.of(deadLettersRead.getLocalValue()));
    }

    @Override
    public void open(OpenContext context) {
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
        valuesRead = new LongCounter(restoredValues);
        deadLettersRead = new LongCounter(restoredDeadLetters);
        getRuntimeContext().addAccumulator(VALUES, valuesRead);
        getRuntimeContext().addAccumulator(DEAD_LETTERS, deadLettersRead);
    }

    @Override
    public void processElement(Decoded<T> in, Context ctx, Collector<T> out) {
        if (in.deadLetter != null) {
            if (deadLetters != null) {
                deadLetters.inc();
                deadLettersRead.add(1L);
            }
            ctx.output(DeadLetter.TAG, in.deadLetter);
        } else {
            if (valuesRead != null) {
                valuesRead.add(1L);
            }
            out.collect(in.value);
        }
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return valueType;
    }
}
