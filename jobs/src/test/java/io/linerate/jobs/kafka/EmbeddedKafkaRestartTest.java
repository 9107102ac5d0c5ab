package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link EmbeddedKafka#restart(Duration)}: same address, same data (records, transactions, a transaction left open
 * that the restored coordinator aborts, group offsets), clients
 * that sent during the downtime get through, and a port taken meanwhile gives a clear error.
 */
class EmbeddedKafkaRestartTest {

  private static final String TOPIC = "restart";
  private static final String GROUP = "restart-group";
  private static final String TRANSACTIONAL_ID = "restart-tx";
  /** A topic of one partition whose transaction is left open across the restart. */
  private static final String OPEN_TOPIC = "restart-open";
  private static final String OPEN_TRANSACTIONAL_ID = "restart-open-tx";

  @Test
  void dataTransactionsAndGroupOffsetsSurviveARestart() throws Exception {
    List<String> progress = new ArrayList<>();
    List<CompletableFuture<RecordMetadata>> sentWhileDown = new ArrayList<>();
    @SuppressWarnings("unchecked")
    KafkaProducer<String, String>[] plain = new KafkaProducer[1];
    KafkaProducer<String, String> open = null;
    EmbeddedKafka[] holder = new EmbeddedKafka[1];
    try {
      try (EmbeddedKafka kafka = EmbeddedKafka.builder().progress(line -> {
        progress.add(line);
        System.out.println(line);
        if (line.contains("stopped for restart")) {
          // the broker is down: an ordinary producer's send must wait and retry, not fail. From another thread,
          // since send() may block on metadata until the broker is back, and the restart runs on this one.
          sentWhileDown.add(CompletableFuture.supplyAsync(() -> plain[0].send(new ProducerRecord<>(TOPIC, "while-down")))
              .thenCompose(sent -> CompletableFuture.supplyAsync(() -> {
                try {
                  return sent.get();
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              })));
        }
      }).start()) {
        holder[0] = kafka;
        System.out.println("Kafka broker used: " + kafka.description() + " at " + kafka.bootstrapServers());
        String bootstrap = kafka.bootstrapServers();
        Path folder = kafka.folder();
        kafka.createTopic(TOPIC, 2);

        try (KafkaProducer<String, String> tx = producer(bootstrap, TRANSACTIONAL_ID)) {
          tx.initTransactions();
          tx.beginTransaction();
          tx.send(new ProducerRecord<>(TOPIC, "tx-1"));
          tx.send(new ProducerRecord<>(TOPIC, "tx-2"));
          tx.commitTransaction();
        }
        plain[0] = producer(bootstrap, null);
        plain[0].send(new ProducerRecord<>(TOPIC, "plain-1")).get(30, TimeUnit.SECONDS);
        // a transaction left open across the restart: only a coordinator that kept its state knows to abort it
        // when the same transactional.id starts again; without that state the partition's last stable offset stays
        // at the open transaction's first record, and read_committed consumers never see anything after it
        kafka.createTopic(OPEN_TOPIC, 1);
        open = producer(bootstrap, OPEN_TRANSACTIONAL_ID);
        open.initTransactions();
        open.beginTransaction();
        open.send(new ProducerRecord<>(OPEN_TOPIC, "open-1")).get(30, TimeUnit.SECONDS);
        TopicPartition partition0 = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
          consumer.assign(List.of(partition0));
          consumer.commitSync(Map.of(partition0, new OffsetAndMetadata(1, "before restart")));
        }

        long begin = System.nanoTime();
        kafka.restart(Duration.ofMillis(500));
        System.out.printf(Locale.ROOT, "restart took %.1f s%n", (System.nanoTime() - begin) / 1e9);

        assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
        assertThat(kafka.folder()).isEqualTo(folder).isDirectory();
        assertThat(progress).anyMatch(line -> line.contains("stopped for restart"));
        assertThat(progress).anyMatch(line -> line.matches(".*restarted in \\d+\\.\\d s.*"));

        // the producer that sent while the broker was down: delivered by its retries after the restart
        assertThat(sentWhileDown).hasSize(1);
        assertThat(sentWhileDown.get(0).get(60, TimeUnit.SECONDS).hasOffset()).isTrue();
        plain[0].close();

        assertThat(TopicReader.readAll(bootstrap, TOPIC, true))
            .containsExactlyInAnyOrder("tx-1", "tx-2", "plain-1", "while-down");

        // the transaction coordinator's state survived: the same transactional.id fences the old epoch and commits
        try (KafkaProducer<String, String> tx = producer(bootstrap, TRANSACTIONAL_ID)) {
          tx.initTransactions();
          tx.beginTransaction();
          tx.send(new ProducerRecord<>(TOPIC, "tx-3"));
          tx.commitTransaction();
        }
        // commitTransaction returns once the coordinator has logged the commit; it writes the partitions' commit
        // markers after that, so a read_committed reader may briefly stop before tx-3 (seen once in CI): wait for it
        List<String> afterCommit = TopicReader.readAll(bootstrap, TOPIC, true);
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            !afterCommit.contains("tx-3") && System.nanoTime() < deadline; ) {
          Thread.sleep(100);
          afterCommit = TopicReader.readAll(bootstrap, TOPIC, true);
        }
        assertThat(afterCommit).contains("tx-3").hasSize(5);

        // the open transaction: its coordinator, restored from __transaction_state, aborts it when the same
        // transactional.id initializes again, so a later transaction is visible to read_committed consumers
        try (KafkaProducer<String, String> again = producer(bootstrap, OPEN_TRANSACTIONAL_ID)) {
          again.initTransactions();
          again.beginTransaction();
          again.send(new ProducerRecord<>(OPEN_TOPIC, "after-open"));
          again.commitTransaction();
        }
        assertThat(TopicReader.readAll(bootstrap, OPEN_TOPIC, true)).containsExactly("after-open");
        assertThat(TopicReader.readAll(bootstrap, OPEN_TOPIC, false)).containsExactly("open-1", "after-open");

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
          Map<TopicPartition, OffsetAndMetadata> offsets =
              admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
          assertThat(offsets).containsEntry(partition0, new OffsetAndMetadata(1, "before restart"));
        }

        kafka.createTopic("after-restart", 1); // the admin client of the broker itself was recreated
      }
      assertThat(progress.get(progress.size() - 1)).contains("stopped in").contains("removed");
      assertThat(Files.exists(holder[0].folder())).isFalse();
      assertThatThrownBy(() -> holder[0].restart(Duration.ZERO))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is closed");
    } finally {
      if (plain[0] != null) {
        plain[0].close(Duration.ofSeconds(5));
      }
      if (open != null) {
        open.close(Duration.ZERO); // fenced: nothing of it to finish
      }
    }
  }

  @Test
  void aPortTakenDuringTheDowntimeIsNamedAndCloseStillWorks() throws Exception {
    ServerSocket[] thief = new ServerSocket[1];
    EmbeddedKafka[] holder = new EmbeddedKafka[1];
    try (EmbeddedKafka kafka = EmbeddedKafka.builder()
        .restartBindWindow(Duration.ofSeconds(1))
        .progress(line -> {
          System.out.println(line);
          if (line.contains("stopped for restart") && thief[0] == null) { // the first restart only
            try {
              thief[0] = new ServerSocket(holder[0].brokerPort(), 1, InetAddress.getByName("127.0.0.1"));
            } catch (Exception e) {
              throw new AssertionError("cannot take the broker's port", e);
            }
          }
        })
        .start()) {
      holder[0] = kafka;
      System.out.println("Kafka broker used: " + kafka.description() + " at " + kafka.bootstrapServers());
      try {
        assertThatThrownBy(() -> kafka.restart(Duration.ZERO))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("port " + kafka.brokerPort() + " (clients)")
            .hasMessageContaining("taken by another process");
      } finally {
        thief[0].close();
      }
      // the port is free again: a second restart works, the data folder was kept throughout
      kafka.restart(Duration.ZERO);
      kafka.createTopic("after-failed-restart", 1);
    }
    assertThat(Files.exists(holder[0].folder())).isFalse();
  }

  /** A producer of strings; transactional if {@code transactionalId} is not null. */
  private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
    Map<String, Object> config = new HashMap<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    if (transactionalId != null) {
      config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    return new KafkaProducer<>(config);
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, GROUP,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
  }
}
