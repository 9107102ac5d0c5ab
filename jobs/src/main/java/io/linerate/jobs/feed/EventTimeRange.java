package io.linerate.jobs.feed;

/** The earliest and latest event time seen (epoch ms); {@link FeedSummary#NO_EVENT_TIME} for both until one is. */
final class EventTimeRange {

    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;

    void add(long millis) {
        first = Math.min(first, millis);
        last = Math.max(last, millis);
    }

    long first() {
        return first > last ? FeedSummary.NO_EVENT_TIME : first;
    }

    long last() {
        return first > last ? FeedSummary.NO_EVENT_TIME : last;
    }
}
