package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates topics the way every {@link KafkaBroker} of the project does: replication factor 1, checked names and
 * partition count, and a return only once every partition has a leader that serves it (a topic right after creation
 * may not be writable yet, a describe may not know it yet, and a leader it names may not have taken the partition
 * over yet: asked again until {@code timeout}).
 */
public final class TopicCreation {

  private TopicCreation() {
  }

  /**
   * Creates {@code names} with {@code partitions} partitions each through {@code admin}.
   *
   * @throws IllegalArgumentException if a name is blank, none is given or {@code partitions < 1}
   * @throws IllegalStateException if the broker refuses (e.g. a topic exists) or does not answer within
   *     {@code timeout}
   */
  public static void create(Admin admin, Duration timeout, int partitions, String... names) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
    }
    if (names.length == 0) {
      throw new IllegalArgumentException("names must hold at least one topic name");
    }
    List<NewTopic> topics = new ArrayList<>();
    for (String name : names) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("topic name must not be blank, got " + (name == null ? "null" : "'" + name + "'"));
      }
      topics.add(new NewTopic(name, partitions, (short) 1));
    }
    List<String> topicNames = List.of(names);
    try {
      admin.createTopics(topics).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      awaitLeaders(admin, timeout, topicNames);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create topics " + topicNames + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot create topics " + topicNames + ": no answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics " + topicNames, e);
    }
  }

  /**
   * Whether every partition's leader answers a ListOffsets request, which only a partition's leader serves. The
   * metadata a describe reads can name a leader before the broker has taken the partition over; a producer's first
   * batch sent then fails with NOT_LEADER_OR_FOLLOWER while later ones are taken, and the idempotent producer then
   * retries that batch as out of order until its delivery timeout (seen on the embedded broker under load: 120 s,
   * then the whole batch expired).
   */
  private static boolean leadersServe(Admin admin, Duration timeout, List<String> names)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicDescription d : admin.describeTopics(names).allTopicNames()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS).values()) {
      for (TopicPartitionInfo p : d.partitions()) {
        latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
      }
    }
    try {
      admin.listOffsets(latest).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RetriableException) {
        return false; // not the leader yet (or not known yet): ask again
      }
      throw e;
    }
  }

  private static void awaitLeaders(Admin admin, Duration timeout, List<String> names)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      boolean ready;
      try {
        ready = admin.describeTopics(names).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .values().stream()
            .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
        ready = false; // created, but the broker's metadata does not show the topic yet: ask again
      }
      if (ready && leadersServe(admin, timeout, names)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("partitions of " + names + " have no leader after " + timeout);
      }
      Thread.sleep(20);
    }
  }
}
