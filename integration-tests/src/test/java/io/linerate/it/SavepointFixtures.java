package io.linerate.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The savepoint fixtures of {@link SavepointCompatibilityIT}, written by {@link WriteSavepointFixtures}: for each
 * job, a savepoint taken after the first part of a small seeded input, and what the job had committed by then.
 * Both sides use the same input (seed, size, topic names: the Kafka source's state names its topics, partitions
 * and offsets), defined here once.
 *
 * <p>Layout of {@code src/test/resources/savepoints/<version>/<job>/}: {@code savepoint/} (the savepoint folder,
 * self-contained: {@code _metadata} and any state files, referenced by relative paths); {@code output.txt.gz} and
 * {@code dead-letters.txt.gz} (the records committed to the output and dead-letter topics before the savepoint,
 * sorted, one a line, gzipped); {@code fixture.properties} (how it was made).
 *
 * <p>Fixture sets ({@link #VERSIONS}): {@code v1}, the first released state format of every operator; {@code v2},
 * the formats of 2026-11-28 (heavy-hitters keyed state layout 2 with its {@code SubWindowSerializer} and
 * {@code OpenSubWindowsSerializer} snapshots, dedup {@code GenerationRingSerializer} snapshot version 2). Every set
 * is restored by every build; the writer writes only the newest ({@link #CURRENT}) and never one that exists.
 */
final class SavepointFixtures {

  /**
   * Every fixture set, oldest first: each is committed under {@code savepoints/<version>/} and restored by
   * {@link SavepointCompatibilityIT}. A new state format adds a version here, never rewrites one
   * (docs/STATE-FORMAT.md, "Savepoint fixtures").
   */
  static final List<String> VERSIONS = List.of("v1", "v2");
  /** The fixture set {@link WriteSavepointFixtures} writes: the newest of {@link #VERSIONS}. */
  static final String CURRENT = VERSIONS.get(VERSIONS.size() - 1);
  /** The input's seed. */
  static final long SEED = ReferenceRuns.SEED;

  private SavepointFixtures() {
  }

  /**
   * Packets or events of the whole input: a few seconds of event time at {@link Workload#EVENT_RATE} per second
   * (fewer events for dedup, which writes one output record per event), enough for windows, flows and dedup
   * decisions to be made before the savepoint and others to depend on state carried across it.
   */
  static long units(Workload w) {
    return switch (w) {
      case HEAVY_HITTERS -> 60_000; // 3 s of event time
      case FLOW_METER -> 60_000;    // 3 s
      case DEDUP -> 3_000;          // 0.15 s
    };
  }

  /** Packets or events written before the savepoint (the writer completes the record it is in). */
  static long split(Workload w) {
    return switch (w) {
      // 2 s: window [0 s, 1 s) is reported before the savepoint, [1 s, 2 s) is open across it
      case HEAVY_HITTERS -> 40_000;
      // 2.5 s: flows idle for 2 s (last seen before 0.4 s) are exported before the savepoint, the others after
      case FLOW_METER -> 50_000;
      // duplicates lie up to 5,000 events back: part 2 repeats events of part 1, known only from the state
      case DEDUP -> 2_000;
    };
  }

  /** The job's directory name, e.g. {@code heavy-hitters}. */
  static String name(Workload w) {
    return w.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The topic prefix of a fixture's savepoint run and of every restore of it: fixed, the source's state names the
   * topics (and the source and sink uids derive from them). {@code v1} used {@code compat-<job>}; later versions
   * name themselves, {@code compat-<version>-<job>}, so that every version restores on one broker.
   */
  static String topicPrefix(String version, Workload w) {
    return "v1".equals(version) ? "compat-" + name(w) : "compat-" + version + "-" + name(w);
  }

  /** Where the writer puts a fixture: the module's test resources (the module directory is failsafe's basedir). */
  static Path sourceDir(String version, Workload w) {
    return Path.of(System.getProperty("basedir", ".")).resolve("src/test/resources/savepoints")
        .resolve(version).resolve(name(w));
  }

  /**
   * The fixture versions the test class path holds: the directory names under {@code savepoints/}, sorted by their
   * number ({@code v2} before {@code v10}).
   */
  static List<String> versionsPresent() throws IOException {
    URL url = SavepointFixtures.class.getResource("/savepoints");
    if (url == null) {
      throw new AssertionError("no savepoints/ folder on the test class path");
    }
    try (Stream<Path> dirs = Files.list(Path.of(url.toURI()))) {
      return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString())
          .sorted(Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder())).toList();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A fixture as the test class path holds it. */
  static Path resourceDir(String version, Workload w) {
    String name = "/savepoints/" + version + "/" + name(w) + "/fixture.properties";
    URL url = SavepointFixtures.class.getResource(name);
    if (url == null) {
      throw new AssertionError("no savepoint fixture " + name + " on the test class path");
    }
    try {
      return Path.of(url.toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code records}, one a line, gzipped (the bytes do not depend on when they were written). */
  static void writeLines(Path file, List<String> records) throws IOException {
    try (Writer out = new OutputStreamWriter(new GZIPOutputStream(Files.newOutputStream(file)),
        StandardCharsets.UTF_8)) {
      for (String r : records) {
        if (r.indexOf('\n') >= 0 || r.indexOf('\r') >= 0) {
          throw new IllegalStateException("a record spans lines, the fixture cannot hold it: " + r);
        }
        out.write(r);
        out.write('\n');
      }
    }
  }

  static List<String> readLines(Path file) throws IOException {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file)),
        StandardCharsets.UTF_8))) {
      List<String> lines = new ArrayList<>();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
      return lines;
    }
  }

  /** Copies the folder {@code from} (files and subfolders) to {@code to}, which must not exist. */
  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** Bytes of the files under {@code dir}. */
  static long size(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
