package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.linerate.jobs.local.Demo;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What {@code demo} checks before it starts anything (the broker, the cluster): the demo is built but not run, so a
 * check that is missing shows as a run (exit code 0) instead of a parameter error (exit code 2) naming the option.
 */
class DemoOptionsTest {

  private record Run(int exitCode, String err, int started) {}

  private static Run demo(String... args) {
    AtomicInteger started = new AtomicInteger();
    CommandLine demo = new CommandLine(new DemoCommand(d -> {
      started.incrementAndGet();
      return new Demo.Result(1, JobStatus.RUNNING, true, false, null);
    })).setOverwrittenOptionsAllowed(true).setCaseInsensitiveEnumValuesAllowed(true);
    StringWriter err = new StringWriter();
    demo.setOut(new PrintWriter(new StringWriter()));
    demo.setErr(new PrintWriter(err));
    int rc = demo.execute(args);
    return new Run(rc, err.toString(), started.get());
  }

  @TempDir
  static Path dir;

  /**
   * An option the chosen job or traffic does not use (e.g. --window with --job FLOW_METER) is refused, naming the
   * option and the job, instead of being accepted and ignored.
   */
  @Test
  void optionsTheChosenJobDoesNotUseAreRefusedNamingThem() throws Exception {
    String capture = Files.write(dir.resolve("c.pcap"), new byte[] {1}).toString();
    List<String[]> refused = List.of(
        new String[] {"--window", "--job", "FLOW_METER", "--window", "5s"},
        new String[] {"--top-k", "--job", "FLOW_METER", "--top-k", "5"},
        new String[] {"--window", "--job", "DEDUP", "--window", "5s"},
        new String[] {"--top-k", "--job", "dedup", "--top-k", "3"},
        new String[] {"--heavy-hitter", "--job", "DEDUP", "--heavy-hitter", "0.1"},
        new String[] {"--inject-after", "--job", "DEDUP", "--inject-after", "5s"},
        new String[] {"--heavy-hitter", "--pcap", capture, "--heavy-hitter", "0.3"},
        new String[] {"--inject-after", "--job", "FLOW_METER", "--pcap", capture, "--inject-after", "1s"});
    for (String[] c : refused) {
      String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
      Run r = demo(args);
      String line = r.err().lines().findFirst().orElse("");
      assertThat(r.started()).as(String.join(" ", args) + " started the demo").isZero();
      assertThat(r.exitCode()).as(String.join(" ", args) + "\n" + r.err()).isEqualTo(2);
      assertThat(line).as(String.join(" ", args)).startsWith(c[0] + " does not apply").doesNotContain("Exception");
    }
    // what the job and the traffic do use still runs
    List<String[]> accepted = new ArrayList<>(List.of(
        new String[] {},
        new String[] {"--window", "5s", "--top-k", "3", "--heavy-hitter", "0.1", "--inject-after", "5s"},
        new String[] {"--job", "FLOW_METER", "--heavy-hitter", "0.3", "--inject-after", "5s"},
        new String[] {"--job", "DEDUP", "--rate", "1000"},
        new String[] {"--pcap", capture, "--window", "2s", "--top-k", "5"}));
    for (String[] args : accepted) {
      Run r = demo(args);
      assertThat(r.exitCode()).as(String.join(" ", args) + "\n" + r.err()).isZero();
      assertThat(r.started()).isOne();
    }
  }

  /**
   * The dedup demo sizes a Bloom filter ring per tenant for its share of --rate over a 1-minute horizon: at
   * --rate 10000000 that is gigabytes of heap. It must be refused before anything starts, with the memory, the
   * limit and the options named, not fail (out of memory) once the broker and the cluster run.
   */
  @Test
  void theDedupDemoAtARateWhoseFiltersDoNotFitIsRefusedBeforeStarting() {
    Run r = demo("--job", "DEDUP", "--rate", "10000000");
    String line = r.err().lines().findFirst().orElse("");
    System.out.println(line);
    assertThat(r.started()).as("started the demo:\n" + r.err()).isZero();
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(line).startsWith("--rate 10000000 is too high for --job DEDUP: ")
        .containsPattern("need [\\d,]+ MiB of dedup filters")
        .containsPattern("above the limit of [\\d,]+ MiB")
        .contains("-Xmx")
        .doesNotContain("Exception");
    // the largest rate the message suggests is accepted, one above it refused
    long max = Long.parseLong(line.replaceAll(".*--rate (\\d+) or less.*", "$1"));
    assertThat(max).isBetween(1_000L, 9_999_999L);
    assertThat(demo("--job", "DEDUP", "--rate", Long.toString(max)).exitCode()).isZero();
    assertThat(demo("--job", "DEDUP", "--rate", Long.toString(max + 1)).exitCode()).isEqualTo(2);
    // the other jobs keep no per-key filter sized by the rate
    assertThat(demo("--rate", "10000000").exitCode()).isZero();
  }
}
