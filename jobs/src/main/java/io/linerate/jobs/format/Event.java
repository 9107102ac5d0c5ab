package io.linerate.jobs.format;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * A generic event read by {@link JsonEventFormat}: the key the operators count or deduplicate, its weight, its
 * event time (epoch ms, {@link #NO_TIMESTAMP} when the format reads none) and the raw JSON, passed through to the
 * output unchanged. A Flink POJO serialized field by field ({@link #typeInfo()}).
 */
public final class Event {

    /**
     * The timestamp of an event whose format has no timestamp field: {@link io.linerate.jobs.kafka.KafkaInput} stamps
     * such an event with its Kafka record's time.
     */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    public String key;
    public long weight;
    public long timestamp;
    /** The event's JSON text as it arrived. */
    public String json;

    public Event() {
    }

    public Event(String key, long weight, long timestamp, String json) {
        this.key = key;
        this.weight = weight;
        this.timestamp = timestamp;
        this.json = json;
    }

    public static TypeInformation<Event> typeInfo() {
        try {
            Class<Event> c = Event.class;
            return new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("key"), Types.STRING),
                    new PojoField(c.getField("weight"), Types.LONG),
                    new PojoField(c.getField("timestamp"), Types.LONG),
                    new PojoField(c.getField("json"), Types.STRING)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e && Objects.equals(key, e.key) && weight == e.weight && timestamp == e.timestamp
                && Objects.equals(json, e.json);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, weight, timestamp, json);
    }

    @Override
    public String toString() {
        return "Event{" + key + " w=" + weight + " @" + timestamp + "}";
    }
}
