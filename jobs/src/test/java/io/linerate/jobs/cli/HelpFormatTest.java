package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's {@code --help} renders cleanly: picocli formats descriptions with {@code String.format}, so a bare
 * '%' (e.g. "85% of") fails it; picocli then prints a "[picocli WARN] Could not format" line to stderr on every
 * {@code --help} and shows the description raw.
 */
class HelpFormatTest {

  @Test
  void everyCommandsHelpFormatsWithoutAWarning() {
    Map<String, CommandLine> commands = Main.commandLine().getSubcommands();
    assertThat(commands).isNotEmpty();
    PrintStream stderr = System.err;
    for (String name : commands.keySet()) {
      ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cl = Main.commandLine();
      cl.setOut(new PrintWriter(out));
      cl.setErr(new PrintWriter(err));
      int rc;
      System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8)); // picocli's tracer writes here
      try {
        rc = cl.execute(name, "--help");
      } finally {
        System.setErr(stderr);
      }
      String warnings = errBytes.toString(StandardCharsets.UTF_8) + err;
      assertThat(rc).as(name).isZero();
      assertThat(warnings).as(name + " --help").doesNotContain("picocli WARN").isEmpty();
      assertThat(out.toString()).as(name).contains("Usage: linerate " + name);
    }
  }

  /**
   * Help text is wrapped at 80 columns off a terminal: an example command in a footer longer than that is cut, and
   * its rest starts a line at column 0 ("--input-topic packets \" under the "flink run ..." line), which breaks the
   * example's shell continuation. So each line of an example ending in '\' and the line after it are indented.
   */
  @Test
  void examplesInTheHelpKeepTheirLinesWhole() {
    CommandLine main = Main.commandLine();
    for (String name : main.getSubcommands().keySet()) {
      StringWriter out = new StringWriter();
      CommandLine cl = Main.commandLine();
      cl.setOut(new PrintWriter(out));
      assertThat(cl.execute(name, "--help")).as(name).isZero();
      String[] lines = out.toString().split("\\R");
      for (int i = 0; i < lines.length; i++) {
        if (lines[i].endsWith("\\")) {
          assertThat(lines[i]).as(name + " --help, line " + i).startsWith("  ");
          assertThat(i + 1 < lines.length ? lines[i + 1] : "").as(name + " --help, line " + (i + 1)).startsWith("  ");
        }
      }
    }
  }
}
