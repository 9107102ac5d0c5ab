package io.linerate.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
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

      // that the broker was really gone: Kafka requests fail while it restarts (a port check would not do for a
      // container, whose port may stay proxied); probed every 100 ms with a 500 ms request timeout
      AtomicInteger failed = new AtomicInteger();
      AtomicBoolean probing = new AtomicBoolean(true);
      Thread probe = new Thread(() -> {
        try (Admin admin = Admin.create(Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 500,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 500))) {
          while (probing.get()) {
            try {
              admin.describeCluster(new DescribeClusterOptions().timeoutMs(500))
                  .clusterId().get(1, TimeUnit.SECONDS);
            } catch (Exception e) {
              failed.incrementAndGet();
            }
            Thread.sleep(100);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "broker-probe");
      probe.start();
      broker.restart(Duration.ofSeconds(1));
      probing.set(false);
      probe.join();
      assertThat(failed.get()).as("requests that failed while the broker restarted").isPositive();

      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      assertThat(TopicReader.readAll(bootstrap, "choice", true)).containsExactly("before restart");
      System.out.println("[BrokerChoiceIT] ran against " + broker.description() + " at " + bootstrap);
    }
  }
}
