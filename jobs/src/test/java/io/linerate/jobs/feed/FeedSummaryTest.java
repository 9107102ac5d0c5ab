package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The feeders' closing summary line reads as English for every count, one included. */
class FeedSummaryTest {

    @Test
    void oneOfAUnitIsSingular() {
        FeedSummary one = new FeedSummary(1, 1, 120, 0, Map.of(), 0.5, FeedSummary.NO_EVENT_TIME,
                FeedSummary.NO_EVENT_TIME);
        assertThat(one.describe("packets", "batches")).startsWith("1 packet in 1 batch, 120 B to Kafka");
        assertThat(one.describe("events", "records")).startsWith("1 event in 1 record, ");
    }

    @Test
    void otherCountsArePlural() {
        FeedSummary many = new FeedSummary(100, 2, 4096, 0, Map.of(), 1.0, FeedSummary.NO_EVENT_TIME,
                FeedSummary.NO_EVENT_TIME);
        assertThat(many.describe("packets", "batches")).startsWith("100 packets in 2 batches, ");
        FeedSummary none = new FeedSummary(0, 0, 0, 0, Map.of(), 0.1, FeedSummary.NO_EVENT_TIME,
                FeedSummary.NO_EVENT_TIME);
        assertThat(none.describe("events", "records")).startsWith("0 events in 0 records, ");
    }
}
