package io.linerate.jobs.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ListTransactionsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic back for a test: every partition from its beginning to its end offset at the time of the
 * call. With {@code readCommitted} the end offset is the last stable offset, so the result holds exactly the
 * records of committed transactions (and non-transactional records) written before the call, and no wait on a
 * timeout decides what "all" means. An open transaction keeps the last stable offset back: its records, and
 * those after it, are not returned.
 *
 * <p>A transaction counts as committed once {@code commitTransaction()} returned (a Flink sink's commit, so a
 * finished bounded job, included): the read first {@linkplain #awaitMarkers waits for the markers} of the
 * transactions the broker has decided, which it writes only after the commit returned.
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
    forEachRecord(bootstrapServers, topic, readCommitted, record -> each.accept(record.value()));
  }

  /** {@link #forEachValue} with the whole record (key, headers, timestamp…). */
  public static void forEachRecord(String bootstrapServers, String topic, boolean readCommitted,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
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
      if (readCommitted) {
        awaitMarkers(bootstrapServers);
      }
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, DEADLINE);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("topic " + topic + " not read to its end offsets " + end + ": nothing new for "
              + DEADLINE);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          each.accept(record);
          deadline = System.nanoTime() + DEADLINE.toNanos();
        }
      }
    }
  }

  /**
   * Waits until every transaction the broker has decided (committed or aborted) at the time of the call has its
   * markers written. {@code commitTransaction()} and {@code abortTransaction()} return once the transaction
   * coordinator has logged the decision (state PrepareCommit or PrepareAbort); it writes the markers to the
   * partitions after that, and until they are there the last stable offset stays before the transaction, so a
   * {@code read_committed} reader right after a commit (or right after a Flink job whose sinks committed on its
   * final checkpoint finished) can stop before the committed records. Open transactions are not waited for.
   * Fails if a decided transaction still has no markers after {@link #DEADLINE}.
   */
  public static void awaitMarkers(String bootstrapServers) {
    ListTransactionsOptions decided = new ListTransactionsOptions().filterStates(List.of(
        TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE));
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      // the transactions decided now; a transactional id entering the state again later (its next transaction, a
      // job still running) is not waited for, it only has to leave it once
      Set<String> waiting = transactionalIds(admin.listTransactions(decided));
      while (!waiting.isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the markers of the transactions " + waiting + " are not written after "
              + DEADLINE);
        }
        Thread.sleep(10);
        waiting.retainAll(transactionalIds(admin.listTransactions(decided)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for transaction markers", e);
    }
  }

  /**
   * Waits until no partition of {@code topic} has a transaction open or awaiting its markers: every partition's last
   * stable offset has reached its end offset, so every record written to it is decided. For a job that still runs
   * but whose input has ended: once its sinks committed what they wrote (at the next checkpoint), nothing holds the
   * last stable offset back. Fails after {@link #DEADLINE}, naming both offsets.
   */
  public static void awaitNoOpenTransaction(String bootstrapServers, String topic) {
    awaitNoOpenTransaction(bootstrapServers, topic, DEADLINE);
  }

  /** As {@link #awaitNoOpenTransaction(String, String)}, failing after {@code timeout}. */
  static void awaitNoOpenTransaction(String bootstrapServers, String topic, Duration timeout) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
          .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().stream()
          .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        Map<TopicPartition, Long> stable = offsets(admin.listOffsets(latest,
            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)));
        Map<TopicPartition, Long> end = offsets(admin.listOffsets(latest));
        if (stable.equals(end)) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("topic " + topic + " still has open transactions after " + timeout
              + ": last stable offsets " + stable + ", end offsets " + end);
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for the transactions on " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("cannot read the offsets of " + topic, e);
    }
  }

  private static Map<TopicPartition, Long> offsets(ListOffsetsResult result)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, Long> offsets = new HashMap<>();
    result.all().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).forEach((p, info) -> offsets.put(p, info.offset()));
    return offsets;
  }

  private static Set<String> transactionalIds(ListTransactionsResult result) throws InterruptedException {
    try {
      return result.all().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).stream()
          .map(TransactionListing::transactionalId)
          .collect(Collectors.toCollection(HashSet::new));
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("cannot list the broker's transactions", e);
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }
}
