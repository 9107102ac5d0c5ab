package io.linerate.jobs.feed;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a feeder wrote: acknowledged units (packets or events) and Kafka records, bytes written to Kafka (record
 * values), bytes read from capture files (replay; 0 for generate), packet records skipped by reason (replay), and
 * the time it took.
 *
 * @param units packets or events acknowledged by the broker
 * @param records Kafka records acknowledged (packet batches, or events)
 * @param kafkaBytes bytes of the acknowledged record values
 * @param inputBytes bytes of capture files read (every loop counted)
 * @param skipped capture records not sent, by reason (empty for generate)
 * @param seconds wall-clock duration of the run
 * @param firstEventMillis the earliest event time among the packets or events made for sending (epoch ms), or
 *     {@link #NO_EVENT_TIME} when none was; a run stopped early may count the one record it made and then did
 *     not send
 * @param lastEventMillis the latest such event time, or {@link #NO_EVENT_TIME}
 * @param lastRecordEventMillis the latest event time of a Kafka record as the jobs stamp it (a packet batch: its
 *     earliest packet; an event: its own), or {@link #NO_EVENT_TIME}; the jobs' watermarks stay below it
 */
public record FeedSummary(long units, long records, long kafkaBytes, long inputBytes, Map<String, Long> skipped,
                          double seconds, long firstEventMillis, long lastEventMillis, long lastRecordEventMillis) {

    /** The event times of a run that sent nothing. */
    public static final long NO_EVENT_TIME = Long.MIN_VALUE;

    public FeedSummary {
        skipped = Map.copyOf(skipped);
    }

    /** A summary whose records are stamped with their latest event time (one unit per record, e.g. events). */
    public FeedSummary(long units, long records, long kafkaBytes, long inputBytes, Map<String, Long> skipped,
                       double seconds, long firstEventMillis, long lastEventMillis) {
        this(units, records, kafkaBytes, inputBytes, skipped, seconds, firstEventMillis, lastEventMillis,
                lastEventMillis);
    }

    /** Whether {@link #firstEventMillis()} and {@link #lastEventMillis()} hold event times. */
    public boolean hasEventTimes() {
        return firstEventMillis != NO_EVENT_TIME;
    }

    /** Skipped records, all reasons. */
    public long skippedTotal() {
        return skipped.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The summary as the commands print it, e.g. {@code 100000 packets in 100 batches, 3.1 MiB to Kafka, 1.20 s
     * (83333 packets/s), event time ... to ...} (a replay adds the capture bytes read and its skipped records).
     */
    public String describe(String unit, String recordUnit) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%d %s in %d %s, %s to Kafka", units,
                counted(units, unit), records, counted(records, recordUnit), bytes(kafkaBytes)));
        if (inputBytes > 0) {
            s.append(", ").append(bytes(inputBytes)).append(" of captures read");
        }
        s.append(String.format(Locale.ROOT, ", %.2f s (%.0f %s/s)", seconds, seconds > 0 ? units / seconds : 0.0,
                unit));
        if (hasEventTimes()) {
            s.append(", event time ").append(java.time.Instant.ofEpochMilli(firstEventMillis)).append(" to ")
                    .append(java.time.Instant.ofEpochMilli(lastEventMillis));
        }
        if (!skipped.isEmpty()) {
            s.append("; skipped ").append(skippedTotal()).append(": ").append(skipped.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
        } else if (inputBytes > 0) {
            s.append("; skipped 0");
        }
        return s.toString();
    }

    /** {@code plural} ("packets", "batches") as the count {@code n} takes it: "1 batch", "2 batches". */
    static String counted(long n, String plural) {
        if (n != 1) {
            return plural;
        }
        return plural.endsWith("ches") ? plural.substring(0, plural.length() - 2) : plural.replaceFirst("s$", "");
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        if (n < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        }
        if (n < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
    }
}
