package io.linerate.jobs.local;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The minimal {@link Feeder}: numbered text records {@code record-000000001}, {@code record-000000002}, … at a
 * target rate, optionally a fixed number of them. Idempotent producer, {@code acks=all}: each record the count
 * includes is in the topic once.
 */
public final class PassThroughFeeder implements Feeder {

  private final int recordsPerSecond;
  private final long limit;

  /** Records at {@code recordsPerSecond} until stopped. */
  public PassThroughFeeder(int recordsPerSecond) {
    this(recordsPerSecond, Long.MAX_VALUE);
  }

  /** At most {@code limit} records at {@code recordsPerSecond}, then returns. */
  public PassThroughFeeder(int recordsPerSecond, long limit) {
    if (recordsPerSecond < 1) {
      throw new IllegalArgumentException("recordsPerSecond must be >= 1, got " + recordsPerSecond);
    }
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, got " + limit);
    }
    this.recordsPerSecond = recordsPerSecond;
    this.limit = limit;
  }

  /** The value of the {@code n}-th record (from 1). */
  public static String record(long n) {
    return String.format(Locale.ROOT, "record-%09d", n);
  }

  @Override
  public String description() {
    return "numbered text records at " + recordsPerSecond + "/s" + (limit == Long.MAX_VALUE ? "" : ", " + limit + " of them");
  }

  @Override
  public void feed(FeedContext context) throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "linerate-demo-feeder");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    long begin = System.nanoTime();
    long n = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      // sends in slices of 10 ms; each slice is acknowledged before it counts, so the count is what the topic holds
      long perSlice = Math.max(1, recordsPerSecond / 100);
      while (n < limit && !context.stopRequested() && !Thread.currentThread().isInterrupted()) {
        long due = Math.min(limit, (System.nanoTime() - begin) * recordsPerSecond / 1_000_000_000L + 1);
        if (n >= due) {
          Thread.sleep(5);
          continue;
        }
        long sliceEnd = Math.min(due, n + perSlice);
        Future<RecordMetadata> last = null;
        long first = n;
        while (n < sliceEnd) {
          n++;
          String value = record(n);
          last = producer.send(new ProducerRecord<>(context.topic(), value, value));
        }
        producer.flush();
        last.get(30, TimeUnit.SECONDS);
        context.sent(n - first);
      }
    }
  }
}
