package io.linerate.benchmarks.pipeline;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The packets of one {@link PacketSplit}, generated on demand. Reports to the run's {@link RunProbe}: the time of
 * its first packet, and the packets emitted, in batches of {@value #BATCH} (so the hot path stays a counter).
 */
public final class PacketIterator implements Iterator<Packet> {

    static final int BATCH = 1 << 16;

    private final PacketGenerator generator;
    private final RunProbe probe;
    private final long first;
    private final long stride;
    private final long count;
    private long position;
    private int unreported;

    PacketIterator(PacketSplit split) {
        this.generator = new PacketGenerator(split.workload());
        this.probe = RunProbe.of(split.runId());
        this.first = split.first();
        this.stride = split.stride();
        this.count = split.count();
        this.position = split.position();
    }

    @Override
    public boolean hasNext() {
        if (position < count) {
            return true;
        }
        if (unreported > 0) {
            probe.emitted(unreported);
            unreported = 0;
        }
        return false;
    }

    @Override
    public Packet next() {
        if (position >= count) {
            throw new NoSuchElementException();
        }
        if (unreported == 0) {
            probe.started(System.nanoTime());
        }
        Packet p = generator.packet(first + position * stride);
        position++;
        if (++unreported == BATCH) {
            probe.emitted(BATCH);
            unreported = 0;
        }
        return p;
    }

    long position() {
        return position;
    }
}
