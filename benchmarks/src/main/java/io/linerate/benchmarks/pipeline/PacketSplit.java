package io.linerate.benchmarks.pipeline;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * One subtask's share of the stream: packets {@code first}, {@code first + stride}, {@code first + 2·stride}, …
 * ({@code count} of them), from position {@code position} on, the first {@code batchesDone} batches of the round
 * starting there already emitted (see {@link PacketBatchIterator}). Interleaved rather than contiguous, so that
 * every subtask's event time advances at the same pace and the watermark (their minimum) does not hold windows
 * back.
 */
public record PacketSplit(String runId, Workload workload, int first, int stride, long count, long position,
                          int batchesDone)
        implements IteratorSourceSplit<PacketBatch, PacketBatchIterator> {

    /** The {@code n} splits of a workload, one per source subtask. */
    static List<PacketSplit> of(String runId, Workload workload, int n) {
        List<PacketSplit> splits = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            long count = workload.packets() > j ? (workload.packets() - j + n - 1) / n : 0;
            splits.add(new PacketSplit(runId, workload, j, n, count, 0, 0));
        }
        return splits;
    }

    @Override
    public String splitId() {
        return Integer.toString(first);
    }

    @Override
    public PacketBatchIterator getIterator() {
        return new PacketBatchIterator(this);
    }

    @Override
    public PacketSplit getUpdatedSplitForIterator(PacketBatchIterator iterator) {
        return new PacketSplit(runId, workload, first, stride, count, iterator.roundStart(),
                iterator.batchesDone());
    }

    static void write(PacketSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.runId);
        Workload w = split.workload;
        out.writeLong(w.packets());
        out.writeInt(w.flows());
        out.writeDouble(w.skew());
        out.writeLong(w.seed());
        out.writeLong(w.packetsPerSecond());
        out.writeInt(w.links());
        out.writeInt(w.batch());
        out.writeInt(split.first);
        out.writeInt(split.stride);
        out.writeLong(split.count);
        out.writeLong(split.position);
        out.writeInt(split.batchesDone);
    }

    static PacketSplit read(DataInputStream in) throws IOException {
        String runId = in.readUTF();
        Workload w = new Workload(in.readLong(), in.readInt(), in.readDouble(), in.readLong(), in.readLong(),
                in.readInt(), in.readInt());
        return new PacketSplit(runId, w, in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readInt());
    }

    /** Checkpoints of a split. */
    static final class Serializer implements SimpleVersionedSerializer<PacketSplit> {
        @Override
        public int getVersion() {
            return 2;
        }

        @Override
        public byte[] serialize(PacketSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public PacketSplit deserialize(int version, byte[] serialized) throws IOException {
            return read(new DataInputStream(new ByteArrayInputStream(serialized)));
        }
    }

    /** Checkpoints of the enumerator: the splits not yet assigned. */
    static final class EnumeratorSerializer implements SimpleVersionedSerializer<Collection<PacketSplit>> {
        @Override
        public int getVersion() {
            return 2;
        }

        @Override
        public byte[] serialize(Collection<PacketSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (PacketSplit split : splits) {
                    write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public Collection<PacketSplit> deserialize(int version, byte[] serialized) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
            int n = in.readInt();
            List<PacketSplit> splits = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                splits.add(read(in));
            }
            return splits;
        }
    }
}
