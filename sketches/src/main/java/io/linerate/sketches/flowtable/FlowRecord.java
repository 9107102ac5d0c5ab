package io.linerate.sketches.flowtable;

import io.linerate.sketches.hash.FiveTuple;

/**
 * A view of one flow entry of a {@link FlowTable}: its 5-tuple, counters and timestamps, and why it is
 * being exported. The table reuses one view for every record; it is valid only inside the callback or
 * iteration step that received it. {@link #copy()} keeps one beyond that.
 */
public final class FlowRecord {

    // a copy's values, by these indexes; the user slots follow
    private static final int SRC_HIGH = 0;
    private static final int SRC_LOW = 1;
    private static final int DST_HIGH = 2;
    private static final int DST_LOW = 3;
    private static final int META = 4;
    private static final int TCP_FLAGS = 5;
    private static final int PACKETS = 6;
    private static final int BYTES = 7;
    private static final int FIRST = 8;
    private static final int LAST = 9;
    private static final int USER_SLOTS = 10;

    private final FlowTable table;
    /** The values of a copy; null for the table's view. */
    private final long[] copied;
    private int slot;
    private ExportReason reason;

    FlowRecord(FlowTable table) {
        this.table = table;
        this.copied = null;
    }

    private FlowRecord(long[] copied, ExportReason reason) {
        this.table = null;
        this.copied = copied;
        this.reason = reason;
    }

    /**
     * A record holding this one's values, the user slots and the reason included, that stays valid after the
     * callback or iteration step (and after the table changes or is gone): for exporters that keep or hand on
     * their records. Allocates one small object and array.
     */
    public FlowRecord copy() {
        if (copied != null) {
            return this; // immutable already
        }
        long[] v = new long[USER_SLOTS + table.userSlots()];
        v[SRC_HIGH] = table.srcHigh(slot);
        v[SRC_LOW] = table.srcLow(slot);
        v[DST_HIGH] = table.dstHigh(slot);
        v[DST_LOW] = table.dstLow(slot);
        v[META] = table.meta(slot);
        v[TCP_FLAGS] = table.tcpFlags(slot);
        v[PACKETS] = table.packets(slot);
        v[BYTES] = table.bytes(slot);
        v[FIRST] = table.firstTimestamp(slot);
        v[LAST] = table.lastTimestamp(slot);
        for (int i = USER_SLOTS; i < v.length; i++) {
            v[i] = table.userSlot(slot, i - USER_SLOTS);
        }
        return new FlowRecord(v, reason);
    }

    private long meta() {
        return copied != null ? copied[META] : table.meta(slot);
    }

    FlowRecord at(int slot, ExportReason reason) {
        this.slot = slot;
        this.reason = reason;
        return this;
    }

    /** Why the record is exported, or {@code null} while iterating live flows. */
    public ExportReason reason() {
        return reason;
    }

    public boolean isIpv6() {
        return (meta() & 0xFF) == 6;
    }

    /** IPv4 source address (network order as an int); 0 for IPv6. */
    public int srcAddress() {
        return isIpv6() ? 0 : (int) srcLow();
    }

    /** IPv4 destination address (network order as an int); 0 for IPv6. */
    public int dstAddress() {
        return isIpv6() ? 0 : (int) dstLow();
    }

    public long srcHigh() {
        return copied != null ? copied[SRC_HIGH] : table.srcHigh(slot);
    }

    public long srcLow() {
        return copied != null ? copied[SRC_LOW] : table.srcLow(slot);
    }

    public long dstHigh() {
        return copied != null ? copied[DST_HIGH] : table.dstHigh(slot);
    }

    public long dstLow() {
        return copied != null ? copied[DST_LOW] : table.dstLow(slot);
    }

    public int srcPort() {
        return (int) (meta() >>> 32) & 0xFFFF;
    }

    public int dstPort() {
        return (int) (meta() >>> 16) & 0xFFFF;
    }

    public int protocol() {
        return (int) (meta() >>> 8) & 0xFF;
    }

    /** OR of the TCP flags of the flow's packets. */
    public int tcpFlags() {
        return copied != null ? (int) copied[TCP_FLAGS] : table.tcpFlags(slot);
    }

    public long packets() {
        return copied != null ? copied[PACKETS] : table.packets(slot);
    }

    public long bytes() {
        return copied != null ? copied[BYTES] : table.bytes(slot);
    }

    public long firstTimestamp() {
        return copied != null ? copied[FIRST] : table.firstTimestamp(slot);
    }

    public long lastTimestamp() {
        return copied != null ? copied[LAST] : table.lastTimestamp(slot);
    }

    /** User-defined counter {@code i} (0-based, below the table's {@code userSlots}). */
    public long userSlot(int i) {
        if (copied == null) {
            return table.userSlot(slot, i);
        }
        if (i < 0 || i >= copied.length - USER_SLOTS) {
            throw new IndexOutOfBoundsException("user slot must be in [0, " + (copied.length - USER_SLOTS) + "), got "
                    + i);
        }
        return copied[USER_SLOTS + i];
    }

    /** The 5-tuple as an object (allocates). */
    public FiveTuple key() {
        return isIpv6()
                ? FiveTuple.ipv6(srcHigh(), srcLow(), dstHigh(), dstLow(), srcPort(), dstPort(), protocol())
                : FiveTuple.ipv4(srcAddress(), dstAddress(), srcPort(), dstPort(), protocol());
    }

    @Override
    public String toString() {
        return "FlowRecord[" + key() + ", packets=" + packets() + ", bytes=" + bytes() + ", first="
                + firstTimestamp() + ", last=" + lastTimestamp() + ", tcpFlags=0x" + Integer.toHexString(tcpFlags())
                + ", reason=" + reason + "]";
    }
}
