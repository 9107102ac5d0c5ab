package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.junit.jupiter.api.Test;

/**
 * The demo's orchestration end to end, in this JVM: broker, topics, local Flink cluster, the pass-through job,
 * the feeder, a short run, drain, stop. Checks that the output read back with {@code read_committed} is exactly
 * the fed records, each once, and that nothing is left: the broker's and the cluster's ports bind again, their
 * folders are gone, and no non-daemon thread started by the run is alive.
 *
 * <p>Why this can fail: a sink that is not exactly-once or a job that re-reads input leaves duplicates; a drain
 * that returns early (or transactions never committed) leaves records missing; a component not closed keeps its
 * port bound, its folder or its threads.
 */
class DemoTest {

  @Test
  void runsForADurationCopiesEveryFedRecordOnceAndLeavesNothingBehind() throws Exception {
    Set<Thread> threadsBefore = nonDaemonThreads();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);

    Configuration conf = DemoConfigurations.fastCheckpoints(2);
    conf.set(StateBackendOptions.STATE_BACKEND, FlinkOptions.StateBackend.HEAP.flinkName());
    List<String> output = new ArrayList<>();
    List<String> bootstrap = new ArrayList<>();

    // the task fails once, at its 300th record: Flink restarts the job from its last checkpoint (the status goes
    // through RESTARTING), the demo goes on, and the output is still every record exactly once
    Demo.Result result = Demo.builder(new PassThroughJob(300), new PassThroughFeeder(500))
        .flinkConfiguration(conf)
        .slots(2)
        .partitions(2)
        .duration(Duration.ofSeconds(3))
        .progressInterval(Duration.ofSeconds(1))
        .terminal(false)
        .out(out)
        .beforeStop(topics -> {
          bootstrap.add(topics.bootstrapServers());
          output.addAll(TopicReader.readAll(topics.bootstrapServers(), topics.output(), true));
        })
        .build()
        .run();
    String text = captured.toString(StandardCharsets.UTF_8);

    assertThat(result.failure()).isNull();
    assertThat(result.jobStatus()).isEqualTo(JobStatus.RUNNING);
    assertThat(result.drained()).isTrue();
    assertThat(result.succeeded()).isTrue();
    // 3 s at 500/s once the job runs: some hundreds of records (a lower bound with room for a slow machine)
    assertThat(result.recordsFed()).isGreaterThan(100);
    List<String> expected = LongStream.rangeClosed(1, result.recordsFed()).mapToObj(PassThroughFeeder::record)
        .collect(Collectors.toList());
    output.sort(null);
    assertThat(output).as("output read with read_committed").containsExactlyElementsOf(expected);

    assertThat(text).contains("pass-through demo until the heavy-hitters job lands");
    assertThat(text).contains("after a failure: java.lang.IllegalStateException: transient failure (first attempt only)")
        .doesNotContain("the job stopped on its own");
    assertThat(text).containsPattern("fed [\\d,]+ records  job RUNNING  checkpoints \\d+");
    assertThat(text).contains("each fed record copied once");

