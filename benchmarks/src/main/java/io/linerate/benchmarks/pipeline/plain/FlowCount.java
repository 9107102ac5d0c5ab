package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;

/** Packets of one flow in the window ending at {@code windowEnd} (exclusive, epoch ms). */
public record FlowCount(FlowKey flow, long windowEnd, long count) {
}
