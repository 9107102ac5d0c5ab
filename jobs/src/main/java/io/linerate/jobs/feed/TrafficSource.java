package io.linerate.jobs.feed;

/**
 * The records a generator makes, one after the other; deterministic for a given seed. Public so that tests can
 * write the exact same records in parts (savepoints between them) or interleave records of their own.
 */
public interface TrafficSource {

    /** A Kafka record to write: key, value and the packets or events it carries. */
    record Record(byte[] key, byte[] value, int units) {
    }

    /** The next record, or null when the configured count is reached. */
    Record next();

    /** The earliest event time among the records made so far (epoch ms), or {@link FeedSummary#NO_EVENT_TIME}. */
    default long firstEventMillis() {
        return FeedSummary.NO_EVENT_TIME;
    }

    /** The latest event time among the records made so far, or {@link FeedSummary#NO_EVENT_TIME}. */
    default long lastEventMillis() {
        return FeedSummary.NO_EVENT_TIME;
    }

    /**
     * The latest event time of a record made so far as the jobs stamp the record (a packet batch: its earliest
     * packet), or {@link FeedSummary#NO_EVENT_TIME}; by default {@link #lastEventMillis()} (one event per record).
     */
    default long lastRecordEventMillis() {
        return lastEventMillis();
    }
}
