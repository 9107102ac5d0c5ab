package io.linerate.jobs.dedup;

import java.util.List;
import java.util.Objects;

import io.linerate.jobs.format.Event;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * An {@link Event} with the scope it is deduplicated in (the value of the scope field, e.g. a tenant, or the
 * constant scope), and for the {@code raw} output the rest of the Kafka record it came in ({@link #record}: key,
 * headers, timestamp; null otherwise). A Flink POJO serialized field by field ({@link #typeInfo()}), never Kryo; it
 * flows between operators only (the dedup operator's state holds filters, not events).
 */
public final class ScopedEvent {

  public String scope;
  public Event event;
  /** The input record's key, headers and timestamp when the output is raw, else null (one byte serialized). */
  public InputRecord record;

  public ScopedEvent() {
  }

  public ScopedEvent(String scope, Event event) {
    this.scope = scope;
    this.event = event;
  }

  /** This event with the rest of the Kafka record it came in. */
  public ScopedEvent withRecord(InputRecord record) {
    this.record = record;
    return this;
  }

  /** The event's key (what identifies a duplicate). */
  public static String keyOf(ScopedEvent e) {
    return e.event.key;
  }

  /** The event's timestamp (epoch ms). */
  public static long timestampOf(ScopedEvent e) {
    return e.event.timestamp;
  }

  /** The event alone (for the output writers). */
  public static Event eventOf(ScopedEvent e) {
    return e.event;
  }

  public static TypeInformation<ScopedEvent> typeInfo() {
    try {
      Class<ScopedEvent> c = ScopedEvent.class;
      return new PojoTypeInfo<>(c, List.of(
          new PojoField(c.getField("scope"), Types.STRING),
          new PojoField(c.getField("event"), Event.typeInfo()),
          new PojoField(c.getField("record"), InputRecord.typeInfo())));
    } catch (NoSuchFieldException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScopedEvent s && Objects.equals(scope, s.scope) && Objects.equals(event, s.event)
        && Objects.equals(record, s.record);
  }

  @Override
  public int hashCode() {
    return Objects.hash(scope, event);
  }

  @Override
  public String toString() {
    return "ScopedEvent{" + scope + ": " + event + (record == null ? "" : ", " + record) + "}";
  }
}
