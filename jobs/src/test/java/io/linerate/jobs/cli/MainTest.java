package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The command line: sub-commands registered, {@code --help} lists every option with its default, bad values fail
 * with a message naming the option, and the shared option mixins turn into the Flink configuration they promise.
 */
class MainTest {

  /** A job-like command with both mixins, as the Kafka jobs will declare them. */
  @Command(name = "job", mixinStandardHelpOptions = true)
  static final class JobCommand implements Runnable {
    @Mixin KafkaOptions kafka;
    @Mixin FlinkOptions flink;

    @Override
    public void run() {}
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static CommandLine job() {
    return new CommandLine(new JobCommand());
  }

  @Test
  void demoIsRegisteredWhenTheBrokerAndFlinkAreOnTheClassPath() {
    assertThat(Main.demoAvailable()).isTrue();
    assertThat(Main.commandLine().getSubcommands())
        .containsKeys("demo", "heavy-hitters", "flow-meter", "dedup", "generate", "replay");
    Run help = run(Main.commandLine(), "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("linerate").contains("demo").contains("--version");
  }

  /**
   * The job jar under {@code java -jar} has no Flink runtime: a job command there used to fail with "Unmatched
   * argument at index 0: 'heavy-hitters'" and "Did you mean: linerate generate?". It now says where the job runs.
   */
  @Test
  void aJobCommandWithoutFlinkSaysWhereItRuns() {
    for (String job : List.of("heavy-hitters", "flow-meter", "dedup")) {
      Run r = run(Main.commandLine(false, false), job, "--bootstrap-servers", "kafka:9092", "--bounded");
      assertThat(r.exitCode()).as(job).isEqualTo(2);
      assertThat(r.err()).as(job).doesNotContain("Unmatched").doesNotContain("Did you mean")
          .contains(job + " is a Flink job").contains("flink run linerate-jobs-").contains("-demo.jar " + job);
      Run help = run(Main.commandLine(false, false), job, "--help");
      assertThat(help.exitCode()).as(job + " --help").isEqualTo(2);
      assertThat(help.err()).as(job + " --help").contains(job + " is a Flink job");
    }
    Run help = run(Main.commandLine(false, false), "--help");
    assertThat(help.out()).doesNotContain("heavy-hitters  ")
        .contains("The jobs (heavy-hitters, flow-meter, dedup) run on Flink").contains("  flink run linerate-jobs-")
        .contains("  java -jar linerate-jobs-");
    assertThat(run(Main.commandLine(true, false), "--help").out()).doesNotContain("The jobs (")
        .contains("heavy-hitters  ");
  }

  @Test
  void noCommandIsAnErrorWithTheUsage() {
    Run r = run(Main.commandLine());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("a command is required").contains("Usage: linerate");
  }

  @Test
  void versionComesFromTheManifestOrSaysItIsADevelopmentBuild() {
    Run r = run(Main.commandLine(), "--version");
    assertThat(r.exitCode()).isZero();
    // tests run from target/classes: no manifest; the jar test (JarContentsIT) checks the real version
    assertThat(r.out()).startsWith("linerate (development build)");
  }

  @Test
  void helpListsEveryOptionWithItsDefault() {
    String help = run(job().setUsageHelpWidth(400), "--help").out();
    List<String[]> optionsAndDefaults = List.of(
        new String[] {"--bootstrap-servers", "(default: localhost:9092)"},
        new String[] {"--input-topic", "(default: packets)"},
        new String[] {"--output-topic", "(default: reports)"},
        new String[] {"--dead-letter-topic", "(default: dead-letters)"},
        new String[] {"--parallelism", "(default: 1)"},
        new String[] {"--checkpoint-interval", "(default: 10s)"},
        new String[] {"--transaction-timeout", "(default: 10m)"},
        new String[] {"--state-backend", "(default: heap)"},
        new String[] {"--checkpoint-dir", "(default: none)"});
    String demoHelp = run(Main.commandLine().setUsageHelpWidth(400), "demo", "--help").out();
    // with a wide page each option's description is the one line that starts with the option
    for (String[] od : optionsAndDefaults) {
      assertThat(optionLine(help, od[0])).endsWith(od[1]);
    }
    for (String option : List.of("--job", "--duration", "--rate", "--window", "--top-k", "--heavy-hitter", "--inject-after",
        "--pcap", "--partitions", "--parallelism", "--checkpoint-interval", "--transaction-timeout", "--state-backend",
        "--checkpoint-dir")) {
      assertThat(optionLine(demoHelp, option)).containsPattern("\\(default: [^)]+\\)\\.?$");
    }
    assertThat(demoHelp).contains("heavy-hitters job").contains("top-k table");
  }

  /** The option's entry in the option list: its line and the description lines under it, joined. */
  private static String optionLine(String help, String option) {
    List<String> lines = help.lines().map(String::strip).collect(java.util.stream.Collectors.toList());
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(option + "=") || lines.get(i).startsWith(option + " ")) {
        StringBuilder entry = new StringBuilder(lines.get(i));
        for (int j = i + 1; j < lines.size() && !lines.get(j).startsWith("-") && !lines.get(j).isEmpty(); j++) {
          entry.append(' ').append(lines.get(j));
        }
        return entry.toString();
      }
    }
    throw new AssertionError(option + " not in the help:\n" + help);
  }

