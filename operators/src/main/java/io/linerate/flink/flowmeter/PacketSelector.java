package io.linerate.flink.flowmeter;

import io.linerate.flink.items.ItemSelector;
import java.io.Serializable;
import java.util.Objects;

/**
 * Which flow a packet record belongs to: hands the record's 5-tuple to a {@link FiveTupleSink}, calling exactly
 * one of its methods. Written with the primitive methods it allocates nothing per record:
 * <pre>{@code (packet, sink) -> sink.ipv4(packet.src, packet.dst, packet.srcPort, packet.dstPort, packet.proto)}</pre>
 * A selector that throws {@link IllegalArgumentException}, or calls the sink zero or several times, sends the
 * record to the malformed-records output.
 */
@FunctionalInterface
public interface PacketSelector<T> extends Serializable {

    /** Hands {@code record}'s 5-tuple to {@code sink}, through exactly one of its methods. */
    void select(T record, FiveTupleSink sink);

    /**
     * The record's 5-tuple as a {@link io.linerate.sketches.hash.FiveTuple} object, as for
     * {@link ItemSelector#fiveTuples} (allocates whatever the record's accessor allocates).
     */
    static <T> PacketSelector<T> fiveTuples(ItemSelector.TupleOf<T> tuple) {
        Objects.requireNonNull(tuple, "tuple");
        return (record, sink) -> sink.fiveTuple(tuple.itemOf(record));
    }
}
