package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TopicReader}'s {@code read_committed} reads see every transaction whose commit returned before the read.
 * {@code commitTransaction()} returns once the coordinator has logged the commit and the markers follow: on the
 * build machine the last stable offset was still before the transaction right after 117 of 190 commits (up to
 * 230 ms), and a read right after a commit (other transactions committing meanwhile) missed its records once in 60.
 */
class TopicReaderTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private static final int PARTITIONS = 4;

  @Test
  void awaitMarkersLeavesNoPartitionBehindACommitThatJustReturned() throws Exception {
    String topic = "just-committed";
    KAFKA.broker().createTopic(topic, PARTITIONS);
    try (KafkaProducer<String, String> producer = producer("just-committed");
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
      producer.initTransactions();
      for (int i = 0; i < 20; i++) {
        producer.beginTransaction();
        for (int p = 0; p < PARTITIONS; p++) {
          producer.send(new ProducerRecord<>(topic, p, null, "v" + i));
        }
        producer.commitTransaction();
        TopicReader.awaitMarkers(KAFKA.bootstrapServers());
        assertThat(offsets(admin, topic, IsolationLevel.READ_COMMITTED)).as("last stable offsets after commit %d", i)
            .isEqualTo(offsets(admin, topic, IsolationLevel.READ_UNCOMMITTED));
      }
    }
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, true)).hasSize(20 * PARTITIONS);
  }

  /** Open transactions are not waited for: their records, and the committed ones after them, are not read. */
  @Test
  void anOpenTransactionIsNeitherReadNorWaitedFor() throws Exception {
    String topic = "open-transaction";
    KAFKA.broker().createTopic(topic, 1);
    try (KafkaProducer<String, String> committed = producer("open-transaction-committed");
        KafkaProducer<String, String> open = producer("open-transaction-open")) {
      committed.initTransactions();
      open.initTransactions();
      committed.beginTransaction();
      committed.send(new ProducerRecord<>(topic, "c1"));
      committed.commitTransaction();
      open.beginTransaction();
      open.send(new ProducerRecord<>(topic, "open")).get(30, TimeUnit.SECONDS);
      committed.beginTransaction();
      committed.send(new ProducerRecord<>(topic, "c2"));
      committed.commitTransaction();

      assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, true)).containsExactly("c1");
      assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, false)).containsExactly("c1", "open", "c2");
      open.abortTransaction();
    }
    TopicReader.awaitNoOpenTransaction(KAFKA.bootstrapServers(), topic);
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, true)).containsExactly("c1", "c2");
  }

  @Test
  void awaitNoOpenTransactionNamesTheOffsetsOfATopicThatKeepsOne() throws Exception {
    String topic = "kept-open";
    KAFKA.broker().createTopic(topic, 1);
    try (KafkaProducer<String, String> open = producer("kept-open")) {
      open.initTransactions();
      open.beginTransaction();
      open.send(new ProducerRecord<>(topic, "open")).get(30, TimeUnit.SECONDS);
      assertThatThrownBy(() -> TopicReader.awaitNoOpenTransaction(KAFKA.bootstrapServers(), topic,
          java.time.Duration.ofSeconds(1)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("topic kept-open still has open transactions after PT1S")
          .hasMessageContaining("last stable offsets {kept-open-0=0}, end offsets {kept-open-0=1}");
      open.abortTransaction();
    }
  }

  private static Map<TopicPartition, Long> offsets(Admin admin, String topic, IsolationLevel isolation)
      throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> offsets = new HashMap<>();
    admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(30, TimeUnit.SECONDS)
        .forEach((p, info) -> offsets.put(p, info.offset()));
    return offsets;
  }

  private static KafkaProducer<String, String> producer(String transactionalId) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
  }
}
