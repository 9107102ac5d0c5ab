package io.linerate.jobs.dedup;

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

/**
 * The parts of an input Kafka record besides its value, kept for the {@code raw} output so that it writes the record
 * as it came ({@link RawRecords}): the key, the headers in their order (repeated names and null values included) and
 * the Kafka timestamp. Bounded by {@link RawRecordDecoder}: at most {@link RawRecordDecoder#MAX_HEADERS} headers, and
 * key, value and headers together within what the sinks can write. A Flink POJO serialized field by field
 * ({@link #typeInfo()}); it flows between operators only, never in state.
 */
public final class InputRecord {

  /** The timestamp of a record that had none (Kafka's {@code RecordBatch.NO_TIMESTAMP}). */
  public static final long NO_TIMESTAMP = -1;

  /** The record's key, null for a null key. */
  public byte[] key;
  /** The header names in the record's order. */
  public String[] headerKeys;
  /** The header values, parallel to {@link #headerKeys}; an element is null for a null value. */
  public byte[][] headerValues;
  /** The record's Kafka timestamp (epoch ms), {@link #NO_TIMESTAMP} when it had none. */
  public long timestamp;

  public InputRecord() {
  }

  /** @throws IllegalArgumentException if the header arrays differ in length */
  public InputRecord(byte[] key, String[] headerKeys, byte[][] headerValues, long timestamp) {
    if (headerKeys.length != headerValues.length) {
      throw new IllegalArgumentException("header keys (" + headerKeys.length + ") and values ("
          + headerValues.length + ") disagree");
    }
    this.key = key;
    this.headerKeys = headerKeys;
    this.headerValues = headerValues;
    this.timestamp = timestamp;
  }

  public static TypeInformation<InputRecord> typeInfo() {
    try {
      Class<InputRecord> c = InputRecord.class;
      return new PojoTypeInfo<>(c, List.of(
          new PojoField(c.getField("key"), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
          new PojoField(c.getField("headerKeys"), BasicArrayTypeInfo.STRING_ARRAY_TYPE_INFO),
          new PojoField(c.getField("headerValues"), ObjectArrayTypeInfo.getInfoFor(byte[][].class,
              PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)),
          new PojoField(c.getField("timestamp"), Types.LONG)));
    } catch (NoSuchFieldException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InputRecord r && Arrays.equals(key, r.key) && Arrays.equals(headerKeys, r.headerKeys)
        && Arrays.deepEquals(headerValues, r.headerValues) && timestamp == r.timestamp;
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(key), Arrays.hashCode(headerKeys), timestamp);
  }

  @Override
  public String toString() {
    return "InputRecord{key " + (key == null ? "null" : key.length + " bytes") + ", "
        + (headerKeys == null ? 0 : headerKeys.length) + " headers @" + timestamp + "}";
  }
}