    // ports: the broker's (from its bootstrap servers) and the REST port (from the printed address) bind again
    int brokerPort = Integer.parseInt(bootstrap.get(0).substring(bootstrap.get(0).lastIndexOf(':') + 1));
    int restPort = Integer.parseInt(first(text, "web UI and REST API on http://127\\.0\\.0\\.1:(\\d+)"));
    assertBindable(brokerPort);
    assertBindable(restPort);
    // folders: the broker's data and the cluster's files are gone
    Path kafkaFolder = Path.of(first(text, "data in (.+?) \\(started"));
    Path flinkFolder = Path.of(first(text, "files in (.+?) \\(started"));
    assertThat(kafkaFolder).doesNotExist();
    assertThat(flinkFolder).doesNotExist();
    // threads: no non-daemon thread the run started is alive; Netty's global event executor (REST server) ends on
    // its own one second after its last task, hence a short wait
    Set<Thread> left = nonDaemonThreads();
    left.removeAll(threadsBefore);
    for (long deadline = System.nanoTime() + 5_000_000_000L; !left.isEmpty() && System.nanoTime() < deadline; ) {
      Thread.sleep(100);
      left.removeIf(t -> !t.isAlive());
    }
    assertThat(left.stream().map(Thread::getName).collect(Collectors.toList())).isEmpty();
  }

  @Test
  void stopEndsARunWithoutDurationAndRemovesEverything() throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);
    // a space in the folder, written unescaped after file:// as users type it (and Flink accepts): the demo's
    // clean-up of the job's folder threw on it, which replaced the run's result and held the JVM's exit 60 s
    Path checkpoints = Files.createTempDirectory("linerate demo test checkpoints ");
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "file://" + checkpoints);
    // the feeder's context, to stop once it fed something (a fixed 500 ms wait assumed its producer would have
    // started and had a first acknowledgement by then; on a loaded machine it need not, and recordsFed is then 0)
    java.util.concurrent.atomic.AtomicReference<FeedContext> feeding = new java.util.concurrent.atomic.AtomicReference<>();
    PassThroughFeeder passThrough = new PassThroughFeeder(200);
    Feeder feeder = new Feeder() {
      @Override
      public String description() {
        return passThrough.description();
      }

      @Override
      public void feed(FeedContext context) throws Exception {
        feeding.set(context);
        passThrough.feed(context);
      }
    };
    Demo demo = Demo.builder(new PassThroughJob(), feeder)
        .flinkConfiguration(conf).slots(1).partitions(1).terminal(false).out(out).build();
    java.util.concurrent.CompletableFuture<Demo.Result> run =
        java.util.concurrent.CompletableFuture.supplyAsync(demo::run);
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!captured.toString(StandardCharsets.UTF_8).contains("running until Ctrl-C") && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    while ((feeding.get() == null || feeding.get().sentCount() == 0) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    demo.stop();
    Demo.Result result = run.get(60, java.util.concurrent.TimeUnit.SECONDS);
    String text = captured.toString(StandardCharsets.UTF_8);

    assertThat(result.stoppedEarly()).isTrue();
    assertThat(result.succeeded()).isTrue();
    assertThat(result.recordsFed()).isPositive();
    assertThat(text).contains("stopped before the end").doesNotContain("draining")
        .contains("everything it started is stopped and its files removed");
    assertThat(Path.of(first(text, "data in (.+?) \\(started"))).doesNotExist();
    assertThat(Path.of(first(text, "files in (.+?) \\(started"))).doesNotExist();
    assertBindable(Integer.parseInt(first(text, "web UI and REST API on http://127\\.0\\.0\\.1:(\\d+)")));
    // the job's checkpoint folder (empty after the cancellation discarded its checkpoints) is removed too
    try (java.util.stream.Stream<Path> inside = Files.list(checkpoints)) {
      assertThat(inside.collect(Collectors.toList())).isEmpty();
    }
    Files.delete(checkpoints);
  }

  /**
   * A stop (Ctrl-C) while the Flink cluster starts: once the start returns, the demo submits no job, feeds nothing
   * and tears down (it went on to submit the job, wait for it to run and start the feeder).
   */
  @Test
  void aStopDuringTheClusterStartSubmitsNoJobAndFeedsNothing() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    java.util.concurrent.atomic.AtomicReference<Demo> demo = new java.util.concurrent.atomic.AtomicReference<>();
    OutputStream trigger = new OutputStream() {
      @Override
      public void write(int b) {
        captured.write(b);
        System.out.write(b);
        if (b == '\n' && captured.toString(StandardCharsets.UTF_8).contains("local Flink cluster 2")) {
          demo.get().stop(); // as the shutdown hook does on a Ctrl-C during the cluster's start
        }
      }
    };
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
    demo.set(Demo.builder(new PassThroughJob(), new PassThroughFeeder(200)).flinkConfiguration(conf).slots(1)
        .partitions(1).terminal(false).out(new PrintStream(trigger, true, StandardCharsets.UTF_8)).build());
    Demo.Result result = demo.get().run();
    String text = captured.toString(StandardCharsets.UTF_8);
    assertThat(result.stoppedEarly()).isTrue();
    assertThat(result.succeeded()).isFalse(); // no job ran
    assertThat(result.recordsFed()).isZero();
    assertThat(text).doesNotContain("job pass-through running").contains("everything it started is stopped");
  }

  /**
   * The broker's consumer offsets topic exists once the demo's topics are created, before the Flink cluster starts:
   * the job's readers (two at parallelism 2) do not race to have the broker create it on their first offset commit,
   * which made the broker log {@code WARN DefaultAutoTopicCreationManager: Auto topic creation failed for
   * __consumer_offsets with error 'TOPIC_ALREADY_EXISTS'} in 2 of 12 flow-meter demos. A stop right then starts no
   * cluster.
   */
  @Test
  void theOffsetsTopicExistsBeforeTheClusterStarts() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    java.util.concurrent.atomic.AtomicReference<Demo> demo = new java.util.concurrent.atomic.AtomicReference<>();
    List<Set<String>> topicsThen = new ArrayList<>();
    OutputStream trigger = new OutputStream() {
      @Override
      public void write(int b) {
        captured.write(b);
        System.out.write(b);
        String text = captured.toString(StandardCharsets.UTF_8);
        if (b == '\n' && topicsThen.isEmpty() && text.contains("\ntopics ")) {
          String servers = first(text, "on (127\\.0\\.0\\.1:\\d+), data in");
          try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            topicsThen.add(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          demo.get().stop();
        }
      }
    };
    demo.set(Demo.builder(new PassThroughJob(), new PassThroughFeeder(200)).terminal(false)
        .out(new PrintStream(trigger, true, StandardCharsets.UTF_8)).build());
    Demo.Result result = demo.get().run();
    String text = captured.toString(StandardCharsets.UTF_8);

    assertThat(topicsThen).hasSize(1);
    assertThat(topicsThen.get(0)).contains(Demo.INPUT_TOPIC, "__consumer_offsets");
    assertThat(text).containsPattern("created \\(2 partitions each\\), group coordinator started in \\d+\\.\\d s")
        .doesNotContain("local Flink cluster").contains("everything it started is stopped");
    assertThat(result.stoppedEarly()).isTrue();
  }

  /**
   * Ctrl-C while the demo waits for the job's output: the drain is cut short, the run returns stopped early and
   * removes everything (it waited out the drain's timeout, and the JVM's exit then skipped the teardown).
   */
  @Test
  void aSignalDuringTheDrainCutsItShortAndRemovesEverything() throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);
    PassThroughJob pass = new PassThroughJob();
    JobLauncher slowDrain = new JobLauncher() {
      @Override
      public String name() {
        return pass.name();
      }

      @Override
      public String description() {
        return pass.description();
      }

      @Override
      public void define(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment env,
                         JobTopics topics) {
        pass.define(env, topics);
      }

      @Override
      public boolean drains() {
        return true; // else the demo prints "nothing to drain" and the wait below for "draining:" runs out
      }

      @Override
      public boolean drain(JobTopics topics, long recordsFed, Duration timeout, PrintStream o)
          throws InterruptedException {
        Thread.sleep(300_000); // a drain waiting on a long checkpoint interval
        return true;
      }
    };
    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
    Demo demo = Demo.builder(slowDrain, new PassThroughFeeder(200)).flinkConfiguration(conf).slots(1).partitions(1)
        .duration(Duration.ofSeconds(2)).terminal(false).out(out).build();
    java.util.concurrent.CompletableFuture<Demo.Result> run =
        java.util.concurrent.CompletableFuture.supplyAsync(demo::run);
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!captured.toString(StandardCharsets.UTF_8).contains("draining:") && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).contains("draining:");
    long signalled = System.nanoTime();
    demo.signal();
    Demo.Result result = run.get(60, java.util.concurrent.TimeUnit.SECONDS);
    String text = captured.toString(StandardCharsets.UTF_8);
    assertThat(Duration.ofNanos(System.nanoTime() - signalled)).isLessThan(Duration.ofSeconds(30));
    assertThat(result.stoppedEarly()).isTrue();
    assertThat(text).contains("stopped while draining");
    assertThat(Path.of(first(text, "data in (.+?) \\(started"))).doesNotExist();
    assertThat(Path.of(first(text, "files in (.+?) \\(started"))).doesNotExist();
  }

  static Set<Thread> nonDaemonThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !t.isDaemon())
        .collect(Collectors.toSet());
  }

  static void assertBindable(int port) throws IOException {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      assertThat(socket.getLocalPort()).isEqualTo(port);
    }
  }

  static String first(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("output contains /" + regex + "/").isTrue();
    return m.group(1);
  }

  /** Writes to two streams. */
  static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }

  /** A --duration past 292 years is as good as endless: the watch loop counts elapsed time, nothing overflows. */
  @org.junit.jupiter.api.Test
  void anEndlessDurationDoesNotOverflow() {
    org.assertj.core.api.Assertions.assertThat(Demo.nanosOrMax(java.time.Duration.ofDays(200_000)))
        .isEqualTo(Long.MAX_VALUE);
    org.assertj.core.api.Assertions.assertThat(Demo.nanosOrMax(java.time.Duration.ofSeconds(3)))
        .isEqualTo(3_000_000_000L);
  }
}
