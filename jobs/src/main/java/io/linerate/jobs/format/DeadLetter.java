package io.linerate.jobs.format;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.BasicArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ObjectArrayTypeInfo;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.util.OutputTag;

/**
 * A Kafka record the job could not decode, bound for the dead-letter topic: where it came from (topic, partition,
 * offset, Kafka timestamp), why ({@link #reason}, {@link #errorOffset}: the byte offset in the value, −1 when none
 * applies), and the record itself as far as the deserializer's limits keep it: the value ({@link #value}, with the
 * original length in {@link #valueLength}), the key ({@link #key}, {@link #keyLength}) and the headers
 * ({@link #headerKeys}, {@link #headerValues}, a prefix of the record's {@link #headerCount}). A record within the
 * limits can be written again exactly ({@link DeadLetterReplay}).
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
    /** The first bytes of the record's key (all of it when short enough); empty for a null key. */
    public byte[] key;
    /** The key's full length in bytes, −1 for a null key. */
    public int keyLength;
    /** The names of the kept headers, in the record's order (the first {@code headerKeys.length} of them). */
    public String[] headerKeys;
    /** The values of the kept headers, parallel to {@link #headerKeys}; an element is null for a null value. */
    public byte[][] headerValues;
    /** How many headers the record had: more than {@link #headerKeys} holds when some were over the limits. */
    public int headerCount;

    public DeadLetter() {
    }

    /** A dead letter of a record without key and headers. */
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
        this.key = new byte[0];
        this.keyLength = -1;
        this.headerKeys = new String[0];
        this.headerValues = new byte[0][];
        this.headerCount = 0;
    }

    /**
     * Sets the record's key (its first bytes and full length, −1 for a null key) and headers (the kept ones and how
     * many the record had).
     *
     * @throws IllegalArgumentException if the header arrays differ in length or hold more than {@code headerCount}
     */
    public DeadLetter keyAndHeaders(byte[] key, int keyLength, String[] headerKeys, byte[][] headerValues,
                                    int headerCount) {
        if (headerKeys.length != headerValues.length || headerKeys.length > headerCount) {
            throw new IllegalArgumentException("header keys (" + headerKeys.length + "), values ("
                    + headerValues.length + ") and count (" + headerCount + ") disagree");
        }
        this.key = Objects.requireNonNull(key, "key");
        this.keyLength = keyLength;
        this.headerKeys = headerKeys;
        this.headerValues = headerValues;
        this.headerCount = headerCount;
        return this;
    }

    /** Whether {@link #value} holds less than the whole value. */
    public boolean truncated() {
        return value != null && valueLength > value.length;
    }

    /** Whether {@link #key} holds less than the whole key. */
    public boolean keyTruncated() {
        return key != null && keyLength > key.length;
    }

    /** Whether some of the record's headers were left out (over the count or bytes limit). */
    public boolean headersTruncated() {
        return headerCount > keptHeaders();
    }

    /** The number of headers kept. */
    public int keptHeaders() {
        return headerKeys == null ? 0 : headerKeys.length;
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
                    new PojoField(c.getField("valueLength"), Types.INT),
                    new PojoField(c.getField("key"), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
                    new PojoField(c.getField("keyLength"), Types.INT),
                    new PojoField(c.getField("headerKeys"), BasicArrayTypeInfo.STRING_ARRAY_TYPE_INFO),
                    new PojoField(c.getField("headerValues"), ObjectArrayTypeInfo.getInfoFor(byte[][].class,
                            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)),
                    new PojoField(c.getField("headerCount"), Types.INT)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && Objects.equals(topic, d.topic) && partition == d.partition
                && offset == d.offset && timestamp == d.timestamp && Objects.equals(reason, d.reason)
                && errorOffset == d.errorOffset && Arrays.equals(value, d.value) && valueLength == d.valueLength
                && Arrays.equals(key, d.key) && keyLength == d.keyLength && Arrays.equals(headerKeys, d.headerKeys)
                && Arrays.deepEquals(headerValues, d.headerValues) && headerCount == d.headerCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, reason);
    }

    @Override
    public String toString() {
        return "DeadLetter{" + topic + "-" + partition + "@" + offset + ": " + reason
                + (errorOffset >= 0 ? " (at byte " + errorOffset + ")" : "") + ", " + valueLength + " bytes, key "
                + keyLength + " bytes, " + headerCount + " headers}";
    }
}
