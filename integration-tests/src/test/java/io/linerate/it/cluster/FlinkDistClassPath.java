package io.linerate.it.cluster;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class path of a Flink cluster without flink-dist (none is published for Flink 2.x): the jars of this test
 * JVM's class path ({@code java.class.path}, in the Maven repository layout) that a flink-dist {@code lib/} holds —
 * Flink's own modules and their third-party dependencies, log4j2 with its slf4j binding — and nothing else.
 *
 * <p>An allow list, so nothing the job needs can leak onto the cluster: not linerate (this module's classes and
 * every linerate jar), not the Kafka connector, kafka-clients or the broker, not Jackson (Flink uses its shaded
 * copy), picocli, hash4j or zstd-jni (the job jar carries them), not the test frameworks. {@link #assertNoJobClasses}
 * checks the result: no class of the job jar's own packages is on it, so the job's classes come from the submitted
 * jar only, as on a real cluster. A Flink upgrade that adds a third-party dependency shows as a
 * {@code NoClassDefFoundError} in the JobManager's or TaskManager's log (printed when the cluster does not start):
 * add its group here.
 */
final class FlinkDistClassPath {

  /** Maven repository folders (group, or group/artifact) of what flink-dist's lib/ holds. */
  private static final List<String> KEEP = List.of(
      "/org/apache/flink/",
      "/com/esotericsoftware/", "/org/objenesis/",                      // kryo
      "/org/snakeyaml/",                                                 // config.yaml
      "/commons-io/", "/commons-cli/",
      "/org/apache/commons/commons-lang3/", "/org/apache/commons/commons-text/",
      "/org/apache/commons/commons-math3/",
      "/org/apache/commons/commons-compress/", "/commons-codec/",        // flink-core (RestartStrategyOptions)
      "/com/google/code/findbugs/", "/org/javassist/", "/tools/profiler/",
      "/org/xerial/snappy/", "/at/yawk/lz4/",                            // flink-runtime's compression
      "/com/ibm/icu/",                                                   // flink-table-common
      "/com/ververica/frocksdbjni/",                                      // the rocksdb state backend
      "/org/slf4j/slf4j-api/", "/org/apache/logging/log4j/");            // logging, as flink-dist's lib/

  /** Flink jars that are not part of flink-dist: the connector the job jar carries, test utilities. */
  private static final List<String> DROP = List.of(
      "/org/apache/flink/flink-connector-kafka/", "/org/apache/flink/flink-test-utils");

  /** Packages of the job jar's own classes: none may be on the cluster's class path. */
  static final List<String> JOB_PACKAGES = List.of(
      "io/linerate/", "org/apache/kafka/", "org/apache/flink/connector/kafka/", "com/fasterxml/jackson/",
      "picocli/", "com/dynatrace/hash4j/");

  final List<String> kept = new ArrayList<>();
  final List<String> dropped = new ArrayList<>();

  private FlinkDistClassPath() {
  }

  /** Splits {@code java.class.path} into what the cluster gets and what it does not. */
  static FlinkDistClassPath ofThisJvm() {
    FlinkDistClassPath cp = new FlinkDistClassPath();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      String path = entry.replace(File.separatorChar, '/');
      boolean keep = path.endsWith(".jar") && !path.endsWith("-tests.jar")
          && KEEP.stream().anyMatch(path::contains) && DROP.stream().noneMatch(path::contains);
      (keep ? cp.kept : cp.dropped).add(entry);
    }
    return cp;
  }

  /** The cluster's class path, for {@code java -cp}. */
  String classPath() {
    return String.join(File.pathSeparator, kept);
  }

  /** File names of the dropped entries (folders by their path), sorted: for the test's log. */
  List<String> droppedNames() {
    List<String> names = new ArrayList<>();
    dropped.forEach(e -> names.add(e.endsWith(".jar") ? new File(e).getName() : e));
    Collections.sort(names);
    return names;
  }

  /** Fails if a kept jar holds a class of {@link #JOB_PACKAGES}, or Flink's runtime or CLI is missing. */
  void assertNoJobClasses() throws IOException {
    boolean runtime = false;
    boolean cli = false;
    for (String jar : kept) {
      try (ZipFile zip = new ZipFile(jar)) {
        for (ZipEntry e : Collections.list(zip.entries())) {
          String name = e.getName();
          if (!name.endsWith(".class")) {
            continue;
          }
          for (String p : JOB_PACKAGES) {
            if (name.startsWith(p)) {
              throw new AssertionError(String.format(Locale.ROOT,
                  "the cluster's class path must not hold the job's classes, but %s holds %s", jar, name));
            }
          }
          runtime |= name.equals("org/apache/flink/runtime/entrypoint/StandaloneSessionClusterEntrypoint.class");
          cli |= name.equals("org/apache/flink/client/cli/CliFrontend.class");
        }
      }
    }
    if (!runtime || !cli) {
      throw new AssertionError("the cluster's class path lacks Flink's runtime or CLI: " + kept);
    }
  }
}
