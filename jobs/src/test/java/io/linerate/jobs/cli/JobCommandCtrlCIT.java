package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ctrl-C on a job command run from the demo jar without a Flink cluster around ({@code java -jar ...-demo.jar
 * dedup ...}), as a terminal sends it: the job, which has written its output in a transaction not yet committed,
 * is cancelled, so the transaction is aborted; the command's local cluster stops; the process says so in that order,
 * the closing line included, and ends with exit code 130, leaving nothing in its {@code java.io.tmpdir} (no cluster
 * folder, no temporary checkpoint folder).
 *
 * <p>Why this can fail: the closing line was printed by the main thread after the job's end, and the JVM halts as
 * soon as its shutdown hooks are done, so now and then it was never printed ({@link JobEnvironment} now prints it
 * from the hook); a hook that does not cancel the job leaves the transaction open, and {@code read_committed}
 * readers of the topic wait for its timeout. {@link JobCancelOnShutdownTest} runs the hook in-process; only a real
 * signal to a real process shows the order of the JVM's exit. Pekko's routine warning on that exit ("Could not
 * addJvmShutdownHook") is off in the demo jar's logging configuration.
 */
class JobCommandCtrlCIT {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private static final int EVENTS = 200;
  /** Measured: about 1 s from SIGINT to the process's end (cancel, cluster stop); several times that as margin. */
  private static final Duration CTRL_C_BOUND = Duration.ofSeconds(10);

  @Test
  void ctrlCCancelsTheJobAbortsItsTransactionAndLeavesNothingBehind() throws Exception {
    assumeFalse(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("windows"),
        "Ctrl-C is sent as SIGINT with kill -INT: not on Windows");
    KAFKA.broker().createTopics(1, "int-in", "int-out", "int-dups", "int-dead");
    send(0);
    Path tmp = Files.createTempDirectory("linerate-job-int-it-");
    Path out = Files.createTempFile("linerate-it-out-", ".txt");
    Path err = Files.createTempFile("linerate-it-err-", ".txt");
    List<String> command = new ArrayList<>();
    if (JarContentsIT.sigintIgnored(ProcessHandle.current().pid())) {
      System.out.println("SIGINT is ignored in this JVM (inherited): the job starts through env --default-signal=INT");
      command.addAll(List.of("env", "--default-signal=INT"));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // a checkpoint commits the output: at 5 min apart, rarely one during the test (more input then, below)
    command.addAll(List.of("-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-jar", JarContentsIT.DEMO_JAR.toString(), "dedup",
        "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "int-in", "--output-topic", "int-out",
        "--duplicates-topic", "int-dups", "--dead-letter-topic", "int-dead", "--key-field", "event_id",
        "--timestamp-field", "ts", "--scope-field", "tenant", "--checkpoint-interval", "5m"));
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
      String running = JarContentsIT.awaitOutput(p, out, err, Pattern.compile("web UI and REST API on "),
          Duration.ofSeconds(120));
      // the output of a batch in a transaction still open; a checkpoint (its first comes at a random time within
      // the interval) commits it now and then: then another batch, in the transaction that follows
      int sent = EVENTS;
      awaitOutput(p, out, err, sent);
      while (OutputVisibility.openTransactions(admin, Set.of("int-out")).isEmpty()) {
        System.out.println("a checkpoint committed the output: another batch");
        send(sent);
        sent += EVENTS;
        awaitOutput(p, out, err, sent);
      }
      assumeTrue(!JarContentsIT.sigintIgnored(p.pid()), "SIGINT is still ignored in the job's JVM");
      Matcher folder = Pattern.compile("files in (\\S+) \\(started in").matcher(running);
      assertThat(folder.find()).as("the cluster's folder is printed:\n" + running).isTrue();

      double seconds = JarContentsIT.interrupt(p, CTRL_C_BOUND);
      String output = Files.readString(out);
      String stderr = Files.readString(err);
      System.out.printf(Locale.ROOT, "Ctrl-C: the job command's process %s %.1f s after SIGINT%n--- stdout%n%s"
          + "--- stderr%n%s---%n", p.isAlive() ? "still ran" : "ended", seconds, output, stderr);
      assertThat(p.isAlive()).as("the command ends within " + CTRL_C_BOUND + " of SIGINT").isFalse();
      assertThat(p.exitValue()).as("exit code after SIGINT (128 + 2)").isEqualTo(130);
      assertThat(output).as("the teardown's order, the closing line last").containsSubsequence(
          "dedup: cancelling job dedup (its sinks abort their open transactions)",
          "dedup: local Flink cluster stopped in", "dedup: job dedup cancelled on interrupt");
      assertThat(stderr).doesNotContain("not cancelled cleanly")
          .as("Pekko's routine warning on a stop during the JVM's shutdown (off in the demo jar's logging)")
          .doesNotContain("Could not addJvmShutdownHook");
      // the coordinator writes the abort markers after it answered the producer's abort: wait for them a little
      long markers = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      List<String> open = OutputVisibility.openTransactions(admin, Set.of("int-out"));
      while (!open.isEmpty() && System.nanoTime() < markers) {
        Thread.sleep(100);
        open = OutputVisibility.openTransactions(admin, Set.of("int-out"));
      }
      assertThat(open).as("aborted by the cancelled sink (10 s for the abort markers)").isEmpty();
      assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), "int-out", true)).as("the open transaction's "
          + "records are not committed").hasSizeLessThan(sent);
      assertThat(Path.of(folder.group(1))).as("the cluster's folder").doesNotExist();
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(Path::toString).collect(Collectors.toList())).as("files left in java.io.tmpdir").isEmpty();
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor();
      }
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      JarContentsIT.deleteTree(tmp);
    }
  }

  /** Sends events e{from} to e{from + EVENTS - 1} of tenant a, each new. */
  private static void send(int from) {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      for (int i = from; i < from + EVENTS; i++) {
        producer.send(new ProducerRecord<>("int-in", "a", "{\"tenant\":\"a\",\"event_id\":\"e" + i + "\",\"ts\":"
            + (1_763_720_000_000L + i) + "}"));
      }
    }
  }

  /** Waits until the job has written {@code n} first occurrences (committed or not). */
  private static void awaitOutput(Process p, Path out, Path err, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (TopicReader.readAll(KAFKA.bootstrapServers(), "int-out", false).size() < n) {
      assertThat(p.isAlive()).as("the job runs:\n" + Files.readString(out) + Files.readString(err)).isTrue();
      assertThat(System.nanoTime()).as("the job writes its " + n + " first occurrences").isLessThan(deadline);
      Thread.sleep(200);
    }
  }
}
