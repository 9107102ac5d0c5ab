package io.linerate.jobs.dedup;

import java.util.Objects;

import io.linerate.jobs.format.BytesDecoder;
import io.linerate.jobs.format.EventRecordSize;
import io.linerate.jobs.format.MalformedRecordException;

/**
 * Decodes scoped events and refuses, as malformed, one whose output record could be longer than the sinks can write
 * ({@link EventRecordSize} against {@code maxValueBytes}, the sinks' {@code max.request.size} less a record's
 * overhead). Input values have no size limit of their own, and the envelope adds the key and about a hundred bytes:
 * without this check such an event reaches the sink, the producer refuses it ({@code RecordTooLargeException}), the
 * job fails, and the restored job reads the same event again.
 */
final class OutputSizeCheck implements BytesDecoder<ScopedEvent> {

  private static final long serialVersionUID = 1L;

  private final BytesDecoder<ScopedEvent> events;
  private final int maxValueBytes;

  OutputSizeCheck(BytesDecoder<ScopedEvent> events, int maxValueBytes) {
    this.events = Objects.requireNonNull(events, "events");
    this.maxValueBytes = maxValueBytes;
  }

  @Override
  public ScopedEvent decode(byte[] value) throws MalformedRecordException {
    ScopedEvent e = events.decode(value);
    long bytes = EventRecordSize.of(e.event, value.length);
    if (bytes > maxValueBytes) {
      throw new MalformedRecordException("event too large for the output: its output record may take " + bytes
          + " bytes, more than the " + maxValueBytes + " the Kafka sinks can write (the smaller of max.request.size and buffer.memory, less the "
          + "record overhead)", MalformedRecordException.NO_OFFSET);
    }
    return e;
  }

  @Override
  public String toString() {
    return events + " of output records <= " + maxValueBytes + " bytes";
  }
}
