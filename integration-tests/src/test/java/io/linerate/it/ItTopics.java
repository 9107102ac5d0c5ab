package io.linerate.it;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.local.JobTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Topics of one test run: {@code <prefix>-in} ({@link Workload#PARTITIONS} partitions), {@code -out}, {@code -dlq}. */
public final class ItTopics {

  private ItTopics() {
  }

  /** Creates the run's topics (the outputs with 2 partitions) and returns them. */
  public static JobTopics create(KafkaBroker broker, String prefix) throws InterruptedException {
    JobTopics topics = new JobTopics(broker.bootstrapServers(), prefix + "-in", prefix + "-out", prefix + "-dlq");
    create(broker, Workload.PARTITIONS, topics.input());
    create(broker, 2, topics.output(), topics.deadLetter());
    return topics;
  }

  private static void create(KafkaBroker broker, int partitions, String... names) throws InterruptedException {
    try {
      broker.createTopics(partitions, names);
    } catch (IllegalStateException e) {
      // the broker describes new topics right after creating them, and a describe can meet
      // UnknownTopicOrPartition while their metadata propagates: they exist, wait until they are visible
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
        throw e;
      }
      awaitVisible(broker.bootstrapServers(), names);
    }
  }

  private static void awaitVisible(String bootstrap, String... names) throws InterruptedException {
    try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try {
          admin.describeTopics(List.of(names)).allTopicNames().get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException | TimeoutException retry) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError("topics " + List.of(names) + " not visible", retry);
          }
          Thread.sleep(50);
        }
      }
    }
  }
}
