package io.linerate.jobs.format;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.util.OutputTag;

/**
 * A Kafka record the job could not decode, bound for the dead-letter topic: where it came from (topic, partition,
 * offset, Kafka timestamp), why ({@link #reason}, {@link #errorOffset}: the byte offset in the value, −1 when none
 * applies) and the value itself, truncated to the deserializer's limit ({@link #value}, with the original length in
 * {@link #valueLength}).
 *
 * <p>A Flink POJO serialized field by field through {@link #typeInfo()} (never Kryo).
 */
public final class DeadLetter {

    /** The side output {@link SplitDecoded} sends dead letters to. */
    public static final OutputTag<DeadLetter> TAG = new OutputTag<>("dead-letters", typeInfo());

    public String topic;
    public int partition;
    public long offset;
    /** The Kafka record's timestamp (epoch ms), −1 when it had none. */
    public long timestamp;
    public String reason;
    /** Byte offset in the value where decoding failed, −1 when the reason has no byte position. */
    public long errorOffset;
    /** The first bytes of the value (all of it when short enough); empty for a null value. */
    public byte[] value;
    /** The value's full length in bytes, −1 for a null value. */
    public int valueLength;

    public DeadLetter() {
    }

    public DeadLetter(String topic, int partition, long offset, long timestamp, String reason, long errorOffset,
                      byte[] value, int valueLength) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.reason = reason;
        this.errorOffset = errorOffset;
        this.value = value;
        this.valueLength = valueLength;
    }

    /** Whether {@link #value} holds less than the whole value. */
    public boolean truncated() {
        return value != null && valueLength > value.length;
    }

    public static TypeInformation<DeadLetter> typeInfo() {
        try {
            Class<DeadLetter> c = DeadLetter.class;
            return new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("topic"), Types.STRING),
                    new PojoField(c.getField("partition"), Types.INT),
                    new PojoField(c.getField("offset"), Types.LONG),
                    new PojoField(c.getField("timestamp"), Types.LONG),
                    new PojoField(c.getField("reason"), Types.STRING),
                    new PojoField(c.getField("errorOffset"), Types.LONG),
                    new PojoField(c.getField("value"), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
                    new PojoField(c.getField("valueLength"), Types.INT)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && Objects.equals(topic, d.topic) && partition == d.partition
                && offset == d.offset && timestamp == d.timestamp && Objects.equals(reason, d.reason)
                && errorOffset == d.errorOffset && Arrays.equals(value, d.value) && valueLength == d.valueLength;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, reason);
    }

    @Override
    public String toString() {
        return "DeadLetter{" + topic + "-" + partition + "@" + offset + ": " + reason
                + (errorOffset >= 0 ? " (at byte " + errorOffset + ")" : "") + ", " + valueLength + " bytes}";
    }
}
