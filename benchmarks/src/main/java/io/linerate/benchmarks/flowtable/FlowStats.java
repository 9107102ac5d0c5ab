package io.linerate.benchmarks.flowtable;

/**
 * The per-flow value of the map peers, as a user would write it: a mutable object with the same counters
 * as a {@code FlowTable} entry (packets, bytes, first and last timestamp, OR of TCP flags). 48 bytes with
 * compressed class pointers (12-byte header, four longs, one int).
 */
public final class FlowStats {

    long packets;
    long bytes;
    long first;
    long last;
    int flags;

    /** One packet: packets++, bytes += length, first/last timestamp, flags |= tcpFlags. */
    void add(int tcpFlags, int length, long timestamp) {
        if (packets++ == 0) {
            first = timestamp;
        }
        bytes += length;
        last = timestamp;
        flags |= tcpFlags;
    }

    long[] toArray() {
        return new long[] {packets, bytes, first, last, flags};
    }
}
