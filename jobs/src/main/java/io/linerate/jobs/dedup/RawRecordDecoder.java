package io.linerate.jobs.dedup;

import java.util.Objects;

import io.linerate.jobs.format.BytesDecoder;
import io.linerate.jobs.format.MalformedRecordException;
import io.linerate.jobs.format.RecordDecoder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Decodes a scoped event for the {@code raw} output and keeps the rest of its Kafka record (key, headers, timestamp:
 * {@link InputRecord}), so that {@link RawRecords} writes the record as it came. Refuses, as malformed (a dead letter
 * naming the limit, never a silent drop or cut), a record with more than {@link #MAX_HEADERS} headers, and one whose
 * key, value and headers together take more than {@code maxRecordBytes} as a Kafka record (the producer's own
 * estimate, against which it refuses a record larger than {@code max.request.size}): such a record would fail the
 * sink, and the job, again on every restart. With those two limits an event in flight holds at most the sinks'
 * record size and 64 header objects besides the value.
 *
 * <p>The key and header values are the consumer's arrays, not copies: the consumer makes new ones per record.
 */
final class RawRecordDecoder implements RecordDecoder<ScopedEvent> {

  private static final long serialVersionUID = 1L;

  /** The most headers a raw output record may carry (as many as a dead letter keeps). */
  public static final int MAX_HEADERS = io.linerate.jobs.format.KafkaDecoding.MAX_DEAD_LETTER_HEADERS;

  private final BytesDecoder<ScopedEvent> events;
  private final int maxRecordBytes;

  /**
   * @param events decodes the value (with its own checks, e.g. {@link OutputSizeCheck})
   * @param maxRecordBytes the largest record the sinks can write: {@code max.request.size} (or {@code buffer.memory}
   *     when smaller), as the producer compares it with its estimate
   */
  RawRecordDecoder(BytesDecoder<ScopedEvent> events, int maxRecordBytes) {
    this.events = Objects.requireNonNull(events, "events");
    this.maxRecordBytes = maxRecordBytes;
  }

  @Override
  public ScopedEvent decode(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException {
    ScopedEvent e = events.decode(record.value());
    Header[] headers = record.headers().toArray();
    if (headers.length > MAX_HEADERS) {
      throw new MalformedRecordException("record has " + headers.length + " headers, more than the " + MAX_HEADERS
          + " a raw output record may carry", MalformedRecordException.NO_OFFSET);
    }
    int bytes = AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE,
        record.key(), record.value(), headers);
    if (bytes > maxRecordBytes) {
      throw new MalformedRecordException("record too large for the raw output: key, value and headers take " + bytes
          + " bytes as a Kafka record, more than the " + maxRecordBytes + " the Kafka sinks can write "
          + "(the smaller of max.request.size and buffer.memory)", MalformedRecordException.NO_OFFSET);
    }
    String[] names = new String[headers.length];
    byte[][] values = new byte[headers.length][];
    for (int i = 0; i < headers.length; i++) {
      names[i] = headers[i].key();
      values[i] = headers[i].value();
    }
    return e.withRecord(new InputRecord(record.key(), names, values,
        record.timestamp() < 0 ? InputRecord.NO_TIMESTAMP : record.timestamp()));
  }

  @Override
  public String toString() {
    return events + " with key, headers (<= " + MAX_HEADERS + ") and timestamp, records <= " + maxRecordBytes
        + " bytes";
  }
}
