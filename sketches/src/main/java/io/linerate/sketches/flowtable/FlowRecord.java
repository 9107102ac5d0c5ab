package io.linerate.sketches.flowtable;

import io.linerate.sketches.hash.FiveTuple;

/**
 * A view of one flow entry of a {@link FlowTable}: its 5-tuple, counters and timestamps, and why it is
 * being exported. The table reuses one view for every record; it is valid only inside the callback or
 * iteration step that received it.
 */
public final class FlowRecord {

    private final FlowTable table;
    private int slot;
    private ExportReason reason;

    FlowRecord(FlowTable table) {
        this.table = table;
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
        return table.isIpv6(slot);
    }

    /** IPv4 source address (network order as an int); 0 for IPv6. */
    public int srcAddress() {
        return isIpv6() ? 0 : (int) table.srcLow(slot);
    }

    /** IPv4 destination address (network order as an int); 0 for IPv6. */
    public int dstAddress() {
        return isIpv6() ? 0 : (int) table.dstLow(slot);
    }

    public long srcHigh() {
        return table.srcHigh(slot);
    }

    public long srcLow() {
        return table.srcLow(slot);
    }

    public long dstHigh() {
        return table.dstHigh(slot);
    }

    public long dstLow() {
        return table.dstLow(slot);
    }

    public int srcPort() {
        return (int) (table.meta(slot) >>> 32) & 0xFFFF;
    }

    public int dstPort() {
        return (int) (table.meta(slot) >>> 16) & 0xFFFF;
    }

    public int protocol() {
        return (int) (table.meta(slot) >>> 8) & 0xFF;
    }

    /** OR of the TCP flags of the flow's packets. */
    public int tcpFlags() {
        return table.tcpFlags(slot);
    }

    public long packets() {
        return table.packets(slot);
    }

    public long bytes() {
        return table.bytes(slot);
    }

    public long firstTimestamp() {
        return table.firstTimestamp(slot);
    }

    public long lastTimestamp() {
        return table.lastTimestamp(slot);
    }

    /** User-defined counter {@code i} (0-based, below the table's {@code userSlots}). */
    public long userSlot(int i) {
        return table.userSlot(slot, i);
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
