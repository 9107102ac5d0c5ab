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
    assertThat(line).startsWith("--rate 10000000 is too high for --job dedup: ")
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

  /**
   * {@code --job} takes the job commands' names ({@code flow-meter}, as docs/jobs.md spells them), which --help shows,
   * and still the constant names in any case; a bad value is refused listing the accepted names. Before, only
   * {@code FLOW_METER} / {@code flow_meter} passed and {@code flow-meter} failed.
   */
  @Test
  void jobTakesTheJobCommandsNamesAndTheOldSpellings() {
    String[][] spellings = {
        {"heavy-hitters", "HEAVY_HITTERS"}, {"flow-meter", "FLOW_METER"}, {"dedup", "DEDUP"},
        {"Flow-Meter", "FLOW_METER"}, {"FLOW_METER", "FLOW_METER"}, {"flow_meter", "FLOW_METER"},
        {"heavy_hitters", "HEAVY_HITTERS"}, {"DEDUP", "DEDUP"}};
    for (String[] s : spellings) {
      assertThat(chosenJob("--job", s[0])).as(s[0]).hasToString(s[1].toLowerCase(java.util.Locale.ROOT)
          .replace('_', '-')).isEqualTo(DemoCommand.DemoJob.valueOf(s[1]));
    }
    assertThat(chosenJob()).isEqualTo(DemoCommand.DemoJob.HEAVY_HITTERS);

    StringWriter help = new StringWriter();
    Main.commandLine(true, true).getSubcommands().get("demo").usage(new PrintWriter(help));
    String jobLine = help.toString().replaceAll("\\s+", " ");
    assertThat(jobLine).contains("--job=JOB The job: heavy-hitters").contains("(default: heavy-hitters)");

    CommandLine root = Main.commandLine(true, true);
    StringWriter err = new StringWriter();
    root.setErr(new PrintWriter(err));
    root.setOut(new PrintWriter(new StringWriter()));
    assertThat(root.execute("demo", "--job", "flowmeter")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse("")).isEqualTo("Invalid value for option '--job': "
        + "'flowmeter' is not a job of the demo: use one of heavy-hitters, flow-meter, dedup"
        + " (or HEAVY_HITTERS, FLOW_METER, DEDUP, in any case)");
  }

  /** The job {@code demo ARGS} chooses, parsed as {@code Main} registers the command. */
  private static DemoCommand.DemoJob chosenJob(String... args) {
    CommandLine root = Main.commandLine(true, true);
    String[] all = new String[args.length + 1];
    all[0] = "demo";
    System.arraycopy(args, 0, all, 1, args.length);
    root.parseArgs(all);
    return ((DemoCommand) root.getSubcommands().get("demo").getCommand()).jobChoice();
  }

  /**
   * {@code --heavy-hitter 0} runs the synthetic packets without a heavy hitter (the feeder's description, which the
   * demo prints as its traffic, names none), for both packet jobs; an {@code --inject-after} given with it, a time to
   * start nothing, is refused naming both options. Before, the demo passed its --inject-after to the generator even
   * with nothing to inject, which the generator's builder refuses.
   */
  @Test
  void noHeavyHitterRunsWithoutOneAndRefusesAnInjectionTime() {
    for (String job : new String[] {"heavy-hitters", "flow-meter"}) {
      Run r = demo("--job", job, "--heavy-hitter", "0");
      assertThat(r.exitCode()).as(job + "\n" + r.err()).isZero();
      assertThat(r.started()).isOne();
      DemoCommand parsed = new DemoCommand(d -> null);
      new CommandLine(parsed).parseArgs("--job", job, "--heavy-hitter", "0");
      assertThat(parsed.feeder().description()).startsWith("synthetic packets (").doesNotContain("heavy hitter");
      DemoCommand heavy = new DemoCommand(d -> null);
      new CommandLine(heavy).parseArgs("--job", job);
      assertThat(heavy.feeder().description()).contains("heavy hitter 20.0%");

      r = demo("--job", job, "--heavy-hitter", "0", "--inject-after", "5s");
      assertThat(r.started()).as(job + " started the demo").isZero();
      assertThat(r.exitCode()).as(job + "\n" + r.err()).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).isEqualTo("--inject-after does not apply to --heavy-hitter"
          + " 0: it says when the heavy hitter starts, and there is none; leave it out or set --heavy-hitter above 0");
    }
  }

  /** The messages about options the chosen job does not use name it as --job takes it. */
  @Test
  void refusalsNameTheJobAsTheCommandLineSpellsIt() {
    Run r = demo("--job", "flow-meter", "--window", "5s");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err().lines().findFirst().orElse("")).isEqualTo("--window does not apply to --job flow-meter: it "
        + "sets the heavy-hitters job's reports (--job heavy-hitters); leave it out");
  }
}
