package io.linerate.jobs.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import org.slf4j.LoggerFactory;

/**
 * Keeps slf4j's notice that it found no binding off the error output of the job jar run with {@code java -jar} (the
 * feeders {@code generate} and {@code replay}). The job jar holds slf4j-api 1.7 and, on purpose, no binding: on a
 * Flink cluster {@code org.slf4j} is loaded parent-first from the cluster's {@code lib/}, whose binding applies, and a
 * binding in the jar could clash with it where the jar is put on the cluster's class path. Outside Flink, slf4j 1.7
 * then prints three lines ("Failed to load class org.slf4j.impl.StaticLoggerBinder", "Defaulting to no-operation
 * (NOP) logger implementation", a link) straight to {@code System.err} when the first logger is made (the Kafka
 * producer's). Version 1.7 has no setting to silence them ({@code slf4j.internal.verbosity} is 2.x's), so
 * {@link #initialize()} makes slf4j bind once, early, with {@code System.err} captured, and prints back whatever else
 * slf4j said. With a binding on the class path (the demo jar, {@code flink run}) it does nothing.
 */
final class Slf4jWithoutBinding {

  /** The class an slf4j 1.7 binding provides. */
  static final String BINDER = "org.slf4j.impl.StaticLoggerBinder";

  /** What slf4j 1.7 prints when it finds no binding: its NOP fallback, nothing to act on for a feeder. */
  static final List<String> NOTICE = List.of(
      "SLF4J: Failed to load class \"org.slf4j.impl.StaticLoggerBinder\".",
      "SLF4J: Defaulting to no-operation (NOP) logger implementation",
      "SLF4J: See http://www.slf4j.org/codes.html#StaticLoggerBinder for further details.");

  private Slf4jWithoutBinding() {
  }

  /**
   * Without an slf4j binding on the class path: binds slf4j now (to its NOP logger) with {@code System.err} captured,
   * and prints to the real {@code System.err} what it said beyond {@link #NOTICE}. Call before any thread starts.
   */
  static void initialize() {
    if (present(BINDER)) {
      return;
    }
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      LoggerFactory.getILoggerFactory();
    } finally {
      System.setErr(err);
    }
    String rest = beyondNotice(captured.toString(StandardCharsets.UTF_8));
    if (!rest.isEmpty()) {
      err.print(rest);
      err.flush();
    }
  }

  /** The lines of {@code output} that are not the NOP fallback's {@link #NOTICE}, each ending with a line break. */
  static String beyondNotice(String output) {
    return output.lines().filter(line -> !NOTICE.contains(line.strip()))
        .map(line -> line + System.lineSeparator()).collect(Collectors.joining());
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Slf4jWithoutBinding.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
