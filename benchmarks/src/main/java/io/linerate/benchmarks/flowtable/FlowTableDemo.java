package io.linerate.benchmarks.flowtable;

import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import java.util.Locale;

/**
 * The flow-table part of the demo: a table sized for 200,000 flows meters 2M packets of 180,000 Zipf(1.1)
 * IPv4 flows (90% of capacity) whose timestamps advance 1 ms per 100 packets, with a 5 s idle timeout; then
 * flushes. Prints load per sub-table, stash, moves, exports by reason and bytes per flow, and checks that
 * every packet is in an exported record (throws otherwise).
 */
public final class FlowTableDemo {

    private FlowTableDemo() {
    }

    public static void run() {
        int capacity = 200_000;
        int flows = capacity * 9 / 10;
        int packets = 2_000_000;
        System.out.printf(Locale.ROOT, "%nflow table demo: capacity %,d flows, %,d packets over %,d Zipf(1.1) "
                + "IPv4 flows%n", capacity, packets, flows);
        Packets p = Packets.generate(flows, packets, Packets.SEED);
        long[] exported = new long[2]; // packets, records
        FlowTable table = FlowTable.builder().capacity(capacity).keyFormat(FlowKeyFormat.IPV4_ONLY)
                .idleTimeout(5_000).activeTimeout(60_000)
                .exporter(r -> {
                    exported[0] += r.packets();
                    exported[1]++;
                }).build();
        int[] s = p.stream();
        long t0 = System.nanoTime();
        for (int i = 0; i < packets; i++) {
            int o = i * Packets.INTS;
            table.updateIpv4(s[o + Packets.SRC], s[o + Packets.DST], s[o + Packets.SRC_PORT],
                    s[o + Packets.DST_PORT], s[o + Packets.PROTOCOL], s[o + Packets.FLAGS],
                    s[o + Packets.LENGTH_FIELD], i / 100);
        }
        long t1 = System.nanoTime();
        StringBuilder load = new StringBuilder();
        for (int i = 0; i < table.layout().levels(); i++) {
            load.append(String.format(Locale.ROOT, " T%d %.1f%%", i + 1, 100 * table.load(i)));
        }
        System.out.printf(Locale.ROOT, "%s, %d entry slots of %d bytes%n", table.scheme(), table.slots(),
                table.entryLongs() * Long.BYTES);
        System.out.printf(Locale.ROOT, "live flows %,d; load per sub-table:%s; stash %d/%d; moves %,d%n",
                table.size(), load, table.stashSize(), table.stashCapacity(), table.moves());
        System.out.printf(Locale.ROOT, "exported so far: idle %,d, active %,d, evicted %,d; memory %.1f MiB "
                        + "(%.0f bytes per live flow); %.0f ns per packet (one cold pass, not a benchmark)%n",
                table.exports(ExportReason.IDLE_TIMEOUT), table.exports(ExportReason.ACTIVE_TIMEOUT),
                table.evictions(), table.memoryBytes() / 1048576.0, (double) table.memoryBytes() / table.size(),
                (double) (t1 - t0) / packets);
        table.flush();
        System.out.printf(Locale.ROOT, "after flush: %,d records carry %,d packets of %,d sent%n", exported[1],
                exported[0], packets);
        if (exported[0] != packets) {
            throw new IllegalStateException("packets lost: " + (packets - exported[0]));
        }
    }
}
