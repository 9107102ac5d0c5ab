package io.linerate.benchmarks.pipeline;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The packets of one {@link PacketSplit}, generated on demand and grouped per link into {@link PacketBatch}es of
 * up to {@code batch} packets, as a collector batches the packets of one observation point per Kafka record.
 *
 * <p>The split's packets are taken in <b>rounds</b> of {@value #ROUND_BATCHES}·batch·links consecutive packets
 * (fewer in the last one). Within a round each link's packets, in order, fill batches of {@code batch} packets;
 * whatever is left of a link at the end of the round is flushed as a partial batch. So no packet waits in a
 * buffer for more than one round (the bound on a batch's event-time span: a round covers
 * {@value #ROUND_BATCHES}·batch·links·stride packets of the stream, 4 ms of event time at the defaults and
 * parallelism 2), and the last round flushes everything at the end of the split. A round's batches are emitted
 * in the order of their first packet, so batch timestamps (the smallest of each batch's packets, its first's)
 * never decrease: watermarks from {@link PacketSource#watermarks()} never overtake a packet. With
 * {@code batch = 1} every batch is one packet, in the split's order: the per-packet stream.
 *
 * <p>Deterministic: the batches depend only on the split. A checkpoint records the round's first packet and the
 * batches of the round already emitted; a restored iterator regenerates that round and skips them.
 *
 * <p>Reports to the run's {@link RunProbe}: the time of its first batch, and the packets and batches emitted,
 * every {@value #REPORT_EVERY} packets or more (so the hot path stays a counter), more often in a small run (at
 * least 64 reports per split, at most one per 1,024 packets) so that its mid-run checkpoint can come mid-run.
 */
public final class PacketBatchIterator implements Iterator<PacketBatch> {

    /** A round holds this many batches' worth of packets per link. */
    static final int ROUND_BATCHES = 4;
    static final int REPORT_EVERY = 1 << 16;
    /** A split reports at least this often in its run, so a small run's mid-run checkpoint comes mid-run. */
    private static final int REPORTS_PER_SPLIT = 64;

    private final PacketGenerator generator;
    private final RunProbe probe;
    private final long first;
    private final long stride;
    private final long count;
    private final int batch;
    private final int roundLength;
    private final PacketBatch[] round;
    private final Packet[][] open;
    private final int[] fill;
    private final int[] slot;
    private long roundStart;
    private int roundSize;      // packets in the current round
    private int roundBatches;   // batches in the current round
    private int next;           // the next batch of the round to emit
    private boolean started;
    private long unreportedPackets;
    private long unreportedBatches;
    private final long reportEvery;

    PacketBatchIterator(PacketSplit split) {
        Workload w = split.workload();
        this.generator = new PacketGenerator(w);
        this.probe = RunProbe.of(split.runId());
        this.first = split.first();
        this.stride = split.stride();
        this.count = split.count();
        this.batch = w.batch();
        this.reportEvery = Math.max(1024, Math.min(REPORT_EVERY, count / REPORTS_PER_SPLIT));
        this.roundLength = Math.toIntExact((long) ROUND_BATCHES * w.batch() * w.links());
        this.round = new PacketBatch[Math.toIntExact(Math.min(roundLength, Math.max(count, 1)))];
        this.open = new Packet[w.links()][];
        this.fill = new int[w.links()];
        this.slot = new int[w.links()];
        this.roundStart = split.position();
        if (roundStart < count) {
            load();
            if (split.batchesDone() > roundBatches) {
                throw new IllegalStateException("split " + split.splitId() + " says " + split.batchesDone()
                        + " batches of the round at " + roundStart + " were emitted; it has " + roundBatches);
            }
            next = split.batchesDone();
        }
    }

    /** Generates the round starting at {@link #roundStart} and cuts it into batches. */
    private void load() {
        roundSize = (int) Math.min(roundLength, count - roundStart);
        roundBatches = 0;
        next = 0;
        for (int i = 0; i < roundSize; i++) {
            Packet p = generator.packet(first + (roundStart + i) * stride);
            int link = p.link();
            if (fill[link] == 0) {
                open[link] = new Packet[batch];
                slot[link] = roundBatches++; // batches numbered by their first packet
            }
            open[link][fill[link]++] = p;
            if (fill[link] == batch) {
                close(link);
            }
        }
        for (int link = 0; link < fill.length; link++) {
            if (fill[link] > 0) {
                close(link);
            }
        }
        Arrays.fill(round, roundBatches, round.length, null);
    }

    private void close(int link) {
        round[slot[link]] = new PacketBatch(link, open[link], fill[link]); // takes the array over
        open[link] = null;
        fill[link] = 0;
    }

    @Override
    public boolean hasNext() {
        if (roundStart < count && next == roundBatches && roundStart + roundSize < count) {
            roundStart += roundSize;
            load();
        }
        if (roundStart < count && next < roundBatches) {
            return true;
        }
        report();
        return false;
    }

    @Override
    public PacketBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        if (!started) {
            started = true;
            probe.started(System.nanoTime());
        }
        PacketBatch b = round[next];
        round[next++] = null;
        unreportedBatches++;
        unreportedPackets += b.size();
        if (unreportedPackets >= reportEvery) {
            report();
        }
        return b;
    }

    private void report() {
        if (unreportedBatches > 0) {
            probe.emitted(unreportedPackets, unreportedBatches);
            unreportedPackets = 0;
            unreportedBatches = 0;
        }
    }

    /** The position in the split of the current round's first packet. */
    long roundStart() {
        return roundStart;
    }

    /** Batches of the current round already emitted. */
    int batchesDone() {
        return next;
    }
}