  @Test
  void defaultsGiveTheDocumentedFlinkConfiguration() {
    JobCommand cmd = new JobCommand();
    new CommandLine(cmd).parseArgs();
    Configuration conf = cmd.flink.configuration();
    assertThat(conf.get(CoreOptions.DEFAULT_PARALLELISM)).isEqualTo(1);
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)).isEqualTo(Duration.ofSeconds(10));
    // half of the 10 min transaction timeout less a tenth of it: a transaction lives through two checkpoints when
    // the second waits for a slow first one, and no checkpoint commits a transaction the broker aborted
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofSeconds(270));
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE)).isEqualTo(CheckpointingMode.EXACTLY_ONCE);
    assertThat(conf.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("hashmap");
    // no storage and no directory without --checkpoint-dir: the cluster's hold (JobEnvironment names a directory
    // when none does, never the JobManager's memory)
    assertThat(conf.getOptional(CheckpointingOptions.CHECKPOINT_STORAGE)).isEmpty();
    assertThat(conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEmpty();
    assertThat(cmd.kafka.bootstrapServers()).isEqualTo("localhost:9092");
    assertThat(cmd.kafka.inputTopic()).isEqualTo("packets");
  }

  @Test
  void givenValuesReachTheConfiguration() {
    JobCommand cmd = new JobCommand();
    new CommandLine(cmd).parseArgs("--parallelism", "4", "--checkpoint-interval", "500ms", "--state-backend",
        "RocksDB", "--checkpoint-dir", "file:///tmp/cp", "--bootstrap-servers", "a:1,b:2", "--input-topic", "in.x");
    Configuration conf = cmd.flink.configuration();
    assertThat(conf.get(CoreOptions.DEFAULT_PARALLELISM)).isEqualTo(4);
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)).isEqualTo(Duration.ofMillis(500));
    assertThat(conf.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
    assertThat(conf.get(CheckpointingOptions.CHECKPOINT_STORAGE)).isEqualTo("filesystem");
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEqualTo("file:///tmp/cp");
    assertThat(cmd.kafka.bootstrapServers()).isEqualTo("a:1,b:2");
    assertThat(cmd.kafka.inputTopic()).isEqualTo("in.x");
  }

  @Test
  void badValuesFailWithTheOptionNamed() {
    String[][] cases = {
        {"--parallelism", "0"}, {"--parallelism", "two"}, {"--parallelism", "32769"},
        {"--checkpoint-interval", "5ms"}, {"--checkpoint-interval", "10"}, {"--checkpoint-interval", "soon"},
        {"--state-backend", "memory"},
        {"--checkpoint-dir", "relative/dir"},
        {"--bootstrap-servers", "localhost"}, {"--bootstrap-servers", " "}, {"--bootstrap-servers", "localhost:0"},
        {"--bootstrap-servers", "a:1,b:99999"}, {"--bootstrap-servers", "a:1,b:123456789012"},
        {"--bootstrap-servers", "a:1,"},
        {"--input-topic", "bad topic"}, {"--output-topic", ".."}, {"--dead-letter-topic", "é"},
    };
    for (String[] c : cases) {
      Run r = run(job(), c);
      assertThat(r.exitCode()).as(String.join(" ", c)).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).as(String.join(" ", c)).contains(c[0]).contains(c[1].trim());
    }
    String[][] demoCases = {{"--duration", "-1s"}, {"--rate", "0"}, {"--partitions", "65"}, {"--duration", "x"}};
    for (String[] c : demoCases) {
      Run r = run(Main.commandLine(), "demo", c[0], c[1]);
      assertThat(r.exitCode()).as(String.join(" ", c)).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).as(String.join(" ", c)).contains(c[0]);
    }
  }

  /**
   * A checkpoint interval at or above the Kafka sinks' transaction timeout fails as a parameter error naming both
   * options, in every command that runs a job, before anything is defined or started (it used to pass, then the
   * sink's own check threw from the job definition: exit code 1 and a stack trace; the demo had already started its
   * broker and cluster). The timeout has its own option and limits.
   */
  @Test
  void checkpointIntervalMustBeShorterThanTheTransactionTimeout() {
    for (String command : List.of("heavy-hitters", "flow-meter", "dedup", "demo")) {
      for (String[] args : List.of(new String[] {"--checkpoint-interval", "10m"},
          new String[] {"--checkpoint-interval", "1h"},
          new String[] {"--transaction-timeout", "1m", "--checkpoint-interval", "90s"},
          new String[] {"--transaction-timeout", "1m", "--checkpoint-interval", "41s"})) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        Run r = run(Main.commandLine(), all);
        assertThat(r.exitCode()).as(String.join(" ", all) + "\n" + r.err()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElse("")).as(String.join(" ", all))
            .startsWith("--checkpoint-interval must be shorter than --transaction-timeout (")
            .doesNotContain("Exception");
      }
    }
    String[][] badTimeouts = {{"--transaction-timeout", "16m"}, {"--transaction-timeout", "0s"},
        {"--transaction-timeout", "PT-1S"}};
    for (String[] c : badTimeouts) {
      Run r = run(job(), c);
      assertThat(r.exitCode()).as(String.join(" ", c)).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).as(String.join(" ", c))
          .contains("--transaction-timeout must be in (0s, 15m]");
    }
    JobCommand ok = new JobCommand();
    new CommandLine(ok).parseArgs("--checkpoint-interval", "12m", "--transaction-timeout", "15m");
    assertThat(ok.flink.configuration().get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
        .isEqualTo(Duration.ofMinutes(12));
    assertThat(ok.flink.configuration().get(CheckpointingOptions.CHECKPOINTING_TIMEOUT))
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(ok.flink.transactionTimeout()).isEqualTo(Duration.ofMinutes(15));
  }

  /**
   * --incremental-checkpoints sets Flink's execution.checkpointing.incremental (RocksDB uploads each SST file once);
   * without it the jobs leave the setting to the cluster. The heap backend takes full checkpoints only, so with it the
   * option is refused by every command that runs a job, naming both options, before anything is defined or started.
   */
  @Test
  void incrementalCheckpointsNeedRocksDbAndReachTheConfiguration() {
    JobCommand on = new JobCommand();
    new CommandLine(on).parseArgs("--state-backend", "rocksdb", "--incremental-checkpoints");
    assertThat(on.flink.incrementalCheckpoints()).isTrue();
    assertThat(on.flink.configuration().get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    assertThat(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
        .getExecutionEnvironment(on.flink.configuration()).getConfiguration()
        .get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    JobCommand off = new JobCommand();
    new CommandLine(off).parseArgs("--state-backend", "rocksdb");
    assertThat(off.flink.incrementalCheckpoints()).isFalse();
    assertThat(off.flink.configuration().contains(CheckpointingOptions.INCREMENTAL_CHECKPOINTS))
        .as("left to the cluster").isFalse();
    for (String command : List.of("heavy-hitters", "flow-meter", "dedup", "demo")) {
      for (String[] args : List.of(new String[] {command, "--incremental-checkpoints"},
          new String[] {command, "--state-backend", "heap", "--incremental-checkpoints"})) {
        Run r = run(Main.commandLine(), args);
        assertThat(r.exitCode()).as(String.join(" ", args) + "\n" + r.err()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElse("")).as(String.join(" ", args))
            .startsWith("--incremental-checkpoints needs --state-backend rocksdb")
            .contains("--state-backend heap").doesNotContain("Exception");
      }
    }
  }

  /** --pcap takes readable regular files only; a directory or a missing file fails when parsed, naming the option. */
  @Test
  void pcapMustBeAReadableFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path capture = java.nio.file.Files.write(dir.resolve("x.pcap"), new byte[] {1});
    new CommandLine(new DemoCommand()).parseArgs("--pcap", capture.toString());
    for (String[] c : new String[][] {{dir.toString(), "(a directory)"},
        {dir.resolve("missing.pcap").toString(), "(no such file)"}}) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(
          () -> new CommandLine(new DemoCommand()).parseArgs("--pcap", c[0])))
          .as(c[0]).isInstanceOf(CommandLine.ParameterException.class)
          .hasMessage("--pcap must be a readable capture file, got " + c[0] + " " + c[1]);
    }
  }

  @Test
  void durationsReadAndPrintTheSameWay() {
    assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationConverter.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(DurationConverter.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationConverter.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(DurationConverter.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    for (String s : List.of("500ms", "10s", "5m", "2h", "1d", "90s")) {
      assertThat(DurationConverter.format(DurationConverter.parse(s))).isEqualTo(s);
    }
    // beyond 64-bit milliseconds: refused when read, not an overflow once the job runs
    assertThat(DurationConverter.parse("106751991167d")).isEqualTo(Duration.ofDays(106_751_991_167L));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DurationConverter.parse("200000000000d"))
        .isInstanceOf(picocli.CommandLine.TypeConversionException.class)
        .hasMessage("'200000000000d' is longer than 64-bit milliseconds can hold (9223372036854775807 ms, about 292"
            + " million years)");
    Run r = run(Main.commandLine(), "heavy-hitters", "--out-of-orderness", "200000000000d");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().lines().findFirst().orElse("")).contains("--out-of-orderness")
        .contains("longer than 64-bit milliseconds");
  }

  /** The README's Maven command passes --duration, then -Ddemo.args: a --duration given there wins. */
  @Test
  void aSecondDurationForTheDemoWins() {
    CommandLine cl = Main.commandLine();
    CommandLine.ParseResult parsed = cl.parseArgs("demo", "--duration", "60s", "--duration", "5s");
    assertThat(parsed.subcommand().matchedOptionValue("--duration", Duration.ZERO)).isEqualTo(Duration.ofSeconds(5));
    // and --job takes any case, as generate's --format does
    Main.commandLine().parseArgs("demo", "--job", "dedup");
  }

  /** A bad value of a command: the message and where the options are, not the command's whole usage. */
  @Test
  void aBadOptionValueGetsItsMessageAndAHintNotTheWholeUsage() {
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("generate", "--skew", "11")).isEqualTo(2);
    assertThat(err.toString()).contains("--skew must be in [0, 10], got 11.0")
        .contains("Try 'linerate generate --help' for its options.").doesNotContain("Usage:");
  }
}
