package io.linerate.jobs.dedup;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The {@code raw} output: each event written to {@code topic} as the record it came in ({@link ScopedEvent#record},
 * kept by {@link RawRecordDecoder}): its key, its value (the event's JSON: the input's bytes, which
 * {@code JsonEventFormat} takes only as strict UTF-8, so encoding the text again gives them back), its headers in
 * their order, and its Kafka timestamp. So the default partitioner puts it by its key as the producer of the input
 * did (a record without key goes to any partition), and a consumer reading headers or the record's time (Kafka
 * Streams' default timestamp extractor, a Flink Kafka source, {@code offsetsForTimes}) sees what it would see
 * without the dedup stage.
 *
 * <p>The timestamp is the input record's, not the time of writing that every other output of the jobs carries
 * ({@code JsonTopics}): that one is there because an element's Flink timestamp may be far from the broker's clock;
 * an input record's timestamp was taken by a broker already. The output topic must take it as the input topic did
 * ({@code message.timestamp.before.max.ms} / {@code after.max.ms} no tighter than the input's, or
 * {@code message.timestamp.type=LogAppendTime}): a refused record fails the sink. The job commands warn of bounds
 * that can refuse them before the job is submitted ({@link DedupJob#writtenTopics}, {@code TopicPreflight}). A
 * record without timestamp is stamped at writing.
 */
final class RawRecords implements KafkaRecordSerializationSchema<ScopedEvent> {

  private static final long serialVersionUID = 1L;

  private final String topic;

  RawRecords(String topic) {
    this.topic = Objects.requireNonNull(topic, "topic");
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(ScopedEvent e, KafkaSinkContext context, Long flinkTimestamp) {
    byte[] value = e.event.json.getBytes(StandardCharsets.UTF_8);
    InputRecord r = e.record;
    if (r == null) { // a wiring error: writing the value alone would drop the key and headers unnoticed
      throw new IllegalStateException("a raw output event without its input record (not decoded by "
          + "RawRecordDecoder): " + e);
    }
    List<Header> headers = new ArrayList<>(r.headerKeys.length);
    for (int i = 0; i < r.headerKeys.length; i++) {
      headers.add(new RecordHeader(r.headerKeys[i], r.headerValues[i]));
    }
    return new ProducerRecord<>(topic, null, r.timestamp < 0 ? null : r.timestamp, r.key, value, headers);
  }
}
