package io.linerate.jobs.feed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.linerate.jobs.format.MalformedRecordException;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketRecord;

/**
 * Reads a whole topic back as bytes with {@code read_committed} (like the kafka package's TopicReader, which reads
 * text): every partition from its beginning to its end offset, ordered by partition then offset.
 */
final class RawTopic {

    /** One record: partition, key and value bytes. */
    record Raw(int partition, byte[] key, byte[] value) {
        String keyText() {
            return new String(key, java.nio.charset.StandardCharsets.UTF_8);
        }

        PacketBatch batch() {
            try {
                return PacketBatchCodec.decode(value);
            } catch (MalformedRecordException e) {
                throw new AssertionError("record does not decode: " + e.getMessage(), e);
            }
        }
    }

    static List<Raw> read(String bootstrapServers, String topic) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
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
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("topic " + topic + " not read to its end offsets " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(all::add);
            }
        }
        all.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return all.stream().map(r -> new Raw(r.partition(), r.key(), r.value())).collect(Collectors.toList());
    }

    /** Every packet of every batch of {@code records}, in record order. */
    static List<PacketRecord> packets(List<Raw> records) {
        List<PacketRecord> packets = new ArrayList<>();
        for (Raw r : records) {
            r.batch().forEach(p -> packets.add(p.copy()));
        }
        return packets;
    }

    private RawTopic() {
    }
}
