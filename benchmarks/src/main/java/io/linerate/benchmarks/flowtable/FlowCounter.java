package io.linerate.benchmarks.flowtable;

/**
 * One per-flow table as the benchmark and the memory report call it: an IPv4 packet in (lookup-or-insert of
 * its 5-tuple, then packets++, bytes += length, last = timestamp, flags |= tcpFlags). Each JMH fork creates
 * one implementation, so the call is monomorphic.
 */
public interface FlowCounter {

    String name();

    void update(int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags, int length, long timestamp);

    /** Flows held. */
    int size();

    /** {packets, bytes, first, last, flags} of the flow, or {@code null} if it is not held. */
    long[] stats(int src, int dst, int srcPort, int dstPort, int protocol);

    /** Bytes of the state as the library itself reports them ({@code FlowTable.memoryBytes()}), or −1. */
    long reportedBytes();

    /** Flows the table exported early for want of room (0 for the maps, which grow). */
    long evictions();

    /** A one-line description of the table's internal state after the run (layout, stash, overflows). */
    String describe();

    /** The table object itself, for a heap measurement of its whole object graph. */
    Object unwrap();
}
