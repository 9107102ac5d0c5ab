package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Starting and closing the embedded broker leaves nothing behind: no port, no folder, no thread. */
class EmbeddedKafkaLifecycleTest {

  /** Kafka's fatal-fault exits (exit and halt) become exceptions in the caller: the test JVM is still here. */
  @Test
  void aFatalFaultOfTheBrokerCannotEndTheJvm() {
    java.util.List<String> lines = new java.util.ArrayList<>();
    Runnable unguard = EmbeddedKafka.guardJvmExit(lines::add);
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> org.apache.kafka.common.utils.Exit.halt(1, "fatal fault in the metadata loader"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("halt the JVM with status 1: fatal fault in the metadata loader");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> org.apache.kafka.common.utils.Exit.exit(1))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("exit the JVM with status 1");
      assertThat(lines).hasSize(2);
    } finally {
      unguard.run();
    }
  }

  @Test
  void closeFreesThePortsDeletesTheFolderAndEndsTheThreads() throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    List<String> progress = new ArrayList<>();
    EmbeddedKafka kafka = EmbeddedKafka.builder().progress(line -> {
      progress.add(line);
      System.out.println(line);
    }).start();
    System.out.println("Kafka broker used: " + kafka.description() + " at " + kafka.bootstrapServers());
    int brokerPort = kafka.brokerPort();
    int controllerPort = kafka.controllerPort();
    Path folder = kafka.folder();
    assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + brokerPort);
    assertThat(kafka.description()).isEqualTo("embedded KRaft broker 4.2.0");
    assertThat(folder).isDirectory();
    assertThat(isFree(brokerPort)).as("broker port %d in use while running", brokerPort).isFalse();
    assertThat(isFree(controllerPort)).as("controller port %d in use while running", controllerPort).isFalse();

    kafka.createTopic("lifecycle", 1);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      producer.send(new ProducerRecord<>("lifecycle", "k", "v")).get();
    }
    assertThat(TopicReader.readAll(kafka.bootstrapServers(), "lifecycle", true)).containsExactly("v");

    kafka.close();
    kafka.close(); // idempotent

    assertThat(isFree(brokerPort)).as("broker port %d free after close", brokerPort).isTrue();
    assertThat(isFree(controllerPort)).as("controller port %d free after close", controllerPort).isTrue();
    assertThat(Files.exists(folder)).as("%s deleted", folder).isFalse();
    assertThat(newNonDaemonThreads(before)).as("non-daemon threads started by the broker still alive").isEmpty();
    assertThat(progress).hasSize(2);
    assertThat(progress.get(0)).startsWith("embedded Kafka broker (KRaft) 4.2.0 on 127.0.0.1:" + brokerPort + ", data in " + folder);
    assertThatThrownBy(() -> kafka.createTopic("late", 1)).hasMessageContaining("is closed");
  }

  /**
   * {@code startGroupCoordinator} creates the consumer offsets topic, which the broker's start does not (every test
   * starts a broker: it stays as fast as it was), creates no consumer group, and refuses a closed broker.
   */
  @Test
  void startGroupCoordinatorCreatesTheOffsetsTopicThatTheStartDoesNot() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.builder().start();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      ListTopicsOptions internal = new ListTopicsOptions().listInternal(true);
      assertThat(admin.listTopics(internal).names().get()).doesNotContain(EmbeddedKafka.OFFSETS_TOPIC);

      Duration took = kafka.startGroupCoordinator(Duration.ofSeconds(30));
      System.out.println("group coordinator started in " + took.toMillis() + " ms");

      assertThat(admin.listTopics(internal).names().get()).contains(EmbeddedKafka.OFFSETS_TOPIC);
      assertThat(admin.listGroups().all().get()).as("groups").isEmpty();
      assertThat(kafka.startGroupCoordinator(Duration.ofSeconds(30))).as("again, once started")
          .isLessThan(Duration.ofSeconds(5));
      assertThatThrownBy(() -> kafka.startGroupCoordinator(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be > 0");
      // the topic as the broker creates it on a request for a coordinator (another broker): same partitions and
      // topic configs, so that the two ways cannot drift apart with a new Kafka version
      try (EmbeddedKafka other = EmbeddedKafka.builder().start();
           Admin otherAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, other.bootstrapServers()))) {
        otherAdmin.listConsumerGroupOffsets("auto-create").partitionsToOffsetAndMetadata().get();
        assertThat(offsetsTopicLayout(admin)).isEqualTo(offsetsTopicLayout(otherAdmin)).contains("cleanup.policy=compact");
      }
    } finally {
      kafka.close();
    }
    assertThatThrownBy(() -> kafka.startGroupCoordinator(Duration.ofSeconds(1))).hasMessageContaining("is closed");
  }

  @Test
  void startsAgainOnNewPortsWhenAChosenPortWasTaken() throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int[] calls = {0};
      List<String> progress = new ArrayList<>();
      try (EmbeddedKafka kafka = EmbeddedKafka.builder()
          .progress(line -> {
            progress.add(line);
            System.out.println(line);
          })
          .portChooser(count -> calls[0]++ == 0 ? new int[] {taken.getLocalPort(), EmbeddedKafka.freePorts(1)[0]} : EmbeddedKafka.freePorts(count))
          .start()) {
        System.out.println("Kafka broker used: " + kafka.description() + " at " + kafka.bootstrapServers());
        assertThat(calls[0]).isEqualTo(2);
        assertThat(kafka.brokerPort()).isNotEqualTo(taken.getLocalPort());
        assertThat(progress.get(0)).contains("a chosen port was taken meanwhile");
        kafka.createTopic("after-retry", 1);
      }
    }
    assertThat(newNonDaemonThreads(before)).as("non-daemon threads of the failed and the second attempt").isEmpty();
  }

  /**
   * A start that fails because the controller's port is taken: Kafka's controller startup hands the bind failure to
   * a fatal fault handler, which halts (refused here) with no message. The failure must still name the cause (the
   * taken port) and, like a taken client port, be retried on new ports; not report only "asked to halt the JVM".
   */
  @Test
  void aTakenControllerPortIsNamedNotJustAHaltRequest() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int[] calls = {0};
      List<String> progress = new ArrayList<>();
      assertThatThrownBy(() -> EmbeddedKafka.builder().progress(progress::add)
          .portChooser(count -> {
            calls[0]++;
            return new int[] {EmbeddedKafka.freePorts(1)[0], taken.getLocalPort()};
          })
          .start())
          .hasMessageContaining("port " + taken.getLocalPort() + " (controller)")
          .hasMessageContaining("in use");
      assertThat(calls[0]).as("attempts on new ports").isEqualTo(3);
    }
  }

  @Test
  void refusesToOverrideWhatItOwns() {
    assertThatThrownBy(() -> EmbeddedKafka.builder().property("listeners", "PLAINTEXT://0.0.0.0:9092"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listeners");
  }

  /** The offsets topic's partitions and its topic-level configs (those not from the broker's defaults). */
  private static List<String> offsetsTopicLayout(Admin admin) throws Exception {
    List<String> layout = new ArrayList<>();
    layout.add("partitions=" + admin.describeTopics(List.of(EmbeddedKafka.OFFSETS_TOPIC)).allTopicNames().get()
        .get(EmbeddedKafka.OFFSETS_TOPIC).partitions().size());
    ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, EmbeddedKafka.OFFSETS_TOPIC);
    admin.describeConfigs(List.of(topic)).all().get().get(topic).entries().stream()
        .filter(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
        .map(e -> e.name() + "=" + e.value()).sorted().forEach(layout::add);
    return layout;
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Threads alive now that were not before, not daemons, after a short grace for threads that are ending. */
  private static List<String> newNonDaemonThreads(Set<Thread> before) throws InterruptedException {
    List<String> left = List.of();
    for (int attempt = 0; attempt < 50; attempt++) {
      left = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> !before.contains(t) && t.isAlive() && !t.isDaemon())
          .map(Thread::getName)
          .sorted()
          .collect(Collectors.toList());
      if (left.isEmpty()) {
        return left;
      }
      Thread.sleep(100);
    }
    return left;
  }
}
