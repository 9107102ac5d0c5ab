package io.linerate.jobs.format;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.TimestampOf;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The packets of ONE observation point carried by one Kafka record and one Flink record (see
 * {@link io.linerate.flink.items.ElementsOf}): Flink's per-record costs are paid once per batch.
 *
 * <p>Held column-wise in primitive arrays (no object per packet) and mutable: fill it with {@link #add} /
 * {@link #addIpv4} / {@link #addIpv6}, empty it with {@link #clear()} to reuse it. {@link #forEach(Consumer)}
 * refills one {@link PacketRecord} owned by the batch for every packet (no allocation); the consumer must not keep
 * it nor call {@code forEach} of the same batch again while it runs.
 *
 * <p>Limits: at most {@value #MAX_PACKETS} packets; all timestamps in [0, {@link PacketRecord#MAX_TIMESTAMP}] and
 * within {@value #MAX_SPAN_MS} ms of
 * each other (the wire format stores them as deltas from the smallest). The batch's event time
 * ({@link #TIMESTAMP}) is its smallest packet timestamp, so a watermark derived from batch timestamps never
 * overtakes a packet of a later batch (with a bounded-out-of-orderness strategy of at least the batch span).
 */
@TypeInfo(PacketBatchTypeInfo.Factory.class)
public final class PacketBatch {

    /** The most packets a batch holds; the decoder rejects a larger count before allocating. */
    public static final int MAX_PACKETS = 1 << 16;
    /** The largest difference between two timestamps of one batch, ms (about 24.8 days). */
    public static final long MAX_SPAN_MS = Integer.MAX_VALUE;

    /** The packets of a batch, for the operators' {@code applyToBatches(.., PacketBatch.ELEMENTS, ..)}. */
    public static final ElementsOf<PacketBatch, PacketRecord> ELEMENTS = PacketBatch::forEach;
    /** The batch's event time: its smallest packet timestamp. */
    public static final TimestampOf<PacketBatch> TIMESTAMP = PacketBatch::minTimestamp;

    private static final int INITIAL_CAPACITY = 16;

    private int observationPoint;
    private int size;
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private long[] timestamps;
    private boolean[] ipv6;
    private long[] srcHigh;
    private long[] srcLow;
    private long[] dstHigh;
    private long[] dstLow;
    /** srcPort << 16 | dstPort. */
    private int[] ports;
    /** protocol | tcpFlags << 8. */
    private short[] protoFlags;
    private int[] lengths;
    private transient PacketRecord cursor;

    public PacketBatch(int observationPoint) {
        this(observationPoint, INITIAL_CAPACITY);
    }

    /** An empty batch with room for {@code capacity} packets before it grows. */
    public PacketBatch(int observationPoint, int capacity) {
        if (capacity < 0 || capacity > MAX_PACKETS) {
            throw new IllegalArgumentException("capacity must be in [0, " + MAX_PACKETS + "], got " + capacity);
        }
        this.observationPoint = observationPoint;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        timestamps = new long[capacity];
        ipv6 = new boolean[capacity];
        srcHigh = new long[capacity];
        srcLow = new long[capacity];
        dstHigh = new long[capacity];
        dstLow = new long[capacity];
        ports = new int[capacity];
        protoFlags = new short[capacity];
        lengths = new int[capacity];
    }

    private void grow(int needed) {
        int capacity = (int) Math.min(MAX_PACKETS, Math.max(needed, Math.max(INITIAL_CAPACITY, 2L * timestamps.length)));
        timestamps = Arrays.copyOf(timestamps, capacity);
        ipv6 = Arrays.copyOf(ipv6, capacity);
        srcHigh = Arrays.copyOf(srcHigh, capacity);
        srcLow = Arrays.copyOf(srcLow, capacity);
        dstHigh = Arrays.copyOf(dstHigh, capacity);
        dstLow = Arrays.copyOf(dstLow, capacity);
        ports = Arrays.copyOf(ports, capacity);
        protoFlags = Arrays.copyOf(protoFlags, capacity);
        lengths = Arrays.copyOf(lengths, capacity);
    }

    /** The observation point every packet of the batch was seen at (the scope key). */
    public int observationPoint() {
        return observationPoint;
    }

    /** Empties the batch (keeping its arrays) and sets its observation point, to refill it. */
    public void clear(int observationPoint) {
        this.observationPoint = observationPoint;
        size = 0;
        minTimestamp = Long.MAX_VALUE;
        maxTimestamp = Long.MIN_VALUE;
    }

    /** Packets in the batch. */
    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The smallest packet timestamp (epoch ms); {@code Long.MAX_VALUE} when empty. */
    public long minTimestamp() {
        return minTimestamp;
    }

    /** The largest packet timestamp (epoch ms); {@code Long.MIN_VALUE} when empty. */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /**
     * Appends a copy of {@code packet}.
     *
     * @throws IllegalArgumentException if a field is out of range ({@link PacketRecord#validate()}), the packet
     *     is of another observation point, the batch is full or the timestamps would span more than
     *     {@link #MAX_SPAN_MS}
     */
    public void add(PacketRecord packet) {
        if (packet.observationPoint != observationPoint) {
            throw new IllegalArgumentException("packet of observation point " + packet.observationPoint
                    + " added to a batch of observation point " + observationPoint);
        }
        String invalid = packet.validate();
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        append(packet.timestamp, packet.ipv6, packet.srcHigh, packet.srcLow, packet.dstHigh, packet.dstLow,
                packet.srcPort, packet.dstPort, packet.protocol, packet.tcpFlags, packet.length);
    }

    /** Appends an IPv4 packet (addresses as 32-bit network-order values); ranges as in {@link #add}. */
    public void addIpv4(long timestamp, int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol,
                        int tcpFlags, int length) {
        add(scratch().setIpv4(timestamp, srcAddress, dstAddress, srcPort, dstPort, protocol, tcpFlags, length,
                observationPoint));
    }

    /** Appends an IPv6 packet (addresses as high and low 64 bits); ranges as in {@link #add}. */
    public void addIpv6(long timestamp, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort,
                        int dstPort, int protocol, int tcpFlags, int length) {
        add(scratch().setIpv6(timestamp, srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol, tcpFlags,
                length, observationPoint));
    }

    /** Appends without range checks: for the decoder, which checked every field already. */
    void append(long timestamp, boolean v6, long sHigh, long sLow, long dHigh, long dLow, int srcPort, int dstPort,
                int protocol, int tcpFlags, int length) {
        if (size == MAX_PACKETS) {
            throw new IllegalArgumentException("a batch holds at most " + MAX_PACKETS + " packets");
        }
        long min = Math.min(minTimestamp, timestamp);
        long max = Math.max(maxTimestamp, timestamp);
        if (max - min > MAX_SPAN_MS) {
            throw new IllegalArgumentException("the timestamps of a batch span at most " + MAX_SPAN_MS
                    + " ms, got " + min + " .. " + max);
        }
        if (size == timestamps.length) {
            grow(size + 1);
        }
        int i = size++;
        minTimestamp = min;
        maxTimestamp = max;
        timestamps[i] = timestamp;
        ipv6[i] = v6;
        srcHigh[i] = sHigh;
        srcLow[i] = sLow;
        dstHigh[i] = dHigh;
        dstLow[i] = dLow;
        ports[i] = srcPort << 16 | dstPort;
        protoFlags[i] = (short) (protocol | tcpFlags << 8);
        lengths[i] = length;
    }

    /** Makes room for {@code capacity} packets (the decoder calls it with a count it has checked). */
    void ensureCapacity(int capacity) {
        if (capacity > timestamps.length) {
            grow(capacity);
        }
    }

    /** Fills {@code into} with packet {@code i} (0 ≤ i &lt; size) and returns it. */
    public PacketRecord get(int i, PacketRecord into) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("packet " + i + " of a batch of " + size);
        }
        int pf = protoFlags[i] & 0xFFFF;
        return into.set(timestamps[i], ipv6[i], srcHigh[i], srcLow[i], dstHigh[i], dstLow[i], ports[i] >>> 16,
                ports[i] & 0xFFFF, pf & 0xFF, pf >>> 8, lengths[i], observationPoint);
    }

    /** Packet {@code i} as a new record. */
    public PacketRecord get(int i) {
        return get(i, new PacketRecord());
    }

    /** Calls {@code each} for every packet in order with the batch's one reused record (no allocation). */
    public void forEach(Consumer<? super PacketRecord> each) {
        forEach(scratch(), each);
    }

    /** Calls {@code each} for every packet in order, refilling {@code reuse} each time. */
    public void forEach(PacketRecord reuse, Consumer<? super PacketRecord> each) {
        for (int i = 0; i < size; i++) {
            each.accept(get(i, reuse));
        }
    }

    private PacketRecord scratch() {
        PacketRecord c = cursor;
        if (c == null) {
            c = cursor = new PacketRecord();
        }
        return c;
    }

    /** A deep copy sized to its packets. */
    public PacketBatch copy() {
        PacketBatch to = new PacketBatch(observationPoint, size);
        copyInto(to);
        return to;
    }

    /** Makes {@code to} equal to this, reusing its arrays where they are large enough. Returns {@code to}. */
    public PacketBatch copyInto(PacketBatch to) {
        if (to == this) {
            return to; // already equal; clearing first would empty it
        }
        to.clear(observationPoint);
        to.ensureCapacity(size);
        System.arraycopy(timestamps, 0, to.timestamps, 0, size);
        System.arraycopy(ipv6, 0, to.ipv6, 0, size);
        System.arraycopy(srcHigh, 0, to.srcHigh, 0, size);
        System.arraycopy(srcLow, 0, to.srcLow, 0, size);
        System.arraycopy(dstHigh, 0, to.dstHigh, 0, size);
        System.arraycopy(dstLow, 0, to.dstLow, 0, size);
        System.arraycopy(ports, 0, to.ports, 0, size);
        System.arraycopy(protoFlags, 0, to.protoFlags, 0, size);
        System.arraycopy(lengths, 0, to.lengths, 0, size);
        to.size = size;
        to.minTimestamp = minTimestamp;
        to.maxTimestamp = maxTimestamp;
        return to;
    }

    // column access for the encoder (package-private, no copies)

    long timestampAt(int i) {
        return timestamps[i];
    }

    boolean ipv6At(int i) {
        return ipv6[i];
    }

    long srcHighAt(int i) {
        return srcHigh[i];
    }

    long srcLowAt(int i) {
        return srcLow[i];
    }

    long dstHighAt(int i) {
        return dstHigh[i];
    }

    long dstLowAt(int i) {
        return dstLow[i];
    }

    int portsAt(int i) {
        return ports[i];
    }

    int protocolAt(int i) {
        return protoFlags[i] & 0xFF;
    }

    int tcpFlagsAt(int i) {
        return (protoFlags[i] & 0xFFFF) >>> 8;
    }

    int lengthAt(int i) {
        return lengths[i];
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PacketBatch b) || b.observationPoint != observationPoint || b.size != size) {
            return false;
        }
        return Arrays.equals(timestamps, 0, size, b.timestamps, 0, size)
                && Arrays.equals(ipv6, 0, size, b.ipv6, 0, size)
                && Arrays.equals(srcHigh, 0, size, b.srcHigh, 0, size)
                && Arrays.equals(srcLow, 0, size, b.srcLow, 0, size)
                && Arrays.equals(dstHigh, 0, size, b.dstHigh, 0, size)
                && Arrays.equals(dstLow, 0, size, b.dstLow, 0, size)
                && Arrays.equals(ports, 0, size, b.ports, 0, size)
                && Arrays.equals(protoFlags, 0, size, b.protoFlags, 0, size)
                && Arrays.equals(lengths, 0, size, b.lengths, 0, size);
    }

    @Override
    public int hashCode() {
        int h = observationPoint * 31 + size;
        for (int i = 0; i < size; i++) {
            h = h * 31 + Long.hashCode(timestamps[i] ^ srcLow[i] * 0x9E3779B97F4A7C15L ^ dstLow[i] ^ srcHigh[i]
                    ^ dstHigh[i]);
            h = h * 31 + (ports[i] ^ protoFlags[i] << 7 ^ lengths[i]);
        }
        return h;
    }

    /** {@code PacketBatch{op=.. n=.. [min..max] first packet ...}} (not every packet). */
    @Override
    public String toString() {
        return "PacketBatch{op=" + observationPoint + " n=" + size
                + (size == 0 ? "" : " [" + minTimestamp + ".." + maxTimestamp + "] first " + get(0)) + "}";
    }
}
