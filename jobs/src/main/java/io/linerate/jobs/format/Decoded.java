package io.linerate.jobs.format;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * What the Kafka deserializer emits for one record: EITHER the decoded {@link #value} OR a {@link #deadLetter}
 * (exactly one is non-null). A Kafka source has one output type and no side outputs, so the dead letter travels in
 * this union to the {@link SplitDecoded} function chained right after the source, which emits the values and
 * sends the dead letters to {@link DeadLetter#TAG}.
 *
 * <p>A Flink POJO whose {@code value} keeps its own type information ({@link #typeInfo}); the null field costs one
 * byte.
 */
public final class Decoded<T> {

    public T value;
    public DeadLetter deadLetter;

    public Decoded() {
    }

    public static <T> Decoded<T> of(T value) {
        Decoded<T> d = new Decoded<>();
        d.value = Objects.requireNonNull(value, "value");
        return d;
    }

    public static <T> Decoded<T> dead(DeadLetter letter) {
        Decoded<T> d = new Decoded<>();
        d.deadLetter = Objects.requireNonNull(letter, "letter");
        return d;
    }

    public boolean isDead() {
        return deadLetter != null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <T> TypeInformation<Decoded<T>> typeInfo(TypeInformation<T> valueType) {
        Objects.requireNonNull(valueType, "valueType");
        try {
            Class<Decoded> c = Decoded.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("value"), valueType),
                    new PojoField(c.getField("deadLetter"), DeadLetter.typeInfo())));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Decoded<?> d && Objects.equals(value, d.value) && Objects.equals(deadLetter, d.deadLetter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, deadLetter);
    }

    @Override
    public String toString() {
        return deadLetter != null ? "Decoded{" + deadLetter + "}" : "Decoded{" + value + "}";
    }
}
