package io.linerate.jobs.feed;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;

import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.kafka.ProducerLimits;
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

    /** Bytes a batch's key may add to its record: the observation point in decimal (at most 11) and its length. */
    static final int MAX_KEY_BYTES = 16;

    /**
     * Refuses a {@code --batch-size} whose largest batch ({@link PacketBatchCodec#MAX_PACKET_BYTES} per packet) could
     * be a record larger than the feeder's producer takes ({@link ProducerLimits#maxValueBytes(Map)}: the smaller of
     * {@code max.request.size} and {@code buffer.memory}, as {@code --producer-property} sets them): the producer would
     * refuse it mid-run. With Kafka's defaults every batch size up to {@link SyntheticTraffic#MAX_BATCH_SIZE} fits.
     *
     * @throws ParameterException naming {@code --batch-size}, the limit and the largest size that fits
     */
    static void requireBatchFits(CommandSpec spec, int batchSize, Map<String, String> producerProperties) {
        if (batchSize < 1 || batchSize > SyntheticTraffic.MAX_BATCH_SIZE) {
            return; // out of range: the builders say so, naming the range
        }
        int limit;
        try {
            limit = ProducerLimits.maxValueBytes(producerProperties); // no Flink: the feeders run from the job jar
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--producer-property/--kafka-property: "
                    + e.getMessage(), e);
        }
        long largest = PacketBatchCodec.HEADER_BYTES + (long) batchSize * PacketBatchCodec.MAX_PACKET_BYTES
                + MAX_KEY_BYTES;
        if (largest > limit) {
            long fits = Math.max(0, (limit - MAX_KEY_BYTES - PacketBatchCodec.HEADER_BYTES)
                    / PacketBatchCodec.MAX_PACKET_BYTES);
            throw new ParameterException(spec.commandLine(), "--batch-size " + batchSize + ": a batch of that many "
                    + "packets may be a record of " + largest + " bytes, more than the producer takes (" + limit
                    + " bytes: the smaller of max.request.size and buffer.memory, less a record's overhead); lower "
                    + "--batch-size to at most " + fits + " or raise max.request.size with --producer-property");
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
