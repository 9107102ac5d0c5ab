package io.linerate.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A topic's committed records streamed to a consumer, not kept ({@code TopicReader} keeps them: too much at the full
 * scale): every partition from its beginning to its last stable offset at the time of the call, once the
 * transactions committed before the call have their markers ({@code TopicReader.awaitMarkers}).
 */
final class CommittedRecords {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private CommittedRecords() {
  }

  /** Hands each committed value of {@code topic} to {@code each}, partition by partition. */
  static void forEach(String bootstrapServers, String topic, Consumer<byte[]> each) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // the transactions committed before the call (a finished job's last ones included) as well: their markers,
      // which the broker writes after the commit returned, decide where the last stable offset stands
      TopicReader.awaitMarkers(bootstrapServers);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("topic " + topic + " not read to its end offsets " + end + " within " + DEADLINE);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          each.accept(record.value());
        }
      }
    }
  }
}
