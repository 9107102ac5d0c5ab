package io.linerate.jobs.cli;

import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.EmbeddedKafka;
import io.linerate.jobs.kafka.TopicReader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The two jars the package phase built (failsafe runs this in the verify phase, after package): what each holds
 * and leaves out, their manifests, and the demo jar run as users run it ({@code java -jar ... demo}).
 *
 * <p>Why this can fail: a dependency whose scope changes from provided to compile drags Flink's runtime or the
 * broker into the job jar; a lost service file or log4j configuration breaks the demo jar, which then exits
 * non-zero or leaves files behind.
 */
class JarContentsIT {

  private static final Path JAR = Path.of(System.getProperty("linerate.jobs.jar", "target/missing.jar"));
  static final Path DEMO_JAR = Path.of(System.getProperty("linerate.jobs.demoJar", "target/missing-demo.jar"));

  @Test
  void theJobJarHoldsLinerateTheConnectorAndItsLibrariesButNoFlinkRuntimeAndNoBroker() throws IOException {
    List<String> entries = entries(JAR);
    System.out.printf(Locale.ROOT, "%s: %,d bytes, %,d entries%n", JAR.getFileName(), Files.size(JAR), entries.size());
    for (String wanted : List.of("io/linerate/jobs/cli/Main.class", "io/linerate/jobs/kafka/ExactlyOnceSink.class",
        "io/linerate/flink/", "io/linerate/sketches/", "org/apache/flink/connector/kafka/sink/KafkaSink.class",
        "org/apache/kafka/clients/producer/KafkaProducer.class", "com/fasterxml/jackson/databind/ObjectMapper.class",
        "picocli/CommandLine.class", "io/linerate/jobs/shaded/commons/text/similarity/LevenshteinDistance.class")) {
      assertThat(entries).as(JAR.getFileName() + " holds " + wanted).anyMatch(e -> e.startsWith(wanted));
    }
    // kafka/ holds the broker's classes (kafka.server.KafkaRaftServer...); kafka-clients has only
    // kafka/kafka-version.properties there
    for (String banned : List.of("kafka/server/", "kafka/", "scala/", "org/apache/flink/runtime/",
        "org/apache/flink/streaming/api/", "org/apache/flink/client/", "org/apache/flink/connector/base/",
        "org/apache/flink/state/rocksdb/", "org/rocksdb/", "org/apache/logging/", "org/slf4j/impl/", "log4j2.properties",
        "org/apache/commons/text/")) {
      List<String> offenders = entries.stream()
          .filter(e -> e.startsWith(banned) && (e.endsWith(".class") || !banned.endsWith("/")))
          .limit(5).collect(Collectors.toList());
      assertThat(offenders).as(JAR.getFileName() + " must not hold " + banned).isEmpty();
    }
    assertManifest(JAR);
  }

  @Test
  void theDemoJarAddsFlinksRuntimeRocksDbTheWebUiTheBrokerAndLogging() throws IOException {
    List<String> entries = entries(DEMO_JAR);
    System.out.printf(Locale.ROOT,
            "%s: %,d bytes, %,d entries%n", DEMO_JAR.getFileName(), Files.size(DEMO_JAR), entries.size());
    for (String wanted : List.of("io/linerate/jobs/cli/Main.class", "org/apache/kafka/clients/producer/KafkaProducer.class",
        "kafka/server/KafkaRaftServer.class", "scala/Option.class",
        "org/apache/flink/runtime/minicluster/MiniCluster.class",
        "org/apache/flink/client/deployment/executors/LocalExecutorFactory.class",
        "org/apache/flink/connector/base/DeliveryGuarantee.class",
        "org/apache/flink/state/rocksdb/EmbeddedRocksDBStateBackendFactory.class", "web/index.html",
        "org/slf4j/impl/StaticLoggerBinder.class", "log4j2.properties")) {
      assertThat(entries).as(DEMO_JAR.getFileName() + " holds " + wanted).contains(wanted);
    }
    try (JarFile jar = new JarFile(DEMO_JAR.toFile())) {
      // merged, not overwritten: both executors of flink-clients and the file systems of flink-core
      String executors = new String(jar.getInputStream(
          jar.getEntry("META-INF/services/org.apache.flink.core.execution.PipelineExecutorFactory")).readAllBytes(),
          StandardCharsets.UTF_8);
      assertThat(executors).contains("LocalExecutorFactory").contains("RemoteExecutorFactory");
    }
    assertManifest(DEMO_JAR);
  }

