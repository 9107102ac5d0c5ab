package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What does and does not depend on where the watermarks fall among a scope's packets (docs/operators/flow-meter.md,
 * "Where the watermarks fall"). The same packets in the same order are metered with watermarks after every packet,
 * every 64 and every 500 packets, and only at the end. In a job those positions are not fixed: a source emits
 * watermarks periodically in processing time.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterWatermarkCadenceTest {

    private static final long IDLE = 2_000;
    private static final long ACTIVE = 5_000;
    /** Packets between watermarks; {@link Integer#MAX_VALUE}: only the final one. */
    private static final int[] CADENCES = {1, 64, 500, Integer.MAX_VALUE};

    private static FlowMeter<Packet, String> meter(long capacity) {
        return Packets.meter().capacity(capacity).stashCapacity(8).idleTimeout(Duration.ofMillis(IDLE))
                .activeTimeout(Duration.ofMillis(ACTIVE)).tick(Duration.ofSeconds(1)).build();
    }

    /**
     * One scope, in timestamp order: half the packets start a new flow, half go to one of the 300 flows started
     * last; about 220 packets per second, half of them new flows, against tables of 256 (330 slots and a stash of
     * 8): full, with flows timing out in them.
     */
    private static List<Packet> flood(long seed, int packets) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Packet> out = new ArrayList<>(packets);
        long ts = 1_000;
        int flows = 0;
        for (int i = 0; i < packets; i++) {
            ts += random.nextInt(10);
            int flow = flows == 0 || random.nextBoolean() ? flows++ : flows - 1 - random.nextInt(Math.min(flows, 300));
            out.add(new Packet("s", flow, 1 << random.nextInt(9), 40 + random.nextInt(1460), ts));
        }
        return out;
    }

    /** The records and the {@code evictions} counter of one run. */
    private record Run(List<MeteredFlow<String>> records, long evictions) {
        long count(ExportReason reason) {
            return records.stream().filter(f -> f.reason == reason).count();
        }
    }

    /** Meters {@code packets} with a watermark {@code lag} behind the last one after every {@code every} of them. */
    private static Run run(FlowMeter<Packet, String> meter, List<Packet> packets, int every, long lag)
            throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, metrics)) {
            h.open();
            for (int i = 0; i < packets.size(); i++) {
                send(h, packets.get(i));
                if ((i + 1) % every == 0) {
                    h.processWatermark(packets.get(i).ts - lag);
                }
            }
            h.processWatermark(Long.MAX_VALUE);
            return new Run(h.extractOutputValues(), metrics.count("evictions"));
        }
    }

    /** Packets, bytes and flags per flow (scope and 5-tuple): what was sent, or what the records add up to. */
    private static Map<String, List<Long>> perFlow(List<Packet> packets) {
        Map<String, List<Long>> sent = new HashMap<>();
        for (Packet p : packets) {
            sent.merge(p.scope + " " + p.tuple(), List.of(1L, p.length, (long) p.flags),
                    FlowMeterWatermarkCadenceTest::add);
        }
        return sent;
    }

    private static Map<String, List<Long>> perFlowOf(List<MeteredFlow<String>> records) {
        Map<String, List<Long>> metered = new HashMap<>();
        for (MeteredFlow<String> f : records) {
            metered.merge(f.scope + " " + f.fiveTuple(), List.of(f.packets, f.bytes, (long) f.tcpFlags),
                    FlowMeterWatermarkCadenceTest::add);
        }
        return metered;
    }

    private static List<Long> add(List<Long> a, List<Long> b) {
        return List.of(a.get(0) + b.get(0), a.get(1) + b.get(1), a.get(2) | b.get(2));
    }

    /** The records as a sorted list of their text: the same multiset of records, whatever their order. */
    private static List<String> sorted(List<MeteredFlow<String>> records) {
        return records.stream().map(MeteredFlow::toString).sorted().toList();
    }

    /**
     * A table full of flows, some of which time out while it is full: a tick timer's sweep frees every timed-out
     * flow at once, the amortised sweep (2 slots per packet) and a new flow's own candidates one at a time, so how
     * many new flows find every place they could take held by a live flow, and evict it, depends on where the
     * timers fired. The eviction counts differ by cadence; every packet, byte and flag is still in exactly one
     * record, and the {@code evictions} counter equals the evicted records of its own run.
     */
    @Test
    void aFullTableEvictsByWhereTheWatermarksFallButCountsEveryPacketOnce() throws Exception {
        List<Packet> packets = flood(5, 20_000);
        Map<String, List<Long>> sent = perFlow(packets);
        TreeSet<Long> evictionCounts = new TreeSet<>();
        for (int every : CADENCES) {
            Run r = run(meter(256), packets, every, 101);
            String cadence = "watermark every " + every + " packets";
            assertThat(perFlowOf(r.records())).as(cadence + ": packets, bytes, flags per flow").isEqualTo(sent);
            assertThat(r.records().stream().mapToLong(f -> f.packets).sum()).as(cadence).isEqualTo(packets.size());
            assertThat(r.evictions()).as(cadence + ": evictions counter").isEqualTo(r.count(ExportReason.EVICTED))
                    .isGreaterThan(1_000);
            assertThat(r.count(ExportReason.IDLE_TIMEOUT)).as(cadence + ": idle timeouts").isGreaterThan(1_000);
            evictionCounts.add(r.evictions());
        }
        // measured 6415, 6482, 6484, 6522: if a change makes them equal, the docs' paragraph is out of date
        assertThat(evictionCounts).as("eviction counts of the %d cadences", CADENCES.length).hasSizeGreaterThan(1);
    }

    /** A table that turns over faster than the idle timeout never holds a timed-out flow: no sweep changes it. */
    @Test
    void aTableThatNeverHoldsATimedOutFlowEvictsTheSameWhateverTheCadence() throws Exception {
        assertSameRecordsAtEveryCadence(() -> meter(64), flood(5, 20_000), r -> {
            assertThat(r.count(ExportReason.IDLE_TIMEOUT)).as("idle timeouts").isZero();
            assertThat(r.evictions()).as("evictions").isGreaterThan(10_000);
        });
    }

    /**
     * With room for every flow, a flow's record is the same whether its next packet, the amortised sweep or a tick
     * timer ends it (the reason is the timeout whose deadline came first): the records do not depend on where the
     * watermarks fall, idle, active and flushed alike. What ExactlyOnceIT relies on.
     */
    @Test
    void withoutEvictionsTheRecordsDoNotDependOnWhereTheWatermarksFall() throws Exception {
        assertSameRecordsAtEveryCadence(() -> meter(4_096), Packets.churn(3, 20_000, 1), r -> {
            assertThat(r.evictions()).as("evictions").isZero();
            assertThat(r.count(ExportReason.IDLE_TIMEOUT)).as("idle timeouts").isPositive();
            assertThat(r.count(ExportReason.ACTIVE_TIMEOUT)).as("active timeouts").isPositive();
            assertThat(r.count(ExportReason.FLUSHED)).as("flushed").isPositive();
        });
    }

    /** Runs {@code packets} at every cadence, checks each run, and asserts they all give the same sorted records. */
    private static void assertSameRecordsAtEveryCadence(Supplier<FlowMeter<Packet, String>> meter, List<Packet> packets,
            Consumer<Run> check) throws Exception {
        List<String> first = null;
        for (int every : CADENCES) {
            Run r = run(meter.get(), packets, every, 101);
            check.accept(r);
            if (first == null) {
                first = sorted(r.records());
            } else {
                assertThat(sorted(r.records())).as("records with a watermark every %d packets", every)
                        .isEqualTo(first);
            }
        }
    }

    /** The same packets and the same watermarks give the same records in the same order, evictions included. */
    @Test
    void theSameWatermarksGiveTheSameRecords() throws Exception {
        List<Packet> packets = flood(5, 20_000);
        Run once = run(meter(256), packets, 64, 101);
        Run again = run(meter(256), packets, 64, 101);
        assertThat(once.evictions()).isPositive();
        assertThat(again.records()).isEqualTo(once.records());
    }
}
