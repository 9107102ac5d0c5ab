package io.linerate.it;

import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import io.linerate.jobs.feed.TrafficSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a test input topic: records of a {@link TrafficSource} in its order, each to the partition of its key
 * ({@code floorMod(Arrays.hashCode(key), partitions)}: the 8 observation points or 4 tenants spread evenly, every
 * scope's records in one partition and in one order), paced or as fast as possible, in parts; then the end
 * markers. Idempotent producer with {@code acks=all}: what {@link #flush()} returned for is in the topic exactly
 * once, in order.
 */
public final class InputWriter implements AutoCloseable {

  private final String topic;
  private final int partitions;
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private long units;
  private long records;

  public InputWriter(String bootstrapServers, String topic, int partitions) {
    this.topic = topic;
    this.partitions = partitions;
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(props);
  }

  /**
   * Writes records of {@code source} until {@code maxUnits} more packets or events are written (whole records, so
   * possibly a few more) or the source ends, at about {@code unitsPerSecond} (0: as fast as possible).
   *
   * @return the packets or events written by this call
   */
  public long write(TrafficSource source, long maxUnits, double unitsPerSecond) throws Exception {
    long begin = System.nanoTime();
    long written = 0;
    TrafficSource.Record r;
    while (written < maxUnits && (r = source.next()) != null) {
      send(partition(r.key()), r.key(), r.value());
      written += r.units();
      units += r.units();
      if (unitsPerSecond > 0) {
        long due = begin + (long) (written / unitsPerSecond * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          Thread.sleep(wait / 1_000_000);
        }
      }
    }
    flush();
    return written;
  }

  /** Writes one record to {@code partition}; the future gives its offset and timestamp once acknowledged. */
  public Future<RecordMetadata> send(int partition, byte[] key, byte[] value) throws Exception {
    return send(partition, key, value, List.of());
  }

  /** {@link #send(int, byte[], byte[])} of a record with {@code headers}. */
  public Future<RecordMetadata> send(int partition, byte[] key, byte[] value, List<Header> headers)
      throws Exception {
    rethrow();
    records++;
    return producer.send(new ProducerRecord<>(topic, partition, null, key, value, headers), (metadata, e) -> {
      if (e != null) {
        failure.compareAndSet(null, e);
      }
    });
  }

  /** One end marker per partition ({@link Workload#marker}), then a flush. */
  public void writeMarkers(Workload workload, long timestamp) throws Exception {
    for (int p = 0; p < partitions; p++) {
      send(p, null, workload.marker(p, timestamp));
    }
    flush();
  }

  /** The partition of a record's key (0 without key). */
  public int partition(byte[] key) {
    return key == null ? 0 : Math.floorMod(Arrays.hashCode(key), partitions);
  }

  /** Waits until every record sent is acknowledged; throws the first send failure. */
  public void flush() throws Exception {
    producer.flush();
    rethrow();
  }

  /** Packets or events written from traffic sources so far. */
  public long units() {
    return units;
  }

  /** Kafka records sent so far (traffic, markers and anything sent directly). */
  public long records() {
    return records;
  }

  private void rethrow() throws Exception {
    Exception e = failure.get();
    if (e != null) {
      throw new IllegalStateException("writing to " + topic + " failed: " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