  /**
   * The feeders run from the job jar with plain {@code java -jar}, outside any Flink: nothing on their path may
   * load a Flink class (the job jar has none). Against a real broker: {@code generate}, then {@code replay} of a
   * one-packet capture written here byte for byte.
   */
  @Test
  void theFeedersRunFromTheJobJarWithoutFlink() throws Exception {
    Path tmp = Files.createTempDirectory("linerate-feed-it-");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      System.out.println("Kafka broker used: " + kafka.description() + " at " + kafka.bootstrapServers());
      kafka.createTopics(1, "generated", "replayed");
      Run generate = java(tmp, List.of("-jar", JAR.toString(), "generate", "--bootstrap-servers",
          kafka.bootstrapServers(), "--input-topic", "generated", "--count", "5000", "--batch-size", "500",
          // client properties are checked and the batch size against them, all without Flink classes
          "--kafka-property", "security.protocol=PLAINTEXT", "--producer-property", "linger.ms=5",
          "--producer-property", "max.request.size=1048576"));
      assertThat(generate.exitCode).as(generate.toString()).isZero();
      // no binding in the job jar on purpose; slf4j 1.7's notice of its NOP fallback is kept off stderr (Main)
      assertThat(generate.err).as(generate.toString()).doesNotContain("SLF4J");
      List<byte[]> batches = TopicReader.readAllValues(kafka.bootstrapServers(), "generated", true);
      int packets = 0;
      for (byte[] value : batches) {
        packets += PacketBatchCodec.decode(value).size();
      }
      assertThat(packets).isEqualTo(5000);

      Path capture = tmp.resolve("one.pcap");
      Files.write(capture, onePacketPcap());
      Run replay = java(tmp, List.of("-jar", JAR.toString(), "replay", "--bootstrap-servers",
          kafka.bootstrapServers(), "--input-topic", "replayed", "--producer-property", "acks=all",
          capture.toString()));
      assertThat(replay.exitCode).as(replay.toString()).isZero();
      assertThat(replay.err).as(replay.toString()).doesNotContain("SLF4J");
      List<byte[]> replayed = TopicReader.readAllValues(kafka.bootstrapServers(), "replayed", true);
      assertThat(replayed).hasSize(1);
      PacketBatch batch = PacketBatchCodec.decode(replayed.get(0));
      assertThat(batch.size()).isEqualTo(1);
      PacketRecord packet = batch.get(0, new PacketRecord());
      assertThat(packet.srcPort()).isEqualTo(5353);
      assertThat(packet.dstPort()).isEqualTo(53);
      assertThat(packet.protocol()).isEqualTo(17);

      // a topic that does not exist (the embedded broker does not create topics): the topic check, close names
      // included, runs from the job jar too (no Flink there; its own relocated commons-text) and refuses before the
      // producer's 60 s max.block.ms
      long start = System.nanoTime();
      Run missing = java(tmp, List.of("-jar", JAR.toString(), "generate", "--bootstrap-servers",
          kafka.bootstrapServers(), "--input-topic", "generatd", "--count", "10"));
      double seconds = (System.nanoTime() - start) / 1e9;
      assertThat(missing.exitCode).as(missing.toString()).isEqualTo(1);
      assertThat(missing.err).as(missing.toString()).startsWith("generate: nothing is written: input topic "
          + "'generatd' does not exist on " + kafka.bootstrapServers()).contains("Topics with a close name: 'generated'.")
          .doesNotContain("Exception");
      assertThat(seconds).as("generate to a missing topic took %.1f s", seconds).isLessThan(45);
    } finally {
      deleteTree(tmp);
    }
  }

  /** A classic little-endian microsecond pcap, Ethernet, one IPv4/UDP packet 10.0.0.1:5353 → 10.0.0.2:53. */
  private static byte[] onePacketPcap() {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(24 + 16 + 14 + 28).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
    b.putInt(1_700_000_000).putInt(250_000).putInt(42).putInt(42);
    b.order(java.nio.ByteOrder.BIG_ENDIAN);
    b.put(new byte[12]).putShort((short) 0x0800);                     // Ethernet: MACs, IPv4
    b.put((byte) 0x45).put((byte) 0).putShort((short) 28).putInt(0)  // IPv4: version/IHL, TOS, length, id/frag
        .put((byte) 64).put((byte) 17).putShort((short) 0)            // TTL, UDP, checksum
        .putInt(0x0A000001).putInt(0x0A000002);
    b.putShort((short) 5353).putShort((short) 53).putShort((short) 8).putShort((short) 0); // UDP
    return b.array();
  }

  @Test
  void theJobJarStartsAndSaysWhereTheDemoIs() throws Exception {
    Path tmp = Files.createTempDirectory("linerate-jar-it-");
    try {
      Run help = java(tmp, List.of("-jar", JAR.toString(), "--help"));
      assertThat(help.exitCode).as(help.toString()).isZero();
      assertThat(help.out).contains("Usage: linerate").contains("-demo.jar");
      Run version = java(tmp, List.of("-jar", JAR.toString(), "--version"));
      assertThat(version.out).as(version.toString()).startsWith("linerate 0.");
      Run demo = java(tmp, List.of("-jar", JAR.toString(), "demo"));
      assertThat(demo.exitCode).as("the job jar has no demo command: " + demo).isEqualTo(2);
    } finally {
      deleteTree(tmp);
    }
  }

  @Test
  void theDemoJarRunsTheDemoForADurationAndLeavesNoFileBehind() throws Exception {
    Path tmp = Files.createTempDirectory("linerate-demo-it-");
    try {
      // 2 s windows of event time at 5,000 packets/s: a few windows close and are reported within the run
      Run run = java(tmp, List.of("-jar", DEMO_JAR.toString(), "demo", "--duration", "8s", "--window", "2s",
          "--checkpoint-interval", "500ms", "--parallelism", "2", "--rate", "5000", "--inject-after", "0s"));
      System.out.println(run);
      assertThat(run.exitCode).as(run.toString()).isZero();
      assertThat(run.out).contains("embedded Kafka broker (KRaft)")
          .contains("observation point")   // the top-k table of a reported window
          .contains("heavy")               // the injected flow is marked as a heavy hitter
          .contains("everything it started is stopped and its files removed");
      // its log configuration sends WARN and above to stderr: a run that worked logs no error and no stack trace
      // there (warnings may come and go with timing; three runs before this check printed none)
      assertThat(run.err.lines()).as("the demo's stderr: " + run.err)
          .noneMatch(line -> line.contains(" ERROR ") || line.contains("Exception") || line.startsWith("\tat "));
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(Path::toString).collect(Collectors.toList())).as("files left in java.io.tmpdir").isEmpty();
      }
    } finally {
      deleteTree(tmp);
    }
  }

  /**
   * Ctrl-C on a demo running until interrupted ({@code --duration 0s}): once a report table shows that the job
   * runs and output flows, the test sends SIGINT the way a terminal does ({@code kill -INT <pid>}); the demo's one
   * shutdown hook stops the feeder, the job, the cluster and the broker in that order. The process must end
   * within {@link #CTRL_C_BOUND} with exit code 130 (the JVM's status after SIGINT once its hooks completed),
   * say so, leave nothing in its {@code java.io.tmpdir}, free the broker's and the web UI's ports, and leave no
   * child process.
   *
   * <p>A JVM whose SIGINT is ignored (a build started in the background by a non-interactive shell passes
   * {@code SIG_IGN} on to every child, and the JVM keeps it) would never see the signal: the demo is then started
   * through {@code env --default-signal=INT} (coreutils 8.31+), which restores the default and execs java (same
   * pid), as a foreground process of an interactive shell has it.
   */
  @Test
  void ctrlCStopsTheDemoPromptlyAndLeavesNothingBehind() throws Exception {
    assumeFalse(System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).startsWith("windows"),
        "Ctrl-C is sent as SIGINT with kill -INT: not on Windows");
    Path tmp = Files.createTempDirectory("linerate-demo-int-it-");
    Path out = Files.createTempFile("linerate-it-out-", ".txt");
    Path err = Files.createTempFile("linerate-it-err-", ".txt");
    List<String> command = new ArrayList<>();
    if (sigintIgnored(ProcessHandle.current().pid())) {
      System.out.println("SIGINT is ignored in this JVM (inherited): the demo starts through env --default-signal=INT");
      command.addAll(List.of("env", "--default-signal=INT"));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-jar", DEMO_JAR.toString(), "demo",
        "--duration", "0s", "--window", "2s", "--checkpoint-interval", "500ms", "--rate", "5000",
        "--inject-after", "0s"));
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      // a report table: the job runs, the feeder feeds, and the job's committed output is read back
      String running = awaitOutput(p, out, err, Pattern.compile("(?m)^observation point \\d+ +window "),
          Duration.ofSeconds(120));
      assumeTrue(!sigintIgnored(p.pid()), "SIGINT is still ignored in the demo's JVM: Ctrl-C cannot be simulated");
      Matcher kafka = Pattern.compile("embedded Kafka broker \\(KRaft\\) \\S+ on 127\\.0\\.0\\.1:(\\d+)").matcher(running);
      Matcher web = Pattern.compile("web UI and REST API on http://127\\.0\\.0\\.1:(\\d+)").matcher(running);
      assertThat(kafka.find()).as("the broker's port is printed:\n" + running).isTrue();
      assertThat(web.find()).as("the web UI's port is printed:\n" + running).isTrue();
      List<ProcessHandle> children = p.descendants().collect(Collectors.toList());

      double seconds = interrupt(p, CTRL_C_BOUND);
      String output = Files.readString(out);
      assertThat(p.isAlive()).as("the demo ends within " + CTRL_C_BOUND + " of SIGINT:\n" + output).isFalse();
      System.out.printf(Locale.ROOT, "Ctrl-C: the demo's process ended %.1f s after SIGINT, exit code %d%n",
          seconds, p.exitValue());
      System.out.println(output.lines().filter(l -> !l.startsWith(" ") && !l.startsWith("observation point"))
          .collect(Collectors.joining("\n", "--- demo output without the tables\n", "\n---")));
      String stderr = Files.readString(err);
      assertThat(p.exitValue()).as("exit code after SIGINT (128 + 2)\n" + output + stderr).isEqualTo(130);
      assertThat(output).contains("interrupted: stopping the feeder, the job, the Flink cluster and the Kafka broker")
          .contains("demo stopped on interrupt after")
          .contains("everything it started is stopped and its files removed")
          .doesNotContain("the feeder failed")
          .doesNotContain("(JVM shutdown)")  // no broker hook of its own racing the demo's
          .doesNotContain("while stopping:");
      assertThat(output).as("the teardown's order").containsSubsequence("interrupted: stopping", "feeder stopped", "job heavy-hitters CANCELED",
          "local Flink cluster stopped", "embedded Kafka broker on 127.0.0.1:" + kafka.group(1) + " stopped",
          "demo stopped on interrupt");
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(Path::toString).collect(Collectors.toList())).as("files left in java.io.tmpdir").isEmpty();
      }
      for (String port : List.of(kafka.group(1), web.group(1))) {
        assertThat(portIsFree(Integer.parseInt(port))).as("port " + port + " is free again").isTrue();
      }
      assertThat(children.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
          .collect(Collectors.toList())).as("child processes of the demo still alive").isEmpty();
      assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor();
      }
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      deleteTree(tmp);
    }
  }

  /**
   * Bound on the time from SIGINT to the end of the demo's process. Measured: about 1–1.5 s on the 2-core build
   * machine (feeder, job cancel, cluster 0.2 s, broker 0.3–0.5 s, JVM exit). Before the teardown was ordered, the
   * broker's own hook stopped the broker under the flushing feeder, and the demo waited 10 s for the feeder
   * (11 s in all; 20–30 s seen when the job's cancellation hit the stopped broker): a bound below 10 s catches
   * that race, with several times the measured time as margin for a loaded machine.
   */
  private static final Duration CTRL_C_BOUND = Duration.ofSeconds(8);

  /**
   * Sends SIGINT to {@code p} as a terminal's Ctrl-C does ({@code kill -INT}) and waits for its end, at most
   * {@code bound}: the seconds it waited ({@code p} may still run after the bound).
   */
  static double interrupt(Process p, Duration bound) throws Exception {
    long begin = System.nanoTime();
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -INT").isZero();
    p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
    return (System.nanoTime() - begin) / 1e9;
  }

  /** Whether SIGINT is ignored ({@code SigIgn} of /proc/pid/status holds bit 2 - 1). False without /proc. */
  static boolean sigintIgnored(long pid) throws IOException {
    Path status = Path.of("/proc", Long.toString(pid), "status");
    if (!Files.isReadable(status)) {
      return false;
    }
    return Files.readAllLines(status).stream().filter(l -> l.startsWith("SigIgn:"))
        .anyMatch(l -> (Long.parseUnsignedLong(l.substring("SigIgn:".length()).trim(), 16) & 0b10) != 0);
  }

  /**
   * The output once {@code pattern} is found in it; fails (with stderr) if the process ends or {@code timeout}
   * passes first.
   */
  static String awaitOutput(Process p, Path out, Path err, Pattern pattern, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String text = Files.readString(out);
      if (pattern.matcher(text).find()) {
        return text;
      }
      assertThat(p.isAlive()).as("the process ended before " + pattern + ":\n" + text + Files.readString(err))
          .isTrue();
      assertThat(System.nanoTime() < deadline).as("no " + pattern + " within " + timeout + ":\n" + text).isTrue();
      Thread.sleep(200);
    }
  }

  private static boolean portIsFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true); // connections in TIME_WAIT do not keep a server from binding it
      socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Collections.reverseOrder()).collect(Collectors.toList())) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static void assertManifest(Path jarPath) throws IOException {
    try (JarFile jar = new JarFile(jarPath.toFile())) {
      Attributes main = jar.getManifest().getMainAttributes();
      assertThat(main.getValue("Main-Class")).isEqualTo("io.linerate.jobs.cli.Main");
      assertThat(main.getValue("Implementation-Version")).isNotBlank();
    }
  }

  private static List<String> entries(Path jarPath) throws IOException {
    assertThat(jarPath).as("built by the package phase").isRegularFile();
    try (JarFile jar = new JarFile(jarPath.toFile())) {
      return jar.stream().map(e -> e.getName()).collect(Collectors.toList());
    }
  }

  private static final class Run {
    final int exitCode;
    final String out;
    final String err;

    Run(int exitCode, String out, String err) {
      this.exitCode = exitCode;
      this.out = out;
      // the launcher's notice of options taken from the environment (JAVA_TOOL_OPTIONS, _JAVA_OPTIONS,
      // JDK_JAVA_OPTIONS) is the JVM's, not the command's: an environment that sets them must not fail the checks
      this.err = err.lines().filter(l -> !l.matches("(NOTE: )?Picked up \\w+: .*")).map(l -> l + "\n")
          .collect(Collectors.joining());
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** Runs {@code java args} with its own {@code java.io.tmpdir}; at most 120 s. */
  private static Run java(Path tmp, List<String> args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.add("-Djava.io.tmpdir=" + tmp);
    command.addAll(args);
    Path out = Files.createTempFile("linerate-it-out-", ".txt");
    Path err = Files.createTempFile("linerate-it-err-", ".txt");
    try {
      Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError("java " + args + " did not end within 120 s:\n" + Files.readString(out));
      }
      return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
