package io.linerate.benchmarks.flowtable;

/**
 * An IPv4 5-tuple as a user of {@code HashMap} would write it: an immutable record of five ints, with the
 * record's generated {@code equals} and {@code hashCode} (h = 31·h + component, over the components in
 * order). The benchmark allocates one per packet for the lookup, as such user code does.
 */
public record FlowKey(int src, int dst, int srcPort, int dstPort, int protocol) {
}
