package io.linerate.jobs.feed;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

import io.linerate.jobs.cli.KafkaOptions;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Registers {@code generate} and {@code replay} on the {@code linerate} command line. */
public final class FeedCommands {

    private FeedCommands() {
    }

    /**
     * Adds the feeders' sub-commands to {@code main}. They write to the {@code --input-topic} of the shared Kafka
     * options (the topic the jobs read); the mixin's output and dead-letter topic options, {@code --consumer-property}
     * and {@code --max-dead-letter-bytes} mean nothing to a feeder and are removed from them, and its client
     * properties are checked as the feeder's producer takes them ({@link KafkaOptions#forFeeder()}).
     */
    public static void register(CommandLine main) {
        for (Object command : new Object[] {new GenerateCommand(), new ReplayCommand()}) {
            CommandLine cl = new CommandLine(command);
            CommandSpec spec = cl.getCommandSpec();
            ((KafkaOptions) spec.mixins().get("kafka").userObject()).forFeeder();
            for (String unused : new String[] {"--output-topic", "--dead-letter-topic", "--consumer-property",
                "--max-dead-letter-bytes"}) {
                CommandLine.Model.OptionSpec option = spec.findOption(unused);
                if (option != null) {
                    spec.remove(option);
                }
            }
            main.addSubcommand(spec.name(), cl);
        }
    }

    /** An instant option: {@code now}, epoch milliseconds, or ISO-8601 ({@code 2026-01-01T00:00:00Z}). */
    static long instant(CommandSpec spec, String option, String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("now")) {
            return System.currentTimeMillis();
        }
        try {
            if (v.chars().allMatch(Character::isDigit) && !v.isEmpty()) {
                return Long.parseLong(v);
            }
            return Instant.parse(v).toEpochMilli();
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new ParameterException(spec.commandLine(), option
                    + " must be now, epoch milliseconds or an ISO-8601 instant (2026-01-01T00:00:00Z), got '" + value
                    + "'");
        }
    }

    /** The enum constant named by {@code value}, case-insensitive, '-' for '_'. */
    static <E extends Enum<E>> E choice(CommandSpec spec, String option, String value, Class<E> type) {
        String name = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            allowed.append(allowed.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new ParameterException(spec.commandLine(), option + " must be one of " + allowed + ", got '" + value + "'");
    }
}
