package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A demo --window that passes its "> 0s" check but is no whole number of milliseconds (what the heavy-hitters job
 * takes) must fail when parsed, naming the option, exit code 2 (cli.md) — not as an IllegalArgumentException thrown
 * from the job's builder in call(), exit code 1 and a stack trace. Nothing is started either way: the job is built
 * before the broker.
 */
class DemoWindowTest {

  @Test
  void aWindowOfNoWholeMillisecondsFailsNamingTheOption() {
    for (String window : new String[] {"PT0.0005S", "PT1.0005S"}) {
      CommandLine cl = Main.commandLine();
      StringWriter err = new StringWriter();
      cl.setOut(new PrintWriter(new StringWriter()));
      cl.setErr(new PrintWriter(err));
      int rc = cl.execute("demo", "--window", window, "--duration", "1s");
      assertThat(rc).as(window + "\n" + err).isEqualTo(2);
      assertThat(err.toString().lines().findFirst().orElse("")).as(window)
          .startsWith("--window must be a whole number of milliseconds").doesNotContain("Exception");
    }
  }

  /** The refused duration is shown as the option takes it ("0s"), not as Duration.toString() ("PT0S"). */
  @Test
  void aZeroWindowFailsShowingTheDurationAsWritten() {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("demo", "--window", "0s", "--duration", "1s")).as(err.toString()).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse("")).isEqualTo("--window must be > 0s, got 0s");
  }
}
