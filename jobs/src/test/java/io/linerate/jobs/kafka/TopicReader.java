package io.linerate.jobs.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic back for a test: every partition from its beginning to its end offset at the time of the
 * call. With {@code readCommitted} the end offset is the last stable offset, so the result holds exactly the
 * records of committed transactions (and non-transactional records) written before the call, and no wait on a
 * timeout decides what "all" means. An open transaction keeps the last stable offset back: its records, and
 * those after it, are not returned.
 */
public final class TopicReader {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private TopicReader() {}

  /** The values of every record of {@code topic}, partition by partition, as strings (UTF-8). */
  public static List<String> readAll(String bootstrapServers, String topic, boolean readCommitted) {
    List<String> values = new ArrayList<>();
    for (byte[] value : readAllValues(bootstrapServers, topic, readCommitted)) {
      values.add(value == null ? null : new String(value, StandardCharsets.UTF_8));
    }
    return values;
  }

  /** The values of every record of {@code topic}, partition by partition, as bytes. */
  public static List<byte[]> readAllValues(String bootstrapServers, String topic, boolean readCommitted) {
    List<byte[]> values = new ArrayList<>();
    forEachValue(bootstrapServers, topic, readCommitted, values::add);
    return values;
  }

  /**
   * Hands the value of every record of {@code topic} to {@code each}, partition by partition, without keeping them
   * (for outputs of millions of records). Fails if the end offsets are not reached, or no record arrives for
   * {@link #DEADLINE}.
   */
  public static void forEachValue(String bootstrapServers, String topic, boolean readCommitted,
      Consumer<byte[]> each) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, DEADLINE).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition()))
          .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, DEADLINE);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("topic " + topic + " not read to its end offsets " + end + ": nothing new for "
              + DEADLINE);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          each.accept(record.value());
          deadline = System.nanoTime() + DEADLINE.toNanos();
        }
      }
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }
}
