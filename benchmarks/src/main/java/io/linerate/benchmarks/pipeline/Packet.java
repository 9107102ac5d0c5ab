package io.linerate.benchmarks.pipeline;

import io.linerate.benchmarks.flowtable.FlowKey;
import io.linerate.sketches.hash.FiveTuple;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One IPv4 packet of the pipeline benchmark's stream: the flow's 5-tuple, TCP flags, length, the link (observation
 * point) it was seen on, and its event time.
 *
 * <p>Flink gets this type's {@link PacketTypeInfo} wherever it extracts a type ({@code @TypeInfo}): a fixed
 * {@value PacketSerializer#LENGTH}-byte layout written field by field, instead of the POJO serializer (which this
 * record would get by default: reflective field access and a null marker per field). Records cross the network on
 * every {@code keyBy}, so the packet serializer is on every job's hot path.
 *
 * @param srcAddress source IPv4 address, network order (10.0.0.1 = 0x0A000001)
 * @param dstAddress destination IPv4 address
 * @param srcPort source port, 0 … 65535 (0 for ICMP)
 * @param dstPort destination port, 0 … 65535
 * @param protocol IP protocol number: 6 TCP, 17 UDP, 1 ICMP
 * @param tcpFlags TCP flags byte (0 for other protocols)
 * @param bytes IP length, 40 … 1500
 * @param link the observation point, 0 … links-1 (a flow is always seen on the same link)
 * @param timestamp event time, epoch milliseconds
 */
@TypeInfo(PacketTypeInfo.Factory.class)
public record Packet(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol, int tcpFlags,
                     int bytes, int link, long timestamp) {

    /** The 5-tuple as the sketches take it (allocates; for {@code ItemSelector.fiveTuples(Packet::fiveTuple)}). */
    public FiveTuple fiveTuple() {
        return FiveTuple.ipv4(srcAddress, dstAddress, srcPort, dstPort, protocol);
    }

    /** The 5-tuple as plain-Flink user code keys by it: a record with value equality (allocates). */
    public FlowKey flowKey() {
        return new FlowKey(srcAddress, dstAddress, srcPort, dstPort, protocol);
    }

    /**
     * The address pair as one long (source in the high 32 bits). In this benchmark's stream every flow has its own
     * address pair, so this identifies the flow without allocating ({@code ItemSelector.longs(Packet::flowId)}).
     */
    public long flowId() {
        return ((long) srcAddress << 32) | (dstAddress & 0xFFFF_FFFFL);
    }
}
