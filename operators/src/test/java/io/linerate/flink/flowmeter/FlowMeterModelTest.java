package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.OverflowPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import io.linerate.flink.state.WriteBackOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Model-based review of the flow meter: randomized packet streams (several scopes, IPv4 and IPv6, out-of-order
 * timestamps, late packets, watermarks in steps) against an exact NetFlow model of the documented semantics
 * (docs/operators/flow-meter.md, "Time, timers and what is guaranteed").
 */
@SuppressWarnings("try")
class FlowMeterModelTest {

    static final long IDLE = 3_000;
    static final long ACTIVE = 10_000;
    static final long TICK = 500;

    /** A packet record: IPv4 or IPv6 (a Flink POJO). */
    public static final class MPacket {
        public String scope;
        public boolean v6;
        public long sh;
        public long sl;
        public long dh;
        public long dl;
        public int sp;
        public int dp;
        public int proto;
        public int flags;
        public long len;
        public long ts;

        public MPacket() {
        }

        MPacket copyAt(long ts, int flags, long len) {
            MPacket p = new MPacket();
            p.scope = scope;
            p.v6 = v6;
            p.sh = sh;
            p.sl = sl;
            p.dh = dh;
            p.dl = dl;
            p.sp = sp;
            p.dp = dp;
            p.proto = proto;
            p.flags = flags;
            p.len = len;
            p.ts = ts;
            return p;
        }

        String flowKey() {
            return scope + "|" + v6 + "|" + sh + "|" + sl + "|" + dh + "|" + dl + "|" + sp + "|" + dp + "|" + proto;
        }

        @Override
        public String toString() {
            return "P[" + flowKey() + " ts=" + ts + " len=" + len + "]";
        }
    }

    static final TypeInformation<MPacket> TYPE = TypeInformation.of(MPacket.class);

    /** A packet (p != null) or a watermark. */
    record Event(MPacket p, long wm) {
    }

    /** The builder every case starts from: scope, 5-tuple (IPv4 or IPv6), bytes and TCP flags of an MPacket. */
    static FlowMeter.Builder<MPacket, String> meterOf() {
        return FlowMeter.<MPacket>builder()
                .scope(p -> p.scope, Types.STRING)
                .packets((p, s) -> {
                    if (p.v6) {
                        s.ipv6(p.sh, p.sl, p.dh, p.dl, p.sp, p.dp, p.proto);
                    } else {
                        s.ipv4((int) p.sl, (int) p.dl, p.sp, p.dp, p.proto);
                    }
                })
                .bytes(p -> p.len).tcpFlags(p -> p.flags);
    }

    static FlowMeter<MPacket, String> meter(long capacity, int stash, OverflowPolicy policy, long cacheBytes) {
        return meter(capacity, stash, policy, cacheBytes, IDLE, ACTIVE, TICK);
    }

    static FlowMeter<MPacket, String> meter(long capacity, int stash, OverflowPolicy policy, long cacheBytes,
                                            long idle, long active, long tick) {
        return meterOf()
                .capacity(capacity)
                .stashCapacity(stash)
                .overflow(policy)
                .idleTimeout(Duration.ofMillis(idle))
                .activeTimeout(Duration.ofMillis(active))
                .tick(Duration.ofMillis(tick))
                .stateCacheBytes(cacheBytes)
                .seed(11)
                .build();
    }

