package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@link Terminals} tells a terminal from a pipe or a file by the device behind a file descriptor. */
class TerminalsTest {

    @TempDir
    Path dir;

    @Test
    void terminalDevicesAreTerminals() {
        assertThat(Terminals.isTerminalDevice("/dev/pts/3")).isTrue();
        assertThat(Terminals.isTerminalDevice("/dev/tty1")).isTrue();
        assertThat(Terminals.isTerminalDevice("/dev/console")).isTrue();
    }

    @Test
    void pipesFilesAndNullAreNot() {
        assertThat(Terminals.isTerminalDevice("pipe:[81234]")).isFalse();
        assertThat(Terminals.isTerminalDevice("/var/log/replay.log")).isFalse();
        assertThat(Terminals.isTerminalDevice("/dev/null")).isFalse();
        assertThat(Terminals.isTerminalDevice("socket:[991]")).isFalse();
    }

    @Test
    void aLinkIsReadToItsTarget() throws IOException {
        Path file = Files.createFile(dir.resolve("replay.log"));
        assertThat(Terminals.terminalDevice(Files.createSymbolicLink(dir.resolve("1"), file))).isFalse();
    }

    @Test
    void whatIsNotALinkIsUnknownSoTheConsoleDecides() throws IOException {
        assertThat(Terminals.terminalDevice(Files.createFile(dir.resolve("plain")))).isNull();
        assertThat(Terminals.terminalDevice(dir.resolve("missing"))).isNull();
    }

    @Test
    void theTestsOwnStandardStreamsAreNotTerminals() {
        // surefire runs the tests in a forked JVM whose standard streams are pipes to Maven
        assertThat(Terminals.standardOutput()).isFalse();
        assertThat(Terminals.standardInput()).isFalse();
    }
}
