package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The demo jar's logging configuration ({@code src/demo/resources/log4j2.properties}) when something logs while the
 * JVM shuts down, as Flink's threads do at the end of a bounded job run with the demo jar (seen: a
 * {@code flink-metrics} thread). With log4j's own shutdown hook, the hook stopped the logger context first, and the
 * late logger started a new context whose hook could not be registered any more: log4j printed "Unable to register
 * Log4j shutdown hook because JVM is shutting down. Using SimpleLogger". The configuration disables that hook: a JVM
 * started with it, whose shutdown hook logs after log4j's hook would have run, must not print that, and its late
 * warning must come out through the configured layout. The routine warning of an RPC endpoint that got a task after
 * it stopped (a few demo teardowns print it) stays off stderr.
 */
class DemoJarLoggingTest {

  /** The demo jar's configuration, from the module's folder (where the tests run) or the project's. */
  private static Path demoConfiguration() {
    Path inModule = Path.of("src/demo/resources/log4j2.properties");
    return (Files.exists(inModule) ? inModule : Path.of("jobs").resolve(inModule)).toAbsolutePath();
  }

  @Test
  @Timeout(60)
  void loggingWhileTheJvmShutsDownPrintsNoShutdownHookWarning() throws Exception {
    Path err = Files.createTempFile("linerate-late-logging-", ".txt");
    try {
      Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"),
          "-Dlog4j2.configurationFile=" + demoConfiguration(),
          LateLogging.class.getName()))
          .redirectErrorStream(true).redirectOutput(err.toFile()).start();
      assertThat(p.waitFor(50, TimeUnit.SECONDS)).as("the child JVM ended").isTrue();
      String output = Files.readString(err);
      assertThat(p.exitValue()).as(output).isZero();
      assertThat(output).as(output)
          .contains("WARN  LateLogging: before the exit")
          .contains("WARN  LateHook: while the JVM shuts down")
          .doesNotContain("ignores the command") // a stopped RPC endpoint's routine warning, ERROR only
          .doesNotContain("Unable to register")
          .doesNotContain("SimpleLogger");
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /** Logs once, then again from a shutdown hook that runs after log4j's own would have stopped its context. */
  static final class LateLogging {
    public static void main(String[] args) {
      LoggerFactory.getLogger("linerate.LateLogging").warn("before the exit");
      LoggerFactory.getLogger("org.apache.flink.runtime.rpc.RpcEndpoint$MainThreadExecutor")
          .warn("The scheduled executor service is shutdown and ignores the command x");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          Thread.sleep(1_000); // log4j's hook, if any, stops the context within milliseconds
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        LoggerFactory.getLogger("linerate.LateHook").warn("while the JVM shuts down");
      }, "linerate-late-logging"));
    }
  }
}
