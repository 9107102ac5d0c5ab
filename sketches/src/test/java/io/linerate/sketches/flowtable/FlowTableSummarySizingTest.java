package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Summary sizing over sub-tables of a single bucket (review finding). */
class FlowTableSummarySizingTest {

    /**
     * With a run of one-bucket sub-tables the expected-items estimate of the deeper filters went below 0 and then,
     * through pow(0, negative) = ∞, to Long.MAX_VALUE: a valid layout with summary(true) was refused.
     */
    @Test
    void aSummaryOverOneBucketSubTablesIsBuiltAndRestored() {
        FlowTable t = FlowTable.builder().capacity(3).scheme(InsertionScheme.SECOND_CHANCE).buckets(2, 1, 2, 1, 1, 1)
                .summary(true).build();
        t.updateIpv4(1, 2, 3, 4, 6, 0, 100, 1);
        assertThat(t.hasSummary()).isTrue();
        byte[] image = t.toByteArray();
        assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
    }
}
