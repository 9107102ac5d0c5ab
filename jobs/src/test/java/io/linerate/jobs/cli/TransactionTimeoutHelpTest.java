package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * --transaction-timeout's help said "at least 30s and --checkpoint-interval plus 20s" (so did jobs.md for
 * --checkpoint-interval, "at least 20 s shorter"), but validate() wants the interval shorter than the timeout by
 * 10 s plus a margin of max(10 s, a tenth of the timeout): 5m with 5m20s, within what the help promised, is refused.
 */
class TransactionTimeoutHelpTest {

  @Command(name = "job", mixinStandardHelpOptions = true)
  static final class JobCommand implements Runnable {
    @Mixin KafkaOptions kafka;
    @Mixin FlinkOptions flink;

    @Override
    public void run() {
      flink.validate();
    }
  }

  private static int run(StringWriter out, StringWriter err, String... args) {
    CommandLine cl = new CommandLine(new JobCommand()).setUsageHelpWidth(400);
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void helpStatesTheRuleValidateApplies() {
    StringWriter err = new StringWriter();
    // interval + 20 s (5m20s): what the help called enough
    assertThat(run(new StringWriter(), err, "--checkpoint-interval", "5m", "--transaction-timeout", "320s"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--checkpoint-interval must be shorter than --transaction-timeout");
    // the smallest accepted: t - max(10 s, t/10) - 10 s >= 5m, t = 5m44.445s
    assertThat(run(new StringWriter(), new StringWriter(), "--checkpoint-interval", "5m", "--transaction-timeout",
        "344445ms")).isZero();
    assertThat(run(new StringWriter(), new StringWriter(), "--checkpoint-interval", "5m", "--transaction-timeout",
        "344444ms")).isEqualTo(2);

    StringWriter help = new StringWriter();
    run(help, new StringWriter(), "--help");
    // the option's entry: its line and the description lines under it
    java.util.List<String> lines = help.toString().lines().map(String::strip).toList();
    int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("--transaction-timeout")).findFirst().orElseThrow());
    StringBuilder entry = new StringBuilder(lines.get(at));
    for (int j = at + 1; j < lines.size() && !lines.get(j).startsWith("-") && !lines.get(j).isEmpty(); j++) {
      entry.append(' ').append(lines.get(j));
    }
    String line = entry.toString();
    assertThat(line).doesNotContain("--checkpoint-interval plus 20s")
        .contains("a tenth of the timeout");
  }
}
