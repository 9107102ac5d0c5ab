package io.linerate.jobs.local;

import java.util.Optional;

/**
 * The Java versions that Flink clusters in this JVM ({@link LocalFlink}, a job run without {@code flink run}) are
 * run on: 17 to 21, and 25, as the build's enforcer rule says. Flink 2.2 documents 11, 17 and 21; linerate's class
 * files (release 17) load on 17 and later; CI runs 17, and the whole test suite and the demo passed on 21 and on 25
 * as well (README, "Java versions"). 22 to 24 are out of their support and untested here.
 *
 * <p>On 25, a local cluster needs the JVM's common pool sized as {@link CommonPool} sizes it, or it can hang while it
 * starts or stops on a machine with few cores.
 */
public final class SupportedJava {

  /** The lowest feature version ({@link Runtime.Version#feature()}) supported: the build's release. */
  public static final int LOWEST = 17;
  /** The highest of the versions from {@link #LOWEST} on that Flink 2.2 documents. */
  public static final int HIGHEST_DOCUMENTED = 21;
  /** The one version beyond those that linerate is tested on: the newest long-term-support release. */
  public static final int TESTED_BEYOND = 25;

  private SupportedJava() {}

  /** The warning for this JVM's Java version, empty on a supported one. */
  public static Optional<String> warning() {
    return warning(Runtime.version());
  }

  /** The warning for {@code version}, empty on a supported one. */
  static Optional<String> warning(Runtime.Version version) {
    int feature = version.feature();
    if (feature >= LOWEST && feature <= HIGHEST_DOCUMENTED || feature == TESTED_BEYOND) {
      return Optional.empty();
    }
    return Optional.of("Java " + version + " is not supported: linerate runs Flink on Java " + LOWEST + " to "
        + HIGHEST_DOCUMENTED + " and on " + TESTED_BEYOND + " (Flink 2.2 documents 11, 17 and 21; " + TESTED_BEYOND
        + " is tested here, see the README, \"Java versions\"). Run it with a JDK " + LOWEST + ", "
        + HIGHEST_DOCUMENTED + " or " + TESTED_BEYOND + ".");
  }
}
