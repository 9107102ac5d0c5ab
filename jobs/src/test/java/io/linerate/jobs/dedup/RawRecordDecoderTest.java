package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.Decoded;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.MalformedRecordException;
import io.linerate.jobs.kafka.JsonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The raw output's decoding keeps the input record's key, headers and timestamp, and refuses — as a dead letter naming
 * the limit, never by dropping or cutting — a record with more than {@link RawRecordDecoder#MAX_HEADERS} headers or one
 * the sinks could not write whole; {@link RawRecords} writes the kept record back.
 */
class RawRecordDecoderTest {

  private static final int LIMIT = 3_000;
  private final ScopedEventFormat events = new ScopedEventFormat(JsonEventFormat.builder().keyField("id")
      .timestampField("ts").build(), null, "all");
  private final RawRecordDecoder decoder = new RawRecordDecoder(new OutputSizeCheck(events, 1 << 20), LIMIT);

  private static byte[] event(String id) {
    return ("{\"id\":\"" + id + "\",\"ts\":1763720000000}").getBytes(StandardCharsets.UTF_8);
  }

  private static ConsumerRecord<byte[], byte[]> record(long timestamp, byte[] key, byte[] value, List<Header> headers) {
    return new ConsumerRecord<>("events", 0, 7, timestamp, TimestampType.CREATE_TIME, key == null ? -1 : key.length,
        value.length, key, value, new RecordHeaders(headers), Optional.empty());
  }

  @Test
  void keepsTheKeyHeadersAndTimestampAndWritesThemBack() throws Exception {
    List<Header> headers = List.of(new RecordHeader("trace", new byte[] {1}), new RecordHeader("none", null),
        new RecordHeader("trace", new byte[0]));
    ScopedEvent e = decoder.decode(record(1_763_000_000_000L, new byte[] {0, -1}, event("a"), headers));
    assertThat(e.event.key).isEqualTo("a");
    assertThat(e.record).isEqualTo(new InputRecord(new byte[] {0, -1}, new String[] {"trace", "none", "trace"},
        new byte[][] {{1}, null, {}}, 1_763_000_000_000L));

    ProducerRecord<byte[], byte[]> out = new RawRecords("unique").serialize(e, null, Long.MAX_VALUE);
    assertThat(out.topic()).isEqualTo("unique");
    assertThat(out.partition()).as("partitioned by the key, as the input's producer did").isNull();
    assertThat(out.key()).isEqualTo(new byte[] {0, -1});
    assertThat(out.value()).isEqualTo(event("a"));
    assertThat(out.headers().toArray()).containsExactlyElementsOf(headers);
    assertThat(out.timestamp()).as("the input's, not the Flink timestamp").isEqualTo(1_763_000_000_000L);

    // no key, no headers, no timestamp: none written, stamped at writing
    ScopedEvent bare = decoder.decode(record(-1, null, event("b"), List.of()));
    assertThat(bare.record.timestamp).isEqualTo(InputRecord.NO_TIMESTAMP);
    ProducerRecord<byte[], byte[]> plain = new RawRecords("unique").serialize(bare, null, 5L);
    assertThat(plain.key()).isNull();
    assertThat(plain.headers().toArray()).isEmpty();
    assertThat(plain.timestamp()).isNull();
  }

  @Test
  void moreHeadersThanTheLimitIsADeadLetterNamingIt() throws Exception {
    List<Header> headers = new ArrayList<>();
    for (int i = 0; i < RawRecordDecoder.MAX_HEADERS; i++) {
      headers.add(new RecordHeader("h", new byte[0]));
    }
    assertThat(decoder.decode(record(1, null, event("a"), headers)).record.headerKeys)
        .hasSize(RawRecordDecoder.MAX_HEADERS);
    headers.add(new RecordHeader("h", new byte[0]));
    // through the source's deserializer: a dead letter with the reason, keeping the key and the first headers
    Decoded<ScopedEvent> d = KafkaDecoding.records(decoder, ScopedEvent.typeInfo(), 4096)
        .decode(record(1, new byte[] {3}, event("a"), headers));
    DeadLetter letter = d.deadLetter;
    assertThat(letter).isNotNull();
    assertThat(letter.reason).isEqualTo("record has " + (RawRecordDecoder.MAX_HEADERS + 1) + " headers, more than "
        + "the " + RawRecordDecoder.MAX_HEADERS + " a raw output record may carry");
    assertThat(letter.headerCount).isEqualTo(RawRecordDecoder.MAX_HEADERS + 1);
    assertThat(letter.key).isEqualTo(new byte[] {3});
  }

  /**
   * The limit is on key, value and headers together as the producer sizes the record: a value far within the limit
   * is refused with a key or headers that take the record over it, exactly one byte over.
   */
  @Test
  void aRecordTooLargeWithItsKeyAndHeadersIsRefused() throws Exception {
    byte[] value = event("a");
    int largest = 0;
    while (fits(new byte[largest + 1], value, List.of())) {
      largest++;
    }
    int keyBytes = largest;
    assertThat(keyBytes).isBetween(LIMIT - value.length - 100, LIMIT - value.length);
    decoder.decode(record(1, new byte[keyBytes], value, List.of()));
    MalformedRecordException e = catchThrowableOfType(MalformedRecordException.class,
        () -> decoder.decode(record(1, new byte[keyBytes + 1], value, List.of())));
    assertThat(e.reason()).isEqualTo("record too large for the raw output: key, value and headers take "
        + (LIMIT + 1) + " bytes as a Kafka record, more than the " + LIMIT + " the Kafka sinks can write "
        + "(the smaller of max.request.size and buffer.memory)");
    assertThat(e.offset()).isEqualTo(-1);
    // header bytes count too
    assertThat(fits(new byte[keyBytes - 10], value, List.of(new RecordHeader("trace", new byte[20])))).isFalse();
  }

  private boolean fits(byte[] key, byte[] value, List<Header> headers) {
    try {
      decoder.decode(record(1, key, value, headers));
      return true;
    } catch (MalformedRecordException e) {
      return false;
    }
  }

  /** The job's limit is the sinks' max.request.size (1 MiB) as the producer compares a record's size with it. */
  @Test
  void theJobsLimitIsTheSinksMaxRequestSize() {
    assertThat(JsonTopics.maxRecordBytes()).isEqualTo(1 << 20);
  }
}
