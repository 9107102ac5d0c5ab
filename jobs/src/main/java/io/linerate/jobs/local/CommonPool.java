package io.linerate.jobs.local;

import java.util.Optional;
import java.util.concurrent.ForkJoinPool;

/**
 * The JVM's common {@link ForkJoinPool} sized so that a Flink cluster in this JVM does not hang on Java 25 and later.
 *
 * <p>Why. From Java 25 every async method of {@link java.util.concurrent.CompletableFuture} called without an executor
 * runs on the common pool, even when the pool's parallelism is 1; up to Java 24 such a pool made it start a thread
 * per task instead (JDK-8362881). The common pool's parallelism defaults to the number of cores minus one: 1 on a
 * 2-core machine. Flink 2.2 runs some of its callbacks there, and they can block: in the thread dump of a local
 * cluster hung on Java 25, the pool's only worker waited for a lock in {@code ResourceManagerServiceImpl} that a
 * thread starting the resource manager held while it waited for an RPC actor that never started. Measured on the
 * 2-core machine (Temurin 25.0.3, Flink 2.2.1, a local cluster started and stopped in a loop): without a setting,
 * each of 9 runs hung within its first 10 cycles; with {@value #PROPERTY} set to 2 (3 runs) or to
 * {@value #MIN_PARALLELISM} (8 runs), none of those runs of 10 cycles did (README, "Java versions").
 * {@value #MIN_PARALLELISM} leaves a margin above the 2 that sufficed there; the pool starts its threads only when
 * tasks come.
 *
 * <p>The JDK reads the setting once, when the pool is first used, so it must be set before that: {@link #prepare()}
 * does so as the first step of the {@code linerate} command; the build passes it to the test JVMs on Java 25 and
 * later. Anything else that starts a local cluster can check {@link #warning()} and print it.
 */
public final class CommonPool {

  /** The system property from which the JDK takes the common pool's parallelism. */
  public static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";
  /** The parallelism this class asks for where the JDK's default is lower: that of a 5-core machine. */
  public static final int MIN_PARALLELISM = 4;
  /** The first Java feature version that runs async tasks on a common pool of parallelism 1 (JDK-8362881). */
  static final int FIRST_AFFECTED_JAVA = 25;

  private CommonPool() {}

  /**
   * On Java 25 and later, sets {@value #PROPERTY} to {@value #MIN_PARALLELISM} unless it is set already (a user's
   * value wins) or the cores give at least that much. Call it before anything uses the common pool; later it has no
   * effect, which {@link #warning()} then tells.
   */
  public static void prepare() {
    if (Runtime.version().feature() >= FIRST_AFFECTED_JAVA && System.getProperty(PROPERTY) == null
        && Runtime.getRuntime().availableProcessors() - 1 < MIN_PARALLELISM) {
      System.setProperty(PROPERTY, Integer.toString(MIN_PARALLELISM));
    }
  }

  /** The warning for this JVM's common pool, empty where a local Flink cluster does not risk the hang. */
  public static Optional<String> warning() {
    return warning(Runtime.version().feature(), ForkJoinPool.getCommonPoolParallelism());
  }

  /** The warning for a common pool of {@code parallelism} on Java {@code feature}, empty where none is due. */
  static Optional<String> warning(int feature, int parallelism) {
    if (feature < FIRST_AFFECTED_JAVA || parallelism >= MIN_PARALLELISM) {
      return Optional.empty();
    }
    return Optional.of("the JVM's common ForkJoinPool has parallelism " + parallelism + ", below "
        + MIN_PARALLELISM + ": on Java " + FIRST_AFFECTED_JAVA + " and later a local Flink cluster can hang while it "
        + "starts or stops (README, \"Java versions\"); start the JVM with -D" + PROPERTY + "=" + MIN_PARALLELISM);
  }
}
