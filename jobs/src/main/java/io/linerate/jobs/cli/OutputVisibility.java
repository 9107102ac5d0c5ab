package io.linerate.jobs.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Whether what a bounded job wrote can be read by {@code read_committed} consumers once it has finished: its own
 * transactions are committed by then (the final checkpoint commits them before the job ends), but a transaction still
 * open on a partition it wrote - left by an earlier run under the same {@code --job-name}, or by another producer -
 * holds such readers back at that transaction's first offset until it ends or times out ({@code --transaction-timeout}
 * for the job's own). Seen: a bounded run that exited 0 while {@code read_committed} readers saw none of its records.
 */
public final class OutputVisibility {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private OutputVisibility() {
  }

  /**
   * Checks the topics {@code job} wrote; prints what holds readers back to {@code spec}'s error output.
   *
   * @return whether no partition of them has a transaction open (true too when the job names no written topic)
   */
  public static boolean check(CommandSpec spec, JobLauncher job, JobTopics topics) throws Exception {
    Set<String> written = job.writtenTopics(topics).topics();
    if (written.isEmpty()) {
      return true;
    }
    List<String> open;
    try (Admin admin = Admin.create(TopicChecks.adminConfig(job, topics))) {
      open = openTransactions(admin, written);
    }
    if (open.isEmpty()) {
      return true;
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println(spec.name() + ": the job finished, but read_committed consumers cannot read all of its output yet: "
        + String.join("; ", open) + ". They stop at such a transaction's first offset until it is committed or "
        + "aborted (the broker aborts it after its transaction.timeout.ms: --transaction-timeout for a run of this "
        + "job, e.g. an earlier run under the same --job-name that failed); read_uncommitted consumers see the "
        + "records");
    err.flush();
    return false;
  }

  /** "topic-partition: a transaction open since offset N (producer id P)" for each open transaction. */
  static List<String> openTransactions(Admin admin, Set<String> topics) throws Exception {
    List<TopicPartition> partitions = new ArrayList<>();
    Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    described.forEach((name, d) -> d.partitions()
        .forEach(p -> partitions.add(new TopicPartition(name, p.partition()))));
    Map<TopicPartition, PartitionProducerState> states = new TreeMap<>(
        java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    states.putAll(admin.describeProducers(partitions).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    List<String> open = new ArrayList<>();
    states.forEach((tp, state) -> {
      for (ProducerState p : state.activeProducers()) {
        if (p.currentTransactionStartOffset().isPresent()) {
          open.add(tp + ": a transaction open since offset " + p.currentTransactionStartOffset().getAsLong()
              + " (producer id " + p.producerId() + ")");
        }
      }
    });
    return open;
  }
}
