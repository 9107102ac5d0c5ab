package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.linerate.jobs.format.Decoded;
import io.linerate.jobs.kafka.ExactlyOnceSink;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The dedup job's output-size checks (the raw output's whole-record limit, {@link RawRecordDecoder}, and the envelope
 * limit, {@link OutputSizeCheck}) follow the sinks' {@code max.request.size} and {@code buffer.memory} as configured
 * by {@code sinkProperty}. Before, they took Kafka's defaults (1 MiB) whatever the sinks were given: a larger
 * configured limit still dead-lettered records the sinks could write, and a smaller one let through records the sink
 * would then fail on (RecordTooLargeException, again on every restart). Seen at build time, through the job's own
 * decoding.
 */
class DedupSinkSizeLimitTest {

  private static final int MIB = 1 << 20;

  private static DedupJob.Builder job(DedupJob.OutputFormat format) {
    return DedupJob.builder().keyField("id").timestampField("ts").duplicatesTopic("dups").outputFormat(format);
  }

  private static ConsumerRecord<byte[], byte[]> record(byte[] key, String value) {
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>("events", 0, 7, 1L, TimestampType.CREATE_TIME, key.length, v.length, key, v,
        new RecordHeaders(), Optional.empty());
  }

  private static String event(int padding) {
    return "{\"id\":\"a\",\"ts\":1763720000000,\"pad\":\"" + "x".repeat(padding) + "\"}";
  }

  private static String reason(DedupJob job, ConsumerRecord<byte[], byte[]> record) {
    Decoded<ScopedEvent> d = job.decoding().decode(record);
    return d.isDead() ? d.deadLetter.reason : null;
  }

  @Test
  void aLargerConfiguredLimitAdmitsLargerRecords() {
    ConsumerRecord<byte[], byte[]> bigKey = record(new byte[3 * MIB / 2], event(10));
    ConsumerRecord<byte[], byte[]> bigValue = record(new byte[1], event(3 * MIB / 2));
    DedupJob defaults = job(DedupJob.OutputFormat.RAW).build();
    assertThat(reason(defaults, bigKey)).startsWith("record too large for the raw output")
        .contains("more than the " + MIB + " the Kafka sinks can write");
    assertThat(reason(defaults, bigValue)).startsWith("event too large for the output");
    for (String key : new String[] {"max.request.size", "buffer.memory"}) {
      DedupJob larger = job(DedupJob.OutputFormat.RAW).sinkProperty("max.request.size", Integer.toString(4 * MIB))
          .sinkProperty("buffer.memory", Integer.toString(key.equals("buffer.memory") ? 2 * MIB : 8 * MIB)).build();
      assertThat(reason(larger, bigKey)).as("raw, %s", key).isNull();
      assertThat(reason(larger, bigValue)).as("raw, %s", key).isNull();
    }
    DedupJob envelope = job(DedupJob.OutputFormat.ENVELOPE).sinkProperty("max.request.size", Integer.toString(4 * MIB))
        .build();
    assertThat(reason(envelope, bigValue)).isNull();
  }

  @Test
  void aSmallerConfiguredLimitDeadLettersWhatTheSinkCouldNotWrite() {
    int small = 128 * 1024;
    ConsumerRecord<byte[], byte[]> keyed = record(new byte[200 * 1024], event(10));
    ConsumerRecord<byte[], byte[]> wide = record(new byte[1], event(200 * 1024));
    for (DedupJob.OutputFormat format : DedupJob.OutputFormat.values()) {
      assertThat(reason(job(format).build(), keyed)).as("%s, defaults", format).isNull();
      assertThat(reason(job(format).build(), wide)).as("%s, defaults", format).isNull();
    }
    DedupJob raw = job(DedupJob.OutputFormat.RAW).sinkProperty("max.request.size", Integer.toString(small)).build();
    assertThat(reason(raw, keyed)).startsWith("record too large for the raw output")
        .contains("more than the " + small + " the Kafka sinks can write");
    assertThat(reason(raw, wide)).startsWith("event too large for the output")
        .contains("more than the " + (small - ExactlyOnceSink.RECORD_OVERHEAD));
    // buffer.memory below max.request.size: the producer refuses a record larger than its buffer too
    DedupJob buffer = job(DedupJob.OutputFormat.ENVELOPE).sinkProperty("buffer.memory", Integer.toString(small))
        .build();
    assertThat(reason(buffer, wide)).startsWith("event too large for the output");
  }
}
