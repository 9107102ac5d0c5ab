package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The common-pool setting for Flink clusters in this JVM on Java 25 and later ({@link CommonPool}): when it warns,
 * that {@link CommonPool#prepare()} takes effect in a fresh JVM (and only where due), that the build's test JVMs get
 * the same value, and that this JVM, which starts Flink clusters, has a pool that needs no warning.
 */
class CommonPoolTest {

  @Test
  void aWarningOnlyFromJava25WithASmallPool() {
    assertThat(CommonPool.warning(17, 1)).isEmpty();
    assertThat(CommonPool.warning(21, 1)).isEmpty();
    assertThat(CommonPool.warning(24, 1)).isEmpty();
    assertThat(CommonPool.warning(25, CommonPool.MIN_PARALLELISM)).isEmpty();
    assertThat(CommonPool.warning(26, 15)).isEmpty();
    assertThat(CommonPool.warning(25, 1)).hasValue("the JVM's common ForkJoinPool has parallelism 1, below 4: on "
        + "Java 25 and later a local Flink cluster can hang while it starts or stops (README, \"Java versions\"); "
        + "start the JVM with -Djava.util.concurrent.ForkJoinPool.common.parallelism=4");
    assertThat(CommonPool.warning(25, 3)).hasValueSatisfying(w -> assertThat(w).contains("parallelism 3, below 4"));
  }

  /** Why this can fail: a test JVM on Java 25 without the build's common-pool profile, or with another value. */
  @Test
  void thisTestJvmNeedsNoWarning() {
    assertThat(CommonPool.warning()).as("common pool parallelism %d on Java %s",
        ForkJoinPool.getCommonPoolParallelism(), Runtime.version()).isEmpty();
  }

  @Test
  void theBuildGivesTestJvmsTheSameValue() throws IOException {
    String pom = Files.readString(Path.of(System.getProperty("basedir", ".")).resolve("../pom.xml"),
        StandardCharsets.UTF_8);
    assertThat(pom).contains("<activation><jdk>[" + CommonPool.FIRST_AFFECTED_JAVA + ",)</jdk></activation>")
        .contains("<linerate.flinkJvm.argLine>-D" + CommonPool.PROPERTY + "=" + CommonPool.MIN_PARALLELISM
            + "</linerate.flinkJvm.argLine>");
  }

  /**
   * A fresh JVM of this Java, as the {@code linerate} command starts: after {@code prepare()}, its pool has at least
   * {@value CommonPool#MIN_PARALLELISM} on Java 25 and later, and the JDK's own default before (the setting changes
   * nothing there); a value given on the command line wins.
   */
  @Test
  void prepareSizesAFreshJvmsPoolOnlyWhereDue() throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    int jdkDefault = Math.max(1, cores - 1);
    boolean affected = Runtime.version().feature() >= CommonPool.FIRST_AFFECTED_JAVA;
    assertThat(freshJvmParallelism()).isEqualTo(affected ? Math.max(jdkDefault, CommonPool.MIN_PARALLELISM)
        : jdkDefault);
    assertThat(freshJvmParallelism("-D" + CommonPool.PROPERTY + "=7")).as("the user's value").isEqualTo(7);
  }

  /** Runs {@link PrintParallelism} in a new JVM of this Java with this class path. */
  private static int freshJvmParallelism(String... options) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(options));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), PrintParallelism.class.getName()));
    // stdout only: the JVM says "Picked up JAVA_TOOL_OPTIONS: ..." on stderr where that variable is set
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return Integer.parseInt(out);
  }

  /** What the command does first, then the pool's parallelism. */
  static final class PrintParallelism {
    public static void main(String[] args) {
      CommonPool.prepare();
      System.out.println(ForkJoinPool.getCommonPoolParallelism());
    }
  }
}
