package io.linerate.jobs.format;

import java.util.Objects;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Splits the {@link Decoded} stream of a Kafka source: values go to the main output, dead letters to
 * {@link DeadLetter#TAG} (then to the dead-letter topic through {@link OutputJson#deadLetters()}). Chained to the source, so
 * the union costs no serialization when object reuse is on, and a copy of the decoded value otherwise.
 *
 * <p>Metric: counter {@code deadLetters}. Accumulators {@value #VALUES} and {@value #DEAD_LETTERS} (the records of the
 * job's last attempt, in the job's result: a job command's summary of a run that ended).
 * <pre>{@code
 * SingleOutputStreamOperator<PacketBatch> batches = SplitDecoded.split(source, PacketBatchTypeInfo.INSTANCE);
 * DataStream<DeadLetter> dead = batches.getSideOutput(DeadLetter.TAG);
 * }</pre>
 */
public final class SplitDecoded<T> extends ProcessFunction<Decoded<T>, T> implements ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;
    /** Accumulator of the records decoded into values. */
    public static final String VALUES = "linerate-values";
    /** Accumulator of the records sent to the dead letters. */
    public static final String DEAD_LETTERS = "linerate-dead-letters";

    private final TypeInformation<T> valueType;
    private transient Counter deadLetters;
    private transient LongCounter valuesRead;
    private transient LongCounter deadLettersRead;

    public SplitDecoded(TypeInformation<T> valueType) {
        this.valueType = Objects.requireNonNull(valueType, "valueType");
    }

    /** {@code decoded.process(new SplitDecoded<>(valueType))}, named "split dead letters". */
    public static <T> SingleOutputStreamOperator<T> split(DataStream<Decoded<T>> decoded, TypeInformation<T> valueType) {
        return decoded.process(new SplitDecoded<>(valueType), valueType).name("split dead letters");
    }

    @Override
    public void open(OpenContext context) {
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
        valuesRead = new LongCounter();
        deadLettersRead = new LongCounter();
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
