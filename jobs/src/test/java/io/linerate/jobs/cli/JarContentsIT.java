package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
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
  private static final Path DEMO_JAR = Path.of(System.getProperty("linerate.jobs.demoJar", "target/missing-demo.jar"));

  @Test
  void theJobJarHoldsLinerateTheConnectorAndItsLibrariesButNoFlinkRuntimeAndNoBroker() throws IOException {
    List<String> entries = entries(JAR);
    System.out.printf("%s: %,d bytes, %,d entries%n", JAR.getFileName(), Files.size(JAR), entries.size());
    for (String wanted : List.of("io/linerate/jobs/cli/Main.class", "io/linerate/jobs/kafka/ExactlyOnceSink.class",
        "io/linerate/flink/", "io/linerate/sketches/", "org/apache/flink/connector/kafka/sink/KafkaSink.class",
        "org/apache/kafka/clients/producer/KafkaProducer.class", "com/fasterxml/jackson/databind/ObjectMapper.class",
        "picocli/CommandLine.class")) {
      assertThat(entries).as(JAR.getFileName() + " holds " + wanted).anyMatch(e -> e.startsWith(wanted));
    }
    // kafka/ holds the broker's classes (kafka.server.KafkaRaftServer...); kafka-clients has only
    // kafka/kafka-version.properties there
    for (String banned : List.of("kafka/server/", "kafka/", "scala/", "org/apache/flink/runtime/",
        "org/apache/flink/streaming/api/", "org/apache/flink/client/", "org/apache/flink/connector/base/",
        "org/apache/flink/state/rocksdb/", "org/rocksdb/", "org/apache/logging/", "org/slf4j/", "log4j2.properties")) {
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
    System.out.printf("%s: %,d bytes, %,d entries%n", DEMO_JAR.getFileName(), Files.size(DEMO_JAR), entries.size());
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

  @Test
  void theJobJarStartsAndSaysWhereTheDemoIs() throws Exception {
    Run help = java(Files.createTempDirectory("linerate-jar-it-"), List.of("-jar", JAR.toString(), "--help"));
    assertThat(help.exitCode).as(help.toString()).isZero();
    assertThat(help.out).contains("Usage: linerate").contains("-demo.jar");
    Run version = java(Files.createTempDirectory("linerate-jar-it-"), List.of("-jar", JAR.toString(), "--version"));
    assertThat(version.out).as(version.toString()).startsWith("linerate 0.");
  }

  @Test
  void theDemoJarRunsTheDemoForADurationAndLeavesNoFileBehind() throws Exception {
    Path tmp = Files.createTempDirectory("linerate-demo-it-");
    try {
      Run run = java(tmp, List.of("-jar", DEMO_JAR.toString(), "demo", "--duration", "3s",
          "--checkpoint-interval", "500ms", "--parallelism", "2", "--rate", "500"));
      System.out.println(run);
      assertThat(run.exitCode).as(run.toString()).isZero();
      assertThat(run.out).contains("pass-through demo until the heavy-hitters job lands")
          .contains("each fed record copied once")
          .contains("everything it started is stopped and its files removed");
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(Path::toString).collect(Collectors.toList())).as("files left in java.io.tmpdir").isEmpty();
      }
    } finally {
      try (Stream<Path> paths = Files.walk(tmp)) {
        for (Path p : paths.sorted(Collections.reverseOrder()).collect(Collectors.toList())) {
          Files.deleteIfExists(p);
        }
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
      this.err = err;
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
