package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;

/** The flow of rank {@code rank} (1 = most packets) in the window ending at {@code windowEnd}. */
public record RankedFlow(long windowEnd, int rank, FlowKey flow, long count) {
}
