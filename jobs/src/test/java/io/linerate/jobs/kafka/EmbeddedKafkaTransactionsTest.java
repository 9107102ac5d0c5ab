package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The embedded broker takes transactions: committed records are visible to read_committed, aborted ones not. */
class EmbeddedKafkaTransactionsTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @Test
  void readCommittedSeesExactlyTheCommittedTransactions() throws Exception {
    String topic = "transactions";
    KAFKA.broker().createTopic(topic, 2);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-kafka-test",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      producer.initTransactions();
      send(producer, topic, "c1", "c2", "c3");
      producer.commitTransaction();
      send(producer, topic, "a1", "a2");
      producer.flush();
      producer.abortTransaction();
      send(producer, topic, "c4");
      producer.commitTransaction();
    }

    // read_uncommitted sees the aborted records too: they were written, so read_committed really filters them
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, false))
        .containsExactlyInAnyOrder("c1", "c2", "c3", "a1", "a2", "c4");
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, true))
        .containsExactlyInAnyOrder("c1", "c2", "c3", "c4");
  }

  @Test
  void createTopicChecksItsArguments() {
    assertThatThrownBy(() -> KAFKA.broker().createTopic("bad", 0))
        .hasMessageContaining("partitions must be >= 1, got 0");
    assertThatThrownBy(() -> KAFKA.broker().createTopic(" ", 1))
        .hasMessageContaining("topic name must not be blank");
    KAFKA.broker().createTopic("twice", 1);
    assertThatThrownBy(() -> KAFKA.broker().createTopic("twice", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("twice");
  }

  /**
   * maxValueBytes() is the longest value a sink's producer sends: also with a buffer.memory below max.request.size,
   * which the producer holds a record to as well (a longer record: RecordTooLargeException, the job fails on it).
   */
  @Test
  void aSinkSendsAValueOfItsMaxValueBytes() throws Exception {
    String topic = "largest-values";
    KAFKA.broker().createTopic(topic, 1);
    ExactlyOnceSink.Builder<String> sink = ExactlyOnceSink.builder(new org.apache.flink.api.common.serialization.SimpleStringSchema())
        .bootstrapServers(KAFKA.bootstrapServers()).topic(topic).jobName("largest")
        .property("buffer.memory", Integer.toString(512 * 1024));
    java.util.Properties config = ExactlyOnceBuildersTest.producerConfig(sink.build());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "largest-0-1");
    byte[] value = new byte[sink.maxValueBytes()];
    java.util.Arrays.fill(value, (byte) 'x');
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, value)).get();
      producer.commitTransaction();
    }
  }

  private static void send(KafkaProducer<String, String> producer, String topic, String... values) {
    if (values.length > 0) {
      producer.beginTransaction();
    }
    for (String value : List.of(values)) {
      producer.send(new ProducerRecord<>(topic, value, value));
    }
  }
}
