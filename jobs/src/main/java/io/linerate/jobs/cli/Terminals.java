package io.linerate.jobs.cli;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether standard input or standard output is an interactive terminal, which decides between progress redrawn in
 * place and progress lines, and whether {@code replay -} would wait for a capture typed in.
 *
 * <p>{@link System#console()} alone cannot tell: on Java 17 a console exists only when standard input <em>and</em>
 * standard output are both terminals, so {@code zstdcat t.pcap.zst | linerate replay -} on a terminal, or
 * {@code linerate replay - > log} typed at one, looked like "no terminal" to both questions; from Java 22 a console
 * exists even when both are redirected. On Linux the device behind the file descriptor answers exactly
 * ({@code /proc/self/fd/N}); elsewhere the console is the best guess there is.
 */
public final class Terminals {

    private Terminals() {
    }

    /** Whether standard input (file descriptor 0) is a terminal. */
    public static boolean standardInput() {
        return isTerminal(0);
    }

    /** Whether standard output (file descriptor 1) is a terminal. */
    public static boolean standardOutput() {
        return isTerminal(1);
    }

    private static boolean isTerminal(int fd) {
        Boolean device = terminalDevice(Path.of("/proc/self/fd/" + fd));
        return device != null ? device : consoleIsTerminal();
    }

    /**
     * Whether the link {@code fdLink} (a {@code /proc/<pid>/fd/N} entry) points to a terminal device: a
     * pseudo-terminal {@code /dev/pts/N}, a {@code /dev/tty*} or the system console. {@code null} when it cannot be
     * read as a link (no {@code /proc}, not Linux, not permitted): the caller then falls back to the console.
     */
    static Boolean terminalDevice(Path fdLink) {
        try {
            return isTerminalDevice(Files.readSymbolicLink(fdLink).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** Whether a file descriptor's link target names a terminal device (a pipe reads as {@code pipe:[N]}). */
    static boolean isTerminalDevice(String target) {
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    }

    private static boolean consoleIsTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try { // Java 22+: a console exists even when redirected; isTerminal() tells
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java 17-21: a console means both ends are terminals
        }
    }
}
