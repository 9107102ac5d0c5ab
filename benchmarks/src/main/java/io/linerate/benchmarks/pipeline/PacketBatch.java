package io.linerate.benchmarks.pipeline;

import io.linerate.flink.items.ElementsOf;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A batch of packets seen on ONE link: what one record of the next issue's Kafka packet format carries, and what
 * the benchmark's source emits. Flink's per-record costs (serialization across {@code keyBy}, key extraction,
 * state access, timestamps) are paid once per batch.
 *
 * <p>Immutable (no accessor hands out the array), so Flink never copies it. Its event time, {@link #timestamp()},
 * is the smallest timestamp of its packets, so that a watermark derived from batch timestamps never overtakes a
 * packet of a later batch. Its serializer is {@link PacketBatchSerializer} ({@code @TypeInfo}).
 */
@TypeInfo(PacketBatchTypeInfo.Factory.class)
public final class PacketBatch {

    /** The most packets a batch holds (the serialized count is validated against it). */
    public static final int MAX_SIZE = 1 << 16;

    /** The packets of a batch, for the operators' {@code applyToBatches(.., PacketBatch.PACKETS, ..)}. */
    public static final ElementsOf<PacketBatch, Packet> PACKETS = PacketBatch::forEach;

    private final int link;
    private final Packet[] packets;
    private final int size;
    private final long timestamp;

    /**
     * The first {@code size} packets of {@code packets}, all seen on {@code link}; takes the array over (the
     * caller must not change it afterwards).
     *
     * @throws IllegalArgumentException if {@code size} is not in [1, min(packets.length, {@value #MAX_SIZE})], a
     *     packet is on another link, or the batch spans more than {@link Integer#MAX_VALUE} ms of event time
     *     (the serializer writes timestamps as int offsets from the smallest)
     */
    public PacketBatch(int link, Packet[] packets, int size) {
        if (size < 1 || size > packets.length || size > MAX_SIZE) {
            throw new IllegalArgumentException("a batch holds 1 to min(array length " + packets.length + ", "
                    + MAX_SIZE + ") packets, got " + size);
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            Packet p = packets[i];
            if (p.link() != link) {
                throw new IllegalArgumentException("packet " + i + " is on link " + p.link() + ", the batch on "
                        + link);
            }
            min = Math.min(min, p.timestamp());
            max = Math.max(max, p.timestamp());
        }
        if (max - min > Integer.MAX_VALUE || max - min < 0) {
            throw new IllegalArgumentException("a batch spans at most " + Integer.MAX_VALUE
                    + " ms of event time, got " + min + " … " + max);
        }
        this.link = link;
        this.packets = packets;
        this.size = size;
        this.timestamp = min;
    }

    /** The link (observation point) every packet of the batch was seen on. */
    public int link() {
        return link;
    }

    /** Packets in the batch, ≥ 1. */
    public int size() {
        return size;
    }

    /** Packet {@code i}, 0 ≤ i &lt; {@link #size()}. */
    public Packet get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException("packet " + i + " of a batch of " + size);
        }
        return packets[i];
    }

    /** The event time of the batch record: its smallest packet timestamp, epoch ms. */
    public long timestamp() {
        return timestamp;
    }

    /** Calls {@code each} for every packet, in order, without allocating. */
    public void forEach(Consumer<? super Packet> each) {
        for (int i = 0; i < size; i++) {
            each.accept(packets[i]);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketBatch b && b.link == link && b.size == size
                && Arrays.equals(packets, 0, size, b.packets, 0, size);
    }

    @Override
    public int hashCode() {
        int h = link;
        for (int i = 0; i < size; i++) {
            h = 31 * h + packets[i].hashCode();
        }
        return h;
    }

    @Override
    public String toString() {
        return "PacketBatch[link " + link + ", " + size + " packets from " + timestamp + " ms]";
    }
}