    static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    static KeyedOneInputStreamOperatorTestHarness<String, MPacket, MeteredFlow<String>> open(
            FlowMeter<MPacket, String> meter, String backend, Harnesses.Metrics metrics) throws Exception {
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(128).setParallelism(1)
                .setSubtaskIndex(0).setMetricGroup(metrics).build();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(meter.function(TYPE)),
                (MPacket p) -> p.scope, Types.STRING, env);
        h.setStateBackend(backend(backend));
        h.setup(meter.outputType().createSerializer(new SerializerConfigImpl()));
        return h;
    }

    // ------------------------------------------------------------------ streams

    /**
     * Packets of {@code scopes} scopes; flows come and go in eras (so they idle out), some last long (active
     * timeout); 30% of packets are up to {@code jitter} ms behind the stream's clock; a watermark of
     * (largest timestamp − lag) every 5..40 packets when it advances. Ends with the watermark Long.MAX_VALUE.
     */
    static List<Event> stream(long seed, int packets, int scopes, int flowsPerScope, long start, long jitter,
                              long lag) {
        SplittableRandom r = new SplittableRandom(seed);
        List<List<MPacket>> flows = new ArrayList<>();
        for (int s = 0; s < scopes; s++) {
            List<MPacket> fs = new ArrayList<>();
            for (int f = 0; f < flowsPerScope; f++) {
                MPacket p = new MPacket();
                p.scope = "scope-" + s;
                p.v6 = r.nextBoolean();
                if (p.v6) {
                    p.sh = r.nextLong();
                    p.sl = r.nextLong();
                    p.dh = r.nextLong();
                    p.dl = r.nextLong();
                } else {
                    p.sl = r.nextLong() & 0xFFFF_FFFFL;
                    p.dl = r.nextLong() & 0xFFFF_FFFFL;
                }
                p.sp = r.nextInt(65_536);
                p.dp = r.nextInt(65_536);
                p.proto = new int[] {6, 17, 1, 132}[r.nextInt(4)];
                fs.add(p);
            }
            flows.add(fs);
        }
        List<Event> out = new ArrayList<>();
        long clock = start;
        long maxTs = Long.MIN_VALUE;
        long wm = Long.MIN_VALUE;
        int nextWm = 5 + r.nextInt(36);
        for (int i = 0; i < packets; i++) {
            clock += r.nextInt(120);
            if (r.nextInt(200) == 0) {
                clock += 2_000 + r.nextInt(6_000); // a pause: everything idles out
            }
            int s = r.nextInt(scopes);
            int era = i / 300;
            int window = Math.max(1, flowsPerScope / 3);
            int f;
            if (r.nextInt(10) == 0) {
                f = r.nextInt(3); // long-lived flows: active timeouts
            } else {
                f = Math.floorMod(era * (window / 2) + r.nextInt(window), flowsPerScope);
            }
            long ts = r.nextInt(10) < 3 ? clock - r.nextLong(jitter + 1) : clock;
            MPacket p = flows.get(s).get(f).copyAt(ts, 1 << r.nextInt(9), 40 + r.nextInt(1_460));
            out.add(new Event(p, 0));
            maxTs = Math.max(maxTs, ts);
            if (--nextWm == 0) {
                nextWm = 5 + r.nextInt(36);
                long w = maxTs - lag;
                if (w > wm) {
                    wm = w;
                    out.add(new Event(null, wm));
                }
            }
        }
        out.add(new Event(null, Long.MAX_VALUE));
        return out;
    }

    // ------------------------------------------------------------------ the model

    /** One model record and the steps at which the meter may emit it. */
    static final class Rec {
        final MPacket key;
        long packets;
        long bytes;
        long first;
        long last;
        int flags;
        int earliest = -1; // first step at which it was expired at its scope's now (the amortised sweep may go)
        int latest = -1; // the step at which the model exports it
        ExportReason reason;
        boolean anyReason;

        Rec(MPacket key, long ts) {
            this.key = key;
            this.first = ts;
            this.last = ts;
        }

        MeteredFlow<String> flow() {
            MeteredFlow<String> f = new MeteredFlow<>();
            f.scope = key.scope;
            f.ipv6 = key.v6;
            f.srcHigh = key.sh;
            f.srcLow = key.sl;
            f.dstHigh = key.dh;
            f.dstLow = key.dl;
            f.srcPort = key.sp;
            f.dstPort = key.dp;
            f.protocol = key.proto;
            f.packets = packets;
            f.bytes = bytes;
            f.firstTimestamp = first;
            f.lastTimestamp = last;
            f.tcpFlags = flags;
            f.reason = reason;
            return f;
        }
    }

    static final class Scope {
        Map<String, Rec> table; // null: no state
        long now;
        Long freedNow;
        final TreeSet<Long> timers = new TreeSet<>(); // tick timers and the end-of-input timer (Long.MAX_VALUE)
    }

    /** The documented semantics, step by step. */
    static final class Model {
        final Map<String, Scope> scopes = new TreeMap<>();
        final List<Rec> out = new ArrayList<>();
        long wm = Long.MIN_VALUE;
        long late;
        long packets;
        long idleTimeout = IDLE;
        long activeTimeout = ACTIVE;
        long tick = TICK;

        ExportReason expired(Rec r, long now) {
            boolean idle = now - r.last >= idleTimeout;
            boolean active = now - r.first >= activeTimeout;
            if (idle && active) {
                return r.last + idleTimeout <= r.first + activeTimeout
                        ? ExportReason.IDLE_TIMEOUT : ExportReason.ACTIVE_TIMEOUT;
            }
            return idle ? ExportReason.IDLE_TIMEOUT : active ? ExportReason.ACTIVE_TIMEOUT : null;
        }

        void export(Rec r, ExportReason reason, int step) {
            r.reason = reason;
            r.latest = step;
            if (r.earliest < 0 || reason == ExportReason.FLUSHED) {
                r.earliest = step;
            }
            out.add(r);
        }

        void markExpirable(Scope s, int step) {
            for (Rec r : s.table.values()) {
                if (r.earliest < 0 && expired(r, s.now) != null) {
                    r.earliest = step;
                }
            }
        }

        void step(Event e, int step) {
            if (e.p != null) {
                packet(e.p, step);
            } else {
                watermark(e.wm, step);
            }
        }

        void packet(MPacket p, int step) {
            packets++;
            if (p.ts < wm) {
                late++;
            }
            Scope s = scopes.computeIfAbsent(p.scope, k -> new Scope());
            if (s.table == null) {
                s.table = new LinkedHashMap<>();
                s.now = s.freedNow != null ? s.freedNow : Long.MIN_VALUE; // the scope keeps its now
                s.freedNow = null;
                s.timers.add(Long.MAX_VALUE);
            }
            long before = s.now;
            boolean wasEmpty = s.table.isEmpty();
            s.now = Math.max(s.now, p.ts);
            markExpirable(s, step);
            String k = p.flowKey();
            Rec r = s.table.get(k);
            if (r != null) {
                ExportReason reason = expired(r, s.now);
                if (reason != null) {
                    s.table.remove(k);
                    export(r, reason, step);
                    r = null;
                }
            }
            if (r == null) {
                r = new Rec(p, p.ts);
                s.table.put(k, r);
            }
            r.packets++;
            r.bytes += p.len;
            r.flags |= p.flags;
            r.first = Math.min(r.first, p.ts);
            r.last = Math.max(r.last, p.ts);
            if (expired(r, s.now) != null && r.earliest < 0) {
                r.earliest = step; // a late packet may leave its new record expired at once
            }
            if (wasEmpty || Math.floorDiv(s.now, tick) != Math.floorDiv(before, tick)) {
                s.timers.add((Math.floorDiv(s.now, tick) + 1) * tick);
            }
        }

        void watermark(long w, int step) {
            wm = w;
            // timers fire in timestamp order; each scope's own timers in order, which is all that is observable
            for (Scope s : scopes.values()) {
                while (!s.timers.isEmpty() && s.timers.first() <= w) {
                    long t = s.timers.pollFirst();
                    onTimer(s, t, w, step);
                }
            }
        }

        void onTimer(Scope s, long t, long w, int step) {
            if (s.table == null) {
                return;
            }
            if (t == Long.MAX_VALUE) {
                for (Rec r : s.table.values()) {
                    export(r, ExportReason.FLUSHED, step);
                }
                s.table = null;
                return;
            }
            long sweepAt = w == Long.MAX_VALUE ? t : Math.max(t, Math.floorDiv(w, tick) * tick);
            s.now = Math.max(s.now, sweepAt);
            for (Iterator<Rec> it = s.table.values().iterator(); it.hasNext(); ) {
                Rec r = it.next();
                ExportReason reason = expired(r, s.now);
                if (reason != null) {
                    it.remove();
                    export(r, reason, step);
                }
            }
            if (w == Long.MAX_VALUE) {
                return;
            }
            if (s.table.isEmpty()) {
                s.table = null;
                s.freedNow = s.now;
                s.timers.remove(Long.MAX_VALUE);
                return;
            }
            long next = sweepAt + tick;
            if (next > w) {
                s.timers.add(next);
            }
        }

        int timers() {
            return scopes.values().stream().mapToInt(s -> s.timers.size()).sum();
        }
    }

    // ------------------------------------------------------------------ running the meter

    static void feed(KeyedOneInputStreamOperatorTestHarness<String, MPacket, MeteredFlow<String>> h, Event e)
            throws Exception {
        if (e.p != null) {
            h.processElement(new StreamRecord<>(e.p, e.p.ts));
        } else {
            h.processWatermark(e.wm);
        }
    }

    static List<MeteredFlow<String>> drain(KeyedOneInputStreamOperatorTestHarness<String, MPacket,
            MeteredFlow<String>> h) {
        List<MeteredFlow<String>> out = h.extractOutputValues();
        h.getOutput().clear();
        return out;
    }

    /** Output of every step, running the events through one harness (or two, cut by a snapshot at {@code cut}). */
    static List<List<MeteredFlow<String>>> run(FlowMeter<MPacket, String> meter, String backend, List<Event> events,
                                               int cut, Harnesses.Metrics metrics, Model model) throws Exception {
        return run(meter, meter, backend, events, cut, metrics, model, null);
    }

    static List<List<MeteredFlow<String>>> run(FlowMeter<MPacket, String> meter, FlowMeter<MPacket, String> after,
                                               String backend, List<Event> events, int cut,
                                               Harnesses.Metrics metrics, Model model,
                                               java.util.function.Consumer<Model> atCut) throws Exception {
        List<List<MeteredFlow<String>>> perStep = new ArrayList<>();
        OperatorSubtaskState snapshot = null;
        int from = 0;
        if (cut > 0) {
            try (var h = open(meter, backend, new Harnesses.Metrics())) {
                h.open();
                for (int i = 0; i < cut; i++) {
                    feed(h, events.get(i));
                    perStep.add(drain(h));
                    if (model != null) {
                        model.step(events.get(i), i);
                    }
                }
                snapshot = h.snapshot(1, 1);
            }
            from = cut;
            if (atCut != null) {
                atCut.accept(model);
            }
        }
        try (var h = open(after, backend, metrics)) {
            if (snapshot != null) {
                h.initializeState(snapshot);
            }
            h.open();
            for (int i = from; i < events.size(); i++) {
                Event e = events.get(i);
                feed(h, e);
                perStep.add(drain(h));
                if (model != null) {
                    model.step(e, i);
                    if (e.p == null && e.wm != Long.MAX_VALUE) {
                        assertThat(h.numEventTimeTimers()).as("timers after step %d (%s)", i, e)
                                .isEqualTo(model.timers());
                    }
                }
            }
        }
        return perStep;
    }

    // ------------------------------------------------------------------ checks


    /** With room for every flow: the records are the model's, each emitted within its documented window. */
    @ParameterizedTest(name = "seed {0}, {1}, start {2}")
    @CsvSource({
        "1, heap, 1000000, 1500, 700",
        "2, heap, -40000, 1500, 700",
        "3, rocksdb, 1000000, 1500, 700",
        "4, heap, 0, 1500, 700",
        "5, rocksdb, -7777, 1500, 700",
        "6, heap, 1000000, 9000, 300",
        "7, rocksdb, 1000000, 9000, 300",
        "8, heap, 1000000, 20000, 0",
        "9, heap, -1000000, 2000, 5000",
        "10, heap, -9223372036854770000, 1500, 700",
        "11, rocksdb, -9223372036854775000, 1500, 700",
        "12, heap, 9223372036853775807, 1500, 700",
    })
    void recordsEqualTheModelWithRoomForEveryFlow(long seed, String backend, long start, long jitter, long lag)
            throws Exception {
        recordsEqualTheModel(seed, backend, start, jitter, lag, 4, 30);
    }

    /** Many quiet scopes (their tables freed by timers) and packets far behind the watermark. */
    @ParameterizedTest(name = "seed {0}, {1}")
    @CsvSource({"61, heap", "62, rocksdb", "63, heap", "64, heap"})
    void recordsEqualTheModelWithQuietScopesAndVeryLatePackets(long seed, String backend) throws Exception {
        recordsEqualTheModel(seed, backend, 1_000_000, 12_000, 200, 16, 6);
    }

    void recordsEqualTheModel(long seed, String backend, long start, long jitter, long lag, int scopes,
                              int flowsPerScope) throws Exception {
        List<Event> events = stream(seed, 6_000, scopes, flowsPerScope, start, jitter, lag);
        // cache holding 2 of the 4 scopes' tables on RocksDB (scopes take turns)
        FlowMeter<MPacket, String> probe = meter(4_096, 64, OverflowPolicy.EVICT_LEAST_RECENT, 0);
        FlowMeter<MPacket, String> meter = meter(4_096, 64, OverflowPolicy.EVICT_LEAST_RECENT,
                2 * probe.tableBytes());
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        Model model = new Model();
        List<List<MeteredFlow<String>>> perStep = run(meter, backend, events, 0, metrics, model);

        assertMatchesModel(perStep, events, model);
        assertThat(model.out.stream().map(r -> r.reason).distinct()).hasSize(3); // idle, active, flushed
        if (jitter > lag) {
            assertThat(model.late).isPositive();
        }
        assertThat(metrics.count("lateRecords")).isEqualTo(model.late);
        assertThat(metrics.count("itemsProcessed")).isEqualTo(model.packets);
        assertThat(metrics.count("flowsExported")).isEqualTo(model.out.size());
        assertThat(metrics.count("evictions")).isZero();
        for (ExportReason reason : new ExportReason[] {ExportReason.IDLE_TIMEOUT, ExportReason.ACTIVE_TIMEOUT,
                ExportReason.FLUSHED}) {
            String name = switch (reason) {
                case IDLE_TIMEOUT -> "flowsIdleTimeout";
                case ACTIVE_TIMEOUT -> "flowsActiveTimeout";
                default -> "flowsFlushed";
            };
            assertThat(metrics.count(name)).as(name)
                    .isEqualTo(model.out.stream().filter(r -> r.reason == reason).count());
        }
    }

    /** Tiny tables: nothing lost, per flow the records add up to the input; every eviction reported and counted. */
    @ParameterizedTest(name = "seed {0}, {1}, {2}, {3}, jitter {4}, {5}, stash {6}, capacity {7}")
    @CsvSource({
        "11, heap, EVICT_LEAST_RECENT, 1000000, 1500, SECOND_CHANCE, 2, 6",
        "12, rocksdb, EVICT_LEAST_RECENT, -30000, 1500, SECOND_CHANCE, 2, 6",
        "13, heap, EXPORT_NEW, 1000000, 1500, SECOND_CHANCE, 2, 6",
        "14, rocksdb, EXPORT_NEW, 5, 1500, SECOND_CHANCE, 2, 6",
        "15, heap, EVICT_LEAST_RECENT, 1000000, 9000, SECOND_CHANCE, 2, 6",
        "16, rocksdb, EXPORT_NEW, 1000000, 9000, SECOND_CHANCE, 2, 6",
        "17, heap, EVICT_LEAST_RECENT, 1000000, 1500, STANDARD, 0, 10",
        "18, heap, EVICT_LEAST_RECENT, 1000000, 1500, CONSERVATIVE, 0, 10",
        "19, heap, EVICT_LEAST_RECENT, 1000000, 1500, CONSERVATIVE, 3, 10",
        "20, heap, EVICT_LEAST_RECENT, 1000000, 1500, EXTREME_SECOND_CHANCE, 0, 10",
        "21, heap, EVICT_LEAST_RECENT, 1000000, 1500, EXTREME_SECOND_CHANCE, 3, 10",
        "22, heap, EVICT_LEAST_RECENT, 1000000, 1500, STANDARD_2, 0, 10",
        "23, heap, EVICT_LEAST_RECENT, 1000000, 1500, SECOND_CHANCE_2, 0, 10",
        "24, heap, EVICT_LEAST_RECENT, 1000000, 1500, SECOND_CHANCE_2, 3, 10",
        "25, rocksdb, EXPORT_NEW, 1000000, 1500, EXTREME_SECOND_CHANCE, 1, 10",
        "26, heap, EXPORT_NEW, 1000000, 1500, CONSERVATIVE, 1, 10",
        "27, heap, EVICT_LEAST_RECENT, 1000000, 1500, SECOND_CHANCE, 0, 1",
        "28, heap, EVICT_LEAST_RECENT, 1000000, 1500, SECOND_CHANCE_2, 1, 1",
    })
    void conservationWithEvictions(long seed, String backend, OverflowPolicy policy, long start, long jitter,
                                   io.linerate.sketches.flowtable.InsertionScheme scheme, int stash, long capacity)
            throws Exception {
        List<Event> events = stream(seed, 6_000, 3, 60, start, jitter, 700);
        FlowMeter<MPacket, String> meter = meterOf()
                .capacity(capacity).stashCapacity(stash).overflow(policy).scheme(scheme)
                .idleTimeout(Duration.ofMillis(IDLE)).activeTimeout(Duration.ofMillis(ACTIVE))
                .tick(Duration.ofMillis(TICK)).stateCacheBytes(1L << 20).seed(seed).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        List<List<MeteredFlow<String>>> perStep = run(meter, backend, events, 0, metrics, null);
        List<MeteredFlow<String>> all = perStep.stream().flatMap(List::stream).toList();

        Map<String, long[]> sent = new HashMap<>();
        long packets = 0;
        long late = 0;
        long wm = Long.MIN_VALUE;
        for (Event e : events) {
            if (e.p == null) {
                wm = e.wm;
                continue;
            }
            packets++;
            late += e.p.ts < wm ? 1 : 0;
            long[] a = sent.computeIfAbsent(e.p.flowKey(), k -> new long[3]);
            a[0]++;
            a[1] += e.p.len;
            a[2] |= e.p.flags;
        }
        Map<String, long[]> got = new HashMap<>();
        for (MeteredFlow<String> f : all) {
            assertThat(f.packets).as("%s", f).isPositive();
            assertThat(f.firstTimestamp).as("%s", f).isLessThanOrEqualTo(f.lastTimestamp);
            long[] a = got.computeIfAbsent(sameKey(f), x -> new long[3]);
            a[0] += f.packets;
            a[1] += f.bytes;
            a[2] |= f.tcpFlags;
        }
        assertThat(got.keySet()).isEqualTo(sent.keySet());
        for (String k : sent.keySet()) {
            assertThat(got.get(k)).as(k).containsExactly(sent.get(k));
        }
        // timing and reasons of every record, from bounds on its scope's now at the step it was emitted
        Map<String, Long> scopeMax = new HashMap<>();
        Map<String, Integer> lastStepOfTs = new HashMap<>(); // flow|ts -> step
        long w = Long.MIN_VALUE;
        long finiteW = Long.MIN_VALUE;
        List<String> problems = new ArrayList<>();
        for (int step = 0; step < events.size(); step++) {
            Event e = events.get(step);
            if (e.p != null) {
                scopeMax.merge(e.p.scope, e.p.ts, Math::max);
                lastStepOfTs.put(e.p.flowKey() + "|" + e.p.ts, step);
            } else {
                w = e.wm;
                if (w != Long.MAX_VALUE) {
                    finiteW = w;
                }
            }
            for (MeteredFlow<String> f : perStep.get(step)) {
                long max = scopeMax.getOrDefault(f.scope, Long.MIN_VALUE);
                long upper = w == Long.MAX_VALUE
                        ? Math.max((Math.floorDiv(max, TICK) + 1) * TICK, (Math.floorDiv(finiteW, TICK) + 1) * TICK)
                        : Math.max(max, Math.floorDiv(w, TICK) * TICK);
                switch (f.reason) {
                    case IDLE_TIMEOUT -> {
                        if (upper - f.lastTimestamp < IDLE || f.lastTimestamp + IDLE > f.firstTimestamp + ACTIVE) {
                            problems.add("step " + step + ": IDLE too early or wrong, now <= " + upper + ": " + f);
                        }
                    }
                    case ACTIVE_TIMEOUT -> {
                        if (upper - f.firstTimestamp < ACTIVE
                                || f.firstTimestamp + ACTIVE >= f.lastTimestamp + IDLE) {
                            problems.add("step " + step + ": ACTIVE too early or wrong, now <= " + upper + ": " + f);
                        }
                    }
                    case EVICTED -> {
                        if (e.p == null || !e.p.scope.equals(f.scope)) {
                            problems.add("step " + step + ": evicted outside a packet of its scope: " + f);
                            break;
                        }
                        if (policy == OverflowPolicy.EXPORT_NEW) {
                            break;
                        }
                        // now >= every timestamp of the scope since the record's last packet arrived
                        Integer from = lastStepOfTs.get(sameKey(f) + "|" + f.lastTimestamp);
                        long lower = e.p.ts;
                        for (int j = from == null ? step : from; j <= step; j++) {
                            Event x = events.get(j);
                            if (x.p != null && x.p.scope.equals(f.scope)) {
                                lower = Math.max(lower, x.p.ts);
                            }
                        }
                        if (lower - f.lastTimestamp >= IDLE || lower - f.firstTimestamp >= ACTIVE) {
                            problems.add("step " + step + ": EVICTED although expired at now >= " + lower + ": " + f);
                        }
                    }
                    default -> { }
                }
            }
        }
        assertThat(problems).isEmpty();
        long evicted = all.stream().filter(f -> f.reason == ExportReason.EVICTED).count();
        assertThat(evicted).as("evictions happen").isGreaterThan(50);
        assertThat(metrics.count("evictions")).isEqualTo(evicted);
        assertThat(metrics.count("flowsExported")).isEqualTo(all.size());
        assertThat(metrics.count("itemsProcessed")).isEqualTo(packets);
        assertThat(metrics.count("lateRecords")).isEqualTo(late);
        if (policy == OverflowPolicy.EXPORT_NEW) {
            assertThat(all.stream().filter(f -> f.reason == ExportReason.EVICTED))
                    .allMatch(f -> f.packets == 1 && f.firstTimestamp == f.lastTimestamp);
        }
    }

    /** Snapshot mid-stream, restore into a fresh harness, continue: the output of every step is unchanged. */
    @ParameterizedTest(name = "seed {0}, {1}, capacity {2}, cut {3}")
    @CsvSource({
        "21, heap, 4096, 1500",
        "21, rocksdb, 4096, 1500",
        "22, heap, 6, 2501",
        "22, rocksdb, 6, 2501",
        "23, rocksdb, 6, 777",
        "24, heap, 4096, 3333",
    })
    void snapshotRestoreContinuesIdentically(long seed, String backend, long capacity, int cut) throws Exception {
        List<Event> events = stream(seed, 4_000, 4, 40, 1_000_000, 1_500, 700);
        FlowMeter<MPacket, String> meter = meter(capacity, capacity < 100 ? 2 : 64,
                OverflowPolicy.EVICT_LEAST_RECENT, 1L << 20);
        List<List<MeteredFlow<String>>> straight = run(meter, backend, events, 0, new Harnesses.Metrics(), null);
        List<List<MeteredFlow<String>>> restored = run(meter, backend, events, cut, new Harnesses.Metrics(), null);
        assertThat(restored).hasSameSizeAs(straight);
        for (int i = 0; i < straight.size(); i++) {
            assertThat(Packets.canonical(restored.get(i))).as("step %d: %s", i, events.get(i))
                    .isEqualTo(Packets.canonical(straight.get(i)));
        }
    }

    static String sameKey(MeteredFlow<String> f) {
        MPacket k = new MPacket();
        k.scope = f.scope;
        k.v6 = f.ipv6;
        k.sh = f.srcHigh;
        k.sl = f.srcLow;
        k.dh = f.dstHigh;
        k.dl = f.dstLow;
        k.sp = f.srcPort;
        k.dp = f.dstPort;
        k.proto = f.protocol;
        return k.flowKey();
    }

    static boolean sameFlow(MeteredFlow<String> a, MeteredFlow<String> b) {
        return Objects.equals(a.scope, b.scope) && a.fiveTuple().equals(b.fiveTuple());
    }


    /** Each emitted record is a model record (same contents and reason) emitted within its window; none missing. */
    static void assertMatchesModel(List<List<MeteredFlow<String>>> perStep, List<Event> events, Model model) {
        Map<MeteredFlow<String>, List<Rec>> pool = new HashMap<>();
        for (Rec r : model.out) {
            MeteredFlow<String> k = r.flow();
            k.reason = null;
            pool.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
        }
        List<String> problems = new ArrayList<>();
        int emitted = 0;
        for (int step = 0; step < perStep.size(); step++) {
            for (MeteredFlow<String> f : perStep.get(step)) {
                emitted++;
                ExportReason reason = f.reason;
                f.reason = null;
                List<Rec> candidates = pool.getOrDefault(f, List.of());
                f.reason = reason;
                Rec hit = null;
                for (Rec r : candidates) {
                    if (r.earliest <= step && step <= r.latest && (r.reason == reason || r.anyReason)) {
                        hit = r;
                        break;
                    }
                }
                if (hit == null) {
                    problems.add("step " + step + " (" + events.get(step) + "): unexpected " + f
                            + (candidates.isEmpty() ? " (no such record in the model)"
                            : " (model " + candidates.get(0).reason + " window " + candidates.get(0).earliest + ".."
                            + candidates.get(0).latest + ")"));
                } else {
                    candidates.remove(hit);
                }
            }
        }
        pool.values().forEach(rs -> rs.forEach(r -> problems.add("missing " + r.flow() + " window " + r.earliest
                + ".." + r.latest)));
        assertThat(problems).as("%d records emitted, %d in the model", emitted, model.out.size()).isEmpty();
    }

    /**
     * Restoring into shorter timeouts (and another tick): the restored tables take them ("flows already past a
     * shortened timeout leave at the next sweep"); the records are the model's with the new values from the cut.
     */
    @ParameterizedTest(name = "seed {0}, {1}, {2}/{3}/{4} -> {5}/{6}/{7} at {8}")
    @CsvSource({
        "51, heap, 3000, 10000, 500, 1000, 4000, 500, 2000",
        "52, rocksdb, 3000, 10000, 500, 1000, 4000, 300, 2000",
        "53, heap, 3000, 10000, 500, 3000, 2000, 700, 1000",
        "54, rocksdb, 6000, 3000, 1000, 2000, 1500, 250, 3000",
        "55, heap, 5000, 2000, 500, 5000, 2000, 500, 0",
    })
    void restoredTablesTakeShorterTimeouts(long seed, String backend, long idle1, long active1, long tick1,
                                           long idle2, long active2, long tick2, int cut) throws Exception {
        List<Event> events = stream(seed, 5_000, 3, 30, 1_000_000, 1_500, 700);
        FlowMeter<MPacket, String> before = meter(4_096, 64, OverflowPolicy.EVICT_LEAST_RECENT, 1L << 20, idle1,
                active1, tick1);
        FlowMeter<MPacket, String> after = meter(4_096, 64, OverflowPolicy.EVICT_LEAST_RECENT, 1L << 20, idle2,
                active2, tick2);
        Model model = new Model();
        model.idleTimeout = cut > 0 ? idle1 : idle2;
        model.activeTimeout = cut > 0 ? active1 : active2;
        model.tick = cut > 0 ? tick1 : tick2;
        List<List<MeteredFlow<String>>> perStep = run(before, after, backend, events, cut, new Harnesses.Metrics(),
                model, m -> {
                    m.idleTimeout = idle2;
                    m.activeTimeout = active2;
                    m.tick = tick2;
                    for (Scope sc : m.scopes.values()) {
                        if (sc.table != null) {
                            for (Rec r : sc.table.values()) {
                                // expired before the cut: the amortised sweep may have taken it with the old reason
                                r.anyReason = r.earliest >= 0;
                            }
                        }
                    }
                });
        assertMatchesModel(perStep, events, model);
    }

    // ------------------------------------------------------------------ more checks

    /** A batch record of one scope's packets (a Flink POJO). */
    public static final class MBatch {
        public String scope;
        public MPacket[] packets;

        public MBatch() {
        }
    }

    static final TypeInformation<MBatch> BATCH_TYPE = TypeInformation.of(MBatch.class);

    static FlowMeter<MPacket, String> timedMeter(long capacity, int stash) {
        return meterOf().timestamps(p -> p.ts)
                .capacity(capacity).stashCapacity(stash)
                .idleTimeout(Duration.ofMillis(IDLE)).activeTimeout(Duration.ofMillis(ACTIVE))
                .tick(Duration.ofMillis(TICK)).seed(11).build();
    }

    /** Batches of consecutive packets of one scope (no watermark between) give the records of single packets. */
    @ParameterizedTest(name = "seed {0}, {1}, capacity {2}")
    @CsvSource({
        "31, heap, 4096",
        "32, rocksdb, 4096",
        "33, heap, 6",
        "34, rocksdb, 6",
    })
    void batchesGiveTheRecordsOfSinglePackets(long seed, String backend, long capacity) throws Exception {
        List<Event> events = stream(seed, 4_000, 2, 40, 1_000_000, 1_500, 700);
        FlowMeter<MPacket, String> meter = timedMeter(capacity, capacity < 100 ? 2 : 64);
        Harnesses.Metrics singleMetrics = new Harnesses.Metrics();
        List<List<MeteredFlow<String>>> single = new ArrayList<>();
        try (var h = open(meter, backend, singleMetrics)) {
            h.open();
            List<MeteredFlow<String>> interval = new ArrayList<>();
            for (Event e : events) {
                if (e.p != null) {
                    h.processElement(new StreamRecord<>(e.p)); // no Flink timestamp: the selector's
                } else {
                    interval.addAll(drain(h));
                    single.add(Packets.canonical(interval));
                    interval = new ArrayList<>();
                    h.processWatermark(e.wm);
                }
                interval.addAll(drain(h));
            }
            single.add(Packets.canonical(interval));
        }
        Harnesses.Metrics batchMetrics = new Harnesses.Metrics();
        List<List<MeteredFlow<String>>> batched = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(seed);
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(128).setParallelism(1)
                .setSubtaskIndex(0).setMetricGroup(batchMetrics).build();
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(
                meter.batchFunction(BATCH_TYPE, TYPE, (MBatch b, java.util.function.Consumer<? super MPacket> each) -> {
                    for (MPacket p : b.packets) {
                        each.accept(p);
                    }
                })), (MBatch b) -> b.scope, Types.STRING, env)) {
            h.setStateBackend(backend(backend));
            h.setup(meter.outputType().createSerializer(new SerializerConfigImpl()));
            h.open();
            List<MeteredFlow<String>> interval = new ArrayList<>();
            List<MPacket> pending = new ArrayList<>();
            int limit = 1 + r.nextInt(8);
            for (int i = 0; i <= events.size(); i++) {
                Event e = i < events.size() ? events.get(i) : null;
                boolean cut = e == null || e.p == null || (!pending.isEmpty()
                        && (!pending.get(0).scope.equals(e.p.scope) || pending.size() >= limit));
                if (cut && !pending.isEmpty()) {
                    MBatch b = new MBatch();
                    b.scope = pending.get(0).scope;
                    b.packets = pending.toArray(new MPacket[0]);
                    h.processElement(new StreamRecord<>(b));
                    pending.clear();
                    limit = 1 + r.nextInt(8);
                }
                if (e == null) {
                    break;
                }
                if (e.p != null) {
                    pending.add(e.p);
                } else {
                    interval.addAll(h.extractOutputValues());
                    h.getOutput().clear();
                    batched.add(Packets.canonical(interval));
                    interval = new ArrayList<>();
                    h.processWatermark(e.wm);
                }
                interval.addAll(h.extractOutputValues());
                h.getOutput().clear();
            }
            batched.add(Packets.canonical(interval));
        }
        assertThat(batched).hasSameSizeAs(single);
        for (int i = 0; i < single.size(); i++) {
            assertThat(batched.get(i)).as("interval %d", i).isEqualTo(single.get(i));
        }
        for (String name : List.of("itemsProcessed", "lateRecords", "flowsExported", "evictions", "flowsIdleTimeout",
                "flowsActiveTimeout", "flowsFlushed", "malformedRecords")) {
            assertThat(batchMetrics.count(name)).as(name).isEqualTo(singleMetrics.count(name));
        }
    }

    /** IPV4_ONLY: IPv6 packets are malformed (side output, counted), the IPv4 ones follow the model exactly. */
    @ParameterizedTest(name = "seed {0}, {1}")
    @CsvSource({"41, heap", "42, rocksdb"})
    void ipv4OnlyTablesRejectIpv6AndMeterTheRest(long seed, String backend) throws Exception {
        List<Event> events = stream(seed, 4_000, 3, 30, 500_000, 1_500, 700);
        FlowMeter<MPacket, String> meter = meterOf()
                .keyFormat(io.linerate.sketches.flowtable.FlowKeyFormat.IPV4_ONLY)
                .capacity(4_096).idleTimeout(Duration.ofMillis(IDLE)).activeTimeout(Duration.ofMillis(ACTIVE))
                .tick(Duration.ofMillis(TICK)).seed(11).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        Model model = new Model();
        long v6 = 0;
        List<MeteredFlow<String>> all = new ArrayList<>();
        try (var h = open(meter, backend, metrics)) {
            h.open();
            for (int i = 0; i < events.size(); i++) {
                Event e = events.get(i);
                feed(h, e);
                if (e.p != null && e.p.v6) {
                    v6++;
                    if (e.p.ts < model.wm) {
                        // not metered: not late either
                    }
                    continue;
                }
                model.step(e, i);
            }
            all.addAll(h.extractOutputValues());
            assertThat(h.getSideOutput(meter.malformedTag(TYPE))).hasSize((int) v6);
        }
        List<MeteredFlow<String>> expected = model.out.stream().map(Rec::flow).toList();
        assertThat(Packets.canonical(all)).isEqualTo(Packets.canonical(new ArrayList<>(expected)));
        assertThat(metrics.count("malformedRecords")).isEqualTo(v6);
        assertThat(metrics.count("lateRecords")).isEqualTo(model.late);
    }

    /** tableBytes() (the cache's unit, memoryBudget's measure) is the table's memoryBytes(). */
    @ParameterizedTest(name = "{0} {1} {2} stash {3}")
    @CsvSource({
        "1, SECOND_CHANCE, IPV4_AND_IPV6, 64",
        "1000, STANDARD_2, IPV4_ONLY, 0",
        "100000, SECOND_CHANCE_2, IPV4_AND_IPV6, 7",
        "12345, CONSERVATIVE, IPV4_ONLY, 64",
        "777, EXTREME_SECOND_CHANCE, IPV4_AND_IPV6, 65536",
    })
    void tableBytesIsWhatATableTakes(long capacity, io.linerate.sketches.flowtable.InsertionScheme scheme,
                                     io.linerate.sketches.flowtable.FlowKeyFormat format, int stash) {
        FlowMeter<MPacket, String> meter = FlowMeter.<MPacket>builder().scope(p -> p.scope, Types.STRING)
                .packets((p, s) -> s.ipv4(0, 0, 0, 0, 0)).bytes(p -> p.len).capacity(capacity).scheme(scheme)
                .keyFormat(format).stashCapacity(stash).build();
        assertThat(meter.tableBytes()).isEqualTo(meter.newTable(null).memoryBytes());
        FlowMeter<MPacket, String> budgeted = FlowMeter.<MPacket>builder().scope(p -> p.scope, Types.STRING)
                .packets((p, s) -> s.ipv4(0, 0, 0, 0, 0)).bytes(p -> p.len).memoryBudget(meter.tableBytes())
                .scheme(scheme).keyFormat(format).stashCapacity(stash).build();
        assertThat(budgeted.capacity()).isGreaterThanOrEqualTo(capacity);
        assertThat(budgeted.newTable(null).memoryBytes()).isLessThanOrEqualTo(meter.tableBytes());
    }
}
