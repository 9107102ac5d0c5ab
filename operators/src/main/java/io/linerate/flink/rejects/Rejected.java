package io.linerate.flink.rejects;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.util.OutputTag;

import java.util.List;
import java.util.Objects;

/**
 * A record an operator could not take, with the reason (which field, which limit). Operators send these to their
 * {@link #tag malformed-records side output} and count them; a job never crashes on, nor silently drops, a bad record.
 *
 * <p>A Flink POJO (public fields, no-argument constructor) whose {@code record} field keeps the input's own type
 * information, so rejected records are serialized exactly like accepted ones.
 */
public final class Rejected<T> {

    /** Name of the side output every linerate operator sends malformed records to. */
    public static final String OUTPUT_NAME = "malformed";

    /**
     * Name of the side output of the batch operators for batch records whose {@code ElementsOf} threw (a batch
     * that cannot be read): the batch and the reason, counted in the operator's {@code malformedBatches} metric.
     */
    public static final String BATCH_OUTPUT_NAME = "malformedBatches";

    /** The record as it arrived. */
    public T record;

    /** Why it was rejected, naming the field and the limit. */
    public String reason;

    /** For Flink's POJO serializer. */
    public Rejected() {
    }

    /** {@code record}, rejected for {@code reason}. */
    public Rejected(T record, String reason) {
        this.record = record;
        this.reason = reason;
    }

    /** Type information of {@code Rejected<T>} for an input of type {@code recordType}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <T> TypeInformation<Rejected<T>> typeInfo(TypeInformation<T> recordType) {
        Objects.requireNonNull(recordType, "recordType");
        try {
            return (TypeInformation) new PojoTypeInfo<>(Rejected.class, List.of(
                    new PojoField(Rejected.class.getField("record"), recordType),
                    new PojoField(Rejected.class.getField("reason"), Types.STRING)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    /** The malformed-records side output of an operator whose input has type {@code recordType}. */
    public static <T> OutputTag<Rejected<T>> tag(TypeInformation<T> recordType) {
        return new OutputTag<>(OUTPUT_NAME, typeInfo(recordType));
    }

    /** The side output of batch records that cannot be read, for batches of type {@code batchType}. */
    public static <B> OutputTag<Rejected<B>> batchTag(TypeInformation<B> batchType) {
        return new OutputTag<>(BATCH_OUTPUT_NAME, typeInfo(batchType));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rejected<?> other && Objects.equals(record, other.record)
                && Objects.equals(reason, other.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(record, reason);
    }

    @Override
    public String toString() {
        return "Rejected{" + reason + ": " + record + "}";
    }
}
