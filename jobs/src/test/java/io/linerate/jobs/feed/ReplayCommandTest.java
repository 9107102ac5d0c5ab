package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code replay} refuses before it connects to anything. */
class ReplayCommandTest {

    private static String refused(ReplayCommand command, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).as("exit code of %s", String.join(" ", args)).isEqualTo(2);
        return err.toString();
    }

    @Test
    void standardInputThatIsATerminalIsRefused() {
        ReplayCommand command = new ReplayCommand();
        command.inputIsTerminal = true;
        assertThat(refused(command, "--bootstrap-servers", "127.0.0.1:1", "-"))
                .contains("FILE - reads a capture from standard input, which is a terminal here: pipe one in");
    }

    @Test
    void standardInputIsReadOnceAndNamedOnce() {
        ReplayCommand command = new ReplayCommand();
        command.inputIsTerminal = false;
        assertThat(refused(command, "--loop", "0", "-"))
                .contains("--loop must be 1 when a FILE is - (standard input is read once), got 0");
        assertThat(refused(command, "-", "-"))
                .contains("FILE - (standard input) can be given once, got [-, -]");
    }
}
