package io.linerate.jobs.dedup;

import java.util.Objects;

import io.linerate.jobs.format.BytesDecoder;
import io.linerate.jobs.format.Event;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.MalformedRecordException;

/**
 * Reads a JSON event with {@link JsonEventFormat} and its scope: the value of {@code scopeField} (a string or an
 * integral number, located as the key field is: JSON pointer or dotted path), or a constant scope when no scope
 * field is configured. A missing, null or non-scalar scope field makes the record malformed, with a reason naming
 * the scope field.
 *
 * <p>Cost: one JSON parse per record without a scope field; with one, a second parse of the same bytes (by a
 * {@link JsonEventFormat} whose key is the scope field), so the scope follows exactly the key field's rules.
 */
public final class ScopedEventFormat implements BytesDecoder<ScopedEvent> {

  private static final long serialVersionUID = 1L;

  private final JsonEventFormat events;
  private final JsonEventFormat scopes;
  private final String constantScope;

  /**
   * @param events how key, weight and timestamp are read
   * @param scopeField where the scope is, or {@code null} for {@code constantScope}
   * @param constantScope the scope of every event when {@code scopeField} is null
   * @throws IllegalArgumentException naming {@code scopeField} when it is not a valid location
   */
  public ScopedEventFormat(JsonEventFormat events, String scopeField, String constantScope) {
    this.events = Objects.requireNonNull(events, "events");
    this.constantScope = Objects.requireNonNull(constantScope, "constantScope");
    if (scopeField == null) {
      this.scopes = null;
    } else {
      try {
        this.scopes = JsonEventFormat.builder().keyField(scopeField).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage().replace("keyField", "scopeField"), e);
      }
    }
  }

  /** How key, weight and timestamp are read. */
  public JsonEventFormat events() {
    return events;
  }

  @Override
  public ScopedEvent decode(byte[] value) throws MalformedRecordException {
    Event event = events.decode(value);
    if (scopes == null) {
      return new ScopedEvent(constantScope, event);
    }
    try {
      return new ScopedEvent(scopes.decode(value).key, event);
    } catch (MalformedRecordException e) {
      String reason = e.reason();
      throw new MalformedRecordException(reason.startsWith("key field") ? "scope" + reason.substring(3) : reason,
          e.offset());
    }
  }

  @Override
  public String toString() {
    return "ScopedEventFormat{" + events + ", scope=" + (scopes == null ? "'" + constantScope + "'"
        : scopes.keyField()) + "}";
  }
}
