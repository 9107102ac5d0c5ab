package io.linerate.jobs.local;

import java.util.Optional;

/**
 * The Java versions that Flink clusters in this JVM ({@link LocalFlink}, a job run without {@code flink run}) are
 * run on: 17 to 21, as the build's enforcer rule says. Flink 2.2 documents 11, 17 and 21; linerate's class files
 * (release 17) load on 17 and later; CI runs 17.
 *
 * <p>Why a warning: on Java 25 (Temurin 25.0.3), Flink 2.2.1's RPC system (Pekko 1.1.2) hangs while a local cluster
 * starts or stops, waiting for an actor that never runs: measured on the 2-core machine, each of four runs of
 * repeated start/stop cycles hung within 10 cycles; on Java 17, 40 cycles in a row did not (README, "Java
 * versions"). Pekko supports Java 25 from 1.7, which Flink's main branch took in August 2026 (FLINK-40457).
 */
public final class SupportedJava {

  /** The lowest feature version ({@link Runtime.Version#feature()}) supported: the build's release. */
  public static final int LOWEST = 17;
  /** The highest feature version supported: the newest Flink 2.2 documents. */
  public static final int HIGHEST = 21;

  private SupportedJava() {}

  /** The warning for this JVM's Java version, empty on a supported one. */
  public static Optional<String> warning() {
    return warning(Runtime.version());
  }

  /** The warning for {@code version}, empty on a supported one. */
  static Optional<String> warning(Runtime.Version version) {
    if (version.feature() >= LOWEST && version.feature() <= HIGHEST) {
      return Optional.empty();
    }
    return Optional.of("Java " + version + " is not supported: linerate runs Flink on Java " + LOWEST + " to "
        + HIGHEST + " (Flink 2.2 supports 11, 17 and 21). On Java 25, Flink's local clusters have hung while starting or stopping (see"
        + " the README, \"Java versions\"). Run it with a JDK 17 or 21.");
  }

  /** {@code message}, followed by this warning where the Java version is not supported. */
  static String withWarning(String message) {
    return warning().map(w -> message + ". " + w).orElse(message);
  }
}
