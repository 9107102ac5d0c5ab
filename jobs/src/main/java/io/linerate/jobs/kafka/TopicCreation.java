package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;

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
   *     {@code timeout}, or if after another {@code timeout} some partitions have no leader serving them (named)
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
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create topics " + topicNames + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot create topics " + topicNames + ": no answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics " + topicNames, e);
    }
    awaitLeaders(admin, timeout, topicNames);
  }

  /**
   * Waits until every partition of {@code names} has a leader that serves it ({@link #withoutServingLeader} empty).
   *
   * @throws IllegalStateException naming the topics and partitions that still have none after {@code timeout}, or
   *     what the broker answered if it refused
   */
  static void awaitLeaders(Admin admin, Duration timeout, List<String> names) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        // each request may take the whole timeout (not what is left of it), so that the last round's answers
        // are answers and the error names why each partition is not served, not "no answer" for all
        List<String> missing = withoutServingLeader(admin, timeout, names);
        if (missing.isEmpty()) {
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("created topics " + names + ", but after " + timeout + " these still "
              + "have no leader that serves them: " + String.join(", ", missing));
        }
        Thread.sleep(20);
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("created topics " + names + ", but cannot see their leaders: "
          + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the leaders of topics " + names, e);
    }
  }

  /**
   * What of {@code names} has no leader serving it yet, each with why: a topic the describe does not know (yet), a
   * partition without a leader, a partition whose leader does not answer a ListOffsets request yet (only a
   * partition's leader serves it: the metadata a describe reads can name a leader before the broker has taken the
   * partition over, and a producer's first batch sent then fails with NOT_LEADER_OR_FOLLOWER while later ones are
   * taken, which the idempotent producer then retries as out of order until its delivery timeout, seen on the
   * embedded broker under load). A retriable error counts as "not yet" wherever it comes from: right after creation
   * a broker of a larger cluster may not know the topic yet ({@code UnknownTopicOrPartitionException}) although
   * another one already did; so does no answer within {@code timeout}. Empty when all are served.
   *
   * @throws ExecutionException with the broker's non-retriable refusal
   */
  static List<String> withoutServingLeader(Admin admin, Duration timeout, List<String> names)
      throws InterruptedException, ExecutionException {
    List<String> missing = new ArrayList<>();
    Map<TopicPartition, OffsetSpec> led = new LinkedHashMap<>();
    Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(names).topicNameValues();
    for (String name : names) {
      TopicDescription d;
      try {
        d = described.get(name).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        missing.add(name + " (" + notYet(e) + ")");
        continue;
      }
      for (TopicPartitionInfo p : d.partitions()) {
        TopicPartition tp = new TopicPartition(d.name(), p.partition());
        if (p.leader() == null || p.leader().isEmpty()) {
          missing.add(tp + " (no leader)");
        } else {
          led.put(tp, OffsetSpec.latest());
        }
      }
    }
    if (led.isEmpty()) {
      return missing;
    }
    ListOffsetsResult offsets = admin.listOffsets(led);
    for (TopicPartition tp : led.keySet()) {
      try {
        offsets.partitionResult(tp).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        missing.add(tp + " (its leader does not serve it yet: " + notYet(e) + ")");
      }
    }
    return missing;
  }

  /** Why a request failed if it is worth asking again; rethrows a non-retriable failure. */
  private static String notYet(Exception e) throws ExecutionException {
    if (e instanceof TimeoutException) {
      return "no answer";
    }
    Throwable cause = e.getCause();
    if (cause instanceof RetriableException) {
      return cause.getClass().getSimpleName();
    }
    throw (ExecutionException) e;
  }
}
