package io.linerate.benchmarks.pipeline;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Batches → packets, chained to the source: what a user of per-packet code does with a stream of batches (a
 * {@code flatMap}), except that each packet leaves with its OWN event time ({@link Packet#timestamp()}): a
 * {@code flatMap}'s collector stamps every output with the input record's timestamp, the batch's smallest, which
 * would put the packets of a batch that straddles a window boundary in the earlier window. Watermarks pass
 * through unchanged; they are below every packet of the batches still to come (see {@link PacketSource}), so no
 * packet is late. One reused output record, no allocation per packet.
 */
public final class Unbatch extends AbstractStreamOperator<Packet>
        implements OneInputStreamOperator<PacketBatch, Packet> {

    private static final long serialVersionUID = 1L;

    private transient StreamRecord<Packet> out;

    /** The packets of {@code batches}, one record each with its own timestamp. */
    public static DataStream<Packet> packetsOf(DataStream<PacketBatch> batches) {
        return batches.transform("packets of batches", PacketTypeInfo.INSTANCE, new Unbatch());
    }

    @Override
    public void processElement(StreamRecord<PacketBatch> element) {
        if (out == null) {
            out = new StreamRecord<>(null);
        }
        PacketBatch batch = element.getValue();
        for (int i = 0; i < batch.size(); i++) {
            Packet p = batch.get(i);
            output.collect(out.replace(p, p.timestamp()));
        }
    }
}
