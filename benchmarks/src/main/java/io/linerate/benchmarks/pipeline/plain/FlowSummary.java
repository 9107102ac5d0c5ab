package io.linerate.benchmarks.pipeline.plain;

import io.linerate.benchmarks.flowtable.FlowKey;

/** A flow exported after its idle timeout: packets, bytes, OR of TCP flags, first and last packet time (ms). */
public record FlowSummary(FlowKey flow, long packets, long bytes, int tcpFlags, long first, long last) {
}
