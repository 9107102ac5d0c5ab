package io.linerate.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The broker {@link TestBrokers} chose takes a record, keeps it over a restart, and keeps its address. */
class BrokerChoiceIT {

  @Test
  void aRecordSurvivesARestartOfTheChosenBroker() throws Exception {
    try (KafkaBroker broker = TestBrokers.start(line -> System.out.println("[BrokerChoiceIT] " + line))) {
      String bootstrap = broker.bootstrapServers();
      broker.createTopic("choice", 1);
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
        producer.send(new ProducerRecord<>("choice", "k", "before restart")).get(30, TimeUnit.SECONDS);
      }
      assertThat(TopicReader.readAll(bootstrap, "choice", true)).containsExactly("before restart");

      broker.restart(Duration.ofSeconds(1));

      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      assertThat(TopicReader.readAll(bootstrap, "choice", true)).containsExactly("before restart");
      System.out.println("[BrokerChoiceIT] ran against " + broker.description() + " at " + bootstrap);
    }
  }
}
