package io.linerate.jobs.format;

import java.util.Objects;
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
 * <p>Metric: counter {@code deadLetters}.
 * <pre>{@code
 * SingleOutputStreamOperator<PacketBatch> batches = SplitDecoded.split(source, PacketBatchTypeInfo.INSTANCE);
 * DataStream<DeadLetter> dead = batches.getSideOutput(DeadLetter.TAG);
 * }</pre>
 */
public final class SplitDecoded<T> extends ProcessFunction<Decoded<T>, T> implements ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final TypeInformation<T> valueType;
    private transient Counter deadLetters;

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
    }

    @Override
    public void processElement(Decoded<T> in, Context ctx, Collector<T> out) {
        if (in.deadLetter != null) {
            if (deadLetters != null) {
                deadLetters.inc();
            }
            ctx.output(DeadLetter.TAG, in.deadLetter);
        } else {
            out.collect(in.value);
        }
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return valueType;
    }
}
