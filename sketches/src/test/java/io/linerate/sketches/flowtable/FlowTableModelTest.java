package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FlowTable} against an exact {@link HashMap} model under long random sequences of packets (IPv4 and
 * IPv6, out-of-order timestamps), {@code remove}, {@code removeLazily}, {@code rebuild}, {@code advanceTime},
 * {@code flush} and byte-image round trips, over every insertion scheme, both overflow policies, with and
 * without the summary, on tiny tables with tiny stashes and short timeouts, so that timeouts, moves,
 * overflow and eviction all happen often.
 *
 * <p>Property-based, with generated sequences from fixed seeds: 48 cases (key format × scheme × policy ×
 * summary), each drawing its table shape (capacity 4..48 flows, Table 5.1 sizes for d = 3..5 or explicit
 * bucket counts, stash 0..4, 0..2 user slots, sweep 0..4 slots per update, idle timeout 10..79 and active
 * timeout 20..199 or off) and a sequence of operations from its seed: 8,000 by default, so each case still
 * draws about 24 flushes and 56 image round trips (3 and 7 per 1,000 operations) on a table of at most 48
 * flows, and a case whose sequence did not export by idle timeout, remove, flush, round-trip and overflow
 * fails; 16,000 (the length this test had before 2026-11-28) with {@code -Pmodel-full} (the system property
 * {@code linerate.model.scale=full}). The sequences
 * come from {@link SplittableRandom} under JUnit's {@code @ParameterizedTest} rather than a property-testing library:
 * the model needs a generator of its own anyway, and instead of shrinking, a failure names the seed, the
 * table's configuration, the operation index and the last 40 operations with their results and exports,
 * which replays it exactly.
 *
 * <p>The model does not guess which flow the sweep picks; it lets the table choose and checks that the
 * choice is legal and exact: every exported record must be the model's open record for that key, field for
 * field (packets, bytes, OR of TCP flags, first and last timestamp, user slots), with a reason the documented
 * semantics allow at that moment: an idle or active export only once that timeout has passed by the table's
 * "now" (the largest timestamp seen); EVICTED only for a packet of a new flow when the stash is full, and
 * then, under EVICT_LEAST_RECENT, the least recently updated of the live flows in the new flow's d buckets
 * and the stash, or under EXPORT_NEW the new flow's one-packet record; REMOVED only from remove; FLUSHED only
 * from flush, for every live flow. A packet of a live flow whose timeout has passed must export the old
 * record first, and the handle an update returns must name the packet's flow. After every operation the
 * table's live flows must equal the model's open records, which implies the invariants also checked
 * explicitly: every packet and byte is in a live entry or an exported record, globally and per key (with the
 * OR of flags and the timestamp range of what was sent); no key has two live entries; size() is the number
 * of live entries and at most slots(); memoryBytes() never changes; no exported record is empty. At random
 * points the table is written to an image and read back; the sequence continues on the copy under the model,
 * with the original in lockstep for 250 operations (same results, same exports, same image at the end).
 */
class FlowTableModelTest {

    /** Operations per case (see the class comment). */
    private static final int OPS = "full".equals(System.getProperty("linerate.model.scale", "reduced").trim())
            ? 16_000 : 8_000;
    private static final int SHADOW_OPS = 250;

    static Stream<Arguments> cases() {
        return everyConfiguration(0x5EED_F10E_7AB1EL, 0x632BE59BD9B4E019L);
    }

    /**
     * (scheme, policy, summary, key format, seed) for every scheme × policy × summary × key format, the seeds
     * drawn from {@code seed} by a linear congruential step with {@code increment}.
     */
    static Stream<Arguments> everyConfiguration(long seed, long increment) {
        List<Arguments> all = new ArrayList<>();
        for (FlowKeyFormat format : FlowKeyFormat.values()) {
            for (InsertionScheme scheme : InsertionScheme.values()) {
                for (OverflowPolicy policy : OverflowPolicy.values()) {
                    for (boolean summary : new boolean[] {false, true}) {
                        seed = seed * 0x9E3779B97F4A7C15L + increment;
                        all.add(Arguments.of(scheme, policy, summary, format, seed));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} summary={2} {3} seed={4}")
    @MethodSource("cases")
    void agreesWithAnExactModel(InsertionScheme scheme, OverflowPolicy policy, boolean summary,
                                FlowKeyFormat format, long seed) {
        Run run = new Run(scheme, policy, summary, format, seed);
        run.run(OPS);
        // the sequence must have exercised what it is meant to
        // with idle >= active, a flow's active deadline always comes first (first <= last): no idle exports
        if (run.idle < run.active) {
            assertThat(run.exportCounts[ExportReason.IDLE_TIMEOUT.ordinal()]).as("idle exports").isPositive();
        }
        assertThat(run.exportCounts[ExportReason.REMOVED.ordinal()]).as("removals").isPositive();
        assertThat(run.exportCounts[ExportReason.FLUSHED.ordinal()]).as("flushed").isPositive();
        assertThat(run.roundTrips).as("image round trips").isPositive();
        assertThat(run.overflowingPackets).as("packets of new flows that found no room").isPositive();
    }

    /**
     * One traced step: the operation (an {@link Op} or a label), its result and exports. Kept as objects
     * (all immutable) and turned into text only when a check fails: formatting keys and records at every
     * operation was about a fifth of this test's time.
     */
    static final class Step {
        final int index;
        final Object what;
        long result;
        List<?> exports; // null until the operation returned

        Step(int index, Object what) {
            this.index = index;
            this.what = what;
        }

        void done(long result, List<?> exports) {
            this.result = result;
            this.exports = List.copyOf(exports); // the list itself is cleared after each operation
        }

        @Override
        public String toString() {
            return "#" + index + " " + what + (exports == null ? "" : " -> " + result + " " + exports);
        }
    }

    /** One exported record, copied out of the reusable view. */
    record Rec(FiveTuple key, ExportReason reason, long packets, long bytes, int flags, long first, long last,
               long user0, long user1) {

        static Rec of(FlowRecord r, int userSlots) {
            return new Rec(r.key(), r.reason(), r.packets(), r.bytes(), r.tcpFlags(), r.firstTimestamp(),
                    r.lastTimestamp(), userSlots > 0 ? r.userSlot(0) : 0, userSlots > 1 ? r.userSlot(1) : 0);
        }
    }

    /** The model's open record of one live flow. */
    static final class ModelFlow {
        long packets;
        long bytes;
        int flags;
        long first;
        long last;
        long user0; // the test adds each packet's bytes to user slot 0
        long user1; // and sets user slot 1 to the packet's timestamp + 1
        int visited; // the full check that last found this flow's live entry (see Run.checkTable)

        boolean sameAs(Rec r, int userSlots) {
            return packets == r.packets && bytes == r.bytes && flags == r.flags && first == r.first
                    && last == r.last && (userSlots < 1 || user0 == r.user0) && (userSlots < 2 || user1 == r.user1);
        }

        /** As {@link #sameAs(Rec, int)}, on the table's view without copying it. */
        boolean sameAs(FlowRecord r, int userSlots) {
            return packets == r.packets() && bytes == r.bytes() && flags == r.tcpFlags()
                    && first == r.firstTimestamp() && last == r.lastTimestamp()
                    && (userSlots < 1 || user0 == r.userSlot(0)) && (userSlots < 2 || user1 == r.userSlot(1));
        }

        @Override
        public String toString() {
            return "ModelFlow[packets=" + packets + ", bytes=" + bytes + ", flags=0x" + Integer.toHexString(flags)
                    + ", first=" + first + ", last=" + last + ", user0=" + user0 + ", user1=" + user1 + "]";
        }
    }

    /** Per key: what was sent, and what came out in exported records. */
    static final class Totals {
        long packets;
        long bytes;
        int flags;
        long minTs = Long.MAX_VALUE;
        long maxTs = Long.MIN_VALUE;

        void add(long p, long b, int f, long first, long last) {
            packets += p;
            bytes += b;
            flags |= f;
            minTs = Math.min(minTs, first);
            maxTs = Math.max(maxTs, last);
        }
    }

    enum Kind { PACKET, REMOVE, REMOVE_LAZILY, REBUILD, ADVANCE, FLUSH, ROUND_TRIP }

    record Op(Kind kind, FiveTuple key, int flags, long bytes, long ts, int maxSlots, boolean primitive) {
        @Override
        public String toString() {
            switch (kind) {
                case PACKET:
                    return "packet " + key + " flags=0x" + Integer.toHexString(flags) + " bytes=" + bytes + " ts=" + ts;
                case REMOVE:
                case REMOVE_LAZILY:
                    return kind + " " + key;
                case ADVANCE:
                    return "advanceTime(" + ts + ", " + maxSlots + ")";
                default:
                    return kind.toString();
            }
        }
    }

    static final class Run {
        final SplittableRandom rnd;
        final long seed;
        final OverflowPolicy policy;
        final InsertionScheme scheme;
        final int userSlots;
        final long idle;
        final long active;
        final String config;
        final List<FiveTuple> universe = new ArrayList<>();

        FlowTable table;
        List<Rec> tableExports = new ArrayList<>();
        FlowTable shadow; // the table an image was taken of, run in lockstep with the one read back
        List<Rec> shadowExports;
        int shadowOpsLeft;
        final long memoryBytes;
        final MultilevelTable placement;
        final ItemHasher hasher;

        final Map<FiveTuple, ModelFlow> live = new HashMap<>();
        final Map<FiveTuple, Totals> sent = new HashMap<>();
        final Map<FiveTuple, Totals> exported = new HashMap<>();
        final long[] exportCounts = new long[ExportReason.values().length];
        long now = Long.MIN_VALUE;
        long clock = 1_000;
        int tickPercent;
        long packetsSent;
        long bytesSent;
        long packetsExported;
        long bytesExported;
        long newFlowsMin;
        long newFlowsMax;
        long overflowingPackets;
        int roundTrips;
        int opIndex;
        int fullChecks;
        final ArrayDeque<Step> trace = new ArrayDeque<>();

        Run(InsertionScheme scheme, OverflowPolicy policy, boolean summary, FlowKeyFormat format, long seed) {
            this.seed = seed;
            this.rnd = new SplittableRandom(seed);
            this.policy = policy;
            this.scheme = scheme;
            this.userSlots = rnd.nextInt(3);
            this.idle = rnd.nextInt(20) == 0 ? Long.MAX_VALUE : 10 + rnd.nextInt(70);
            this.active = rnd.nextInt(10) == 0 ? Long.MAX_VALUE : 20 + rnd.nextInt(180);
            FlowTable.Builder b = FlowTable.builder().scheme(scheme).overflowPolicy(policy).summary(summary)
                    .keyFormat(format).userSlots(userSlots).idleTimeout(idle).activeTimeout(active)
                    .stashCapacity(rnd.nextInt(5)).sweepSlotsPerUpdate(rnd.nextInt(5)).seed(rnd.nextLong())
                    .capacity(4 + rnd.nextInt(45));
            if (rnd.nextInt(4) == 0) { // an explicit layout, sometimes with few or many levels
                int levels = (scheme == InsertionScheme.STANDARD || scheme == InsertionScheme.STANDARD_2 ? 1 : 2)
                        + rnd.nextInt(5);
                int[] buckets = new int[levels];
                for (int i = 0; i < levels; i++) {
                    buckets[i] = 1 + rnd.nextInt(8);
                }
                b.buckets(buckets);
            } else {
                b.levels(3 + rnd.nextInt(3));
            }
            List<Rec> exports = tableExports; // each table's exporter fills a list of its own
            table = b.exporter(r -> exports.add(Rec.of(r, userSlots))).build();
            memoryBytes = table.memoryBytes();
            placement = new MultilevelTable(table.layout(), scheme, NO_OCCUPANTS, null); // for bucketSlot only
            hasher = ItemHasher.seeded(table.seed());
            config = table + " userSlots=" + userSlots + " idle=" + idle + " active=" + active + " sweep="
                    + b.sweepSlotsPerUpdate + " policy=" + policy + " summary=" + summary + " seed=" + seed;
            int keys = Math.max(8, table.slots() * (2 + rnd.nextInt(4)));
            Set<FiveTuple> distinct = new HashSet<>();
            while (distinct.size() < keys) {
                FiveTuple k = randomKey(format);
                if (distinct.add(k)) {
                    universe.add(k);
                }
                if (format == FlowKeyFormat.IPV4_AND_IPV6 && !k.isIpv6() && rnd.nextInt(8) == 0) {
                    // the IPv6 key with the same low address words and ports: a different flow
                    FiveTuple twin = FiveTuple.ipv6(0, k.srcLow(), 0, k.dstLow(), k.srcPort(), k.dstPort(),
                            k.protocol());
                    if (distinct.add(twin)) {
                        universe.add(twin);
                    }
                }
            }
        }

        FiveTuple randomKey(FlowKeyFormat format) {
            int port = rnd.nextInt(4);
            int sp = port == 0 ? 0 : port == 1 ? 65535 : rnd.nextInt(65536);
            int dp = rnd.nextInt(3) == 0 ? 443 : rnd.nextInt(65536);
            int proto = rnd.nextInt(10) == 0 ? rnd.nextInt(256) : rnd.nextBoolean() ? 6 : 17;
            if (format == FlowKeyFormat.IPV4_AND_IPV6 && rnd.nextInt(5) < 2) {
                return FiveTuple.ipv6(rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), sp, dp, proto);
            }
            int src = rnd.nextInt(16) == 0 ? 0 : rnd.nextInt(16) == 0 ? -1 : rnd.nextInt();
            return FiveTuple.ipv4(src, rnd.nextInt(), sp, dp, proto);
        }

        FiveTuple someKey() {
            double u = rnd.nextDouble();
            return universe.get((int) (u * u * universe.size())); // skewed: low indexes are hot flows
        }

        FiveTuple someLiveKey() {
            for (int i = 0; i < 8; i++) {
                FiveTuple k = someKey();
                if (live.containsKey(k)) {
                    return k;
                }
            }
            return someKey();
        }

        Op nextOp() {
            if (opIndex % 400 == 0) { // phases: bursts at one instant fill the table, slow phases let flows expire
                tickPercent = new int[] {0, 5, 30, 60, 90}[rnd.nextInt(5)];
            }
            if (rnd.nextInt(100) < tickPercent) {
                clock += 1 + rnd.nextInt(3);
            }
            if (rnd.nextInt(500) == 0) {
                clock += rnd.nextBoolean() ? Math.min(active, 1_000_000) : Math.min(idle, 1_000_000) * 3;
            }
            int p = rnd.nextInt(1000);
            if (p < 860) {
                long ts = rnd.nextInt(12) == 0 ? clock - rnd.nextLong(Math.min(idle, 1_000) * 2 + 1) : clock;
                int flags = rnd.nextInt(3) == 0 ? 0 : 1 << rnd.nextInt(16);
                long bytes = rnd.nextInt(50) == 0 ? 0 : 40 + rnd.nextInt(1460);
                return new Op(Kind.PACKET, someKey(), flags, bytes, ts, 0, rnd.nextBoolean());
            } else if (p < 890) {
                return new Op(Kind.REMOVE, someLiveKey(), 0, 0, 0, 0, false);
            } else if (p < 925) {
                return new Op(Kind.REMOVE_LAZILY, someLiveKey(), 0, 0, 0, 0, false);
            } else if (p < 940) {
                return new Op(Kind.REBUILD, null, 0, 0, 0, 0, false);
            } else if (p < 990) {
                long ts = clock - rnd.nextInt(20);
                return new Op(Kind.ADVANCE, null, 0, 0, ts, rnd.nextInt(table.slots() + 3), false);
            } else if (p < 993) {
                return new Op(Kind.FLUSH, null, 0, 0, 0, 0, false);
            } else {
                return new Op(Kind.ROUND_TRIP, null, 0, 0, 0, 0, false);
            }
        }

        void run(int ops) {
            for (opIndex = 0; opIndex < ops; opIndex++) {
                Op op = nextOp();
                if (op.kind == Kind.ROUND_TRIP) {
                    roundTrip();
                    continue;
                }
                long liveLazily = table.lazilyDeleted();
                int stashBefore = table.stashSize();
                Map<FiveTuple, Long> candidates = op.kind == Kind.PACKET && !live.containsKey(op.key)
                        ? displaceable(op.key) : null;
                Step step = remember(op);
                long result = apply(table, op, tableExports);
                step.done(result, tableExports);
                if (shadow != null) {
                    long shadowResult = apply(shadow, op, shadowExports);
                    check(shadowResult == result && shadowExports.equals(tableExports),
                            () -> "table read back from an image diverged from the original: " + result + " "
                                    + tableExports + " vs original " + shadowResult + " " + shadowExports);
                    shadowExports.clear();
                    if (--shadowOpsLeft == 0) {
                        compareWithShadow();
                    }
                }
                for (Rec r : tableExports) {
                    check(r.packets > 0, () -> "exported an empty record " + r);
                }
                switch (op.kind) {
                    case PACKET:
                        modelPacket(op, result, liveLazily, stashBefore, candidates);
                        break;
                    case REMOVE:
                    case REMOVE_LAZILY:
                        modelRemove(op, result);
                        break;
                    case REBUILD:
                        check(tableExports.isEmpty(), () -> "rebuild exported " + tableExports);
                        check(result >= 0 && table.lazilyDeleted() == 0, () -> "rebuild left "
                                + table.lazilyDeleted() + " lazily deleted entries, moves " + result);
                        break;
                    case ADVANCE:
                        now = Math.max(now, op.ts);
                        int i = 0;
                        for (Rec r : tableExports) {
                            modelTimeout(r);
                            i++;
                        }
                        int exports = i;
                        check(result == exports, () -> "advanceTime returned " + result + ", exported " + exports);
                        break;
                    case FLUSH:
                        modelFlush();
                        break;
                    default:
                        throw new AssertionError(op);
                }
                tableExports.clear();
                checkTable(op.kind != Kind.PACKET || opIndex % 4 == 0);
                if (opIndex % 97 == 0) {
                    checkPerKey();
                }
            }
            if (shadow != null) {
                compareWithShadow();
            }
            checkPerKey();
        }

        /** Applies {@code op} to {@code t}; the exports land in {@code exports}. */
        long apply(FlowTable t, Op op, List<Rec> exports) {
            switch (op.kind) {
                case PACKET: {
                    FiveTuple k = op.key;
                    int handle;
                    if (!op.primitive) {
                        handle = t.update(k, op.flags, op.bytes, op.ts);
                    } else if (k.isIpv6()) {
                        handle = t.updateIpv6(k.srcHigh(), k.srcLow(), k.dstHigh(), k.dstLow(), k.srcPort(),
                                k.dstPort(), k.protocol(), op.flags, op.bytes, op.ts);
                    } else {
                        handle = t.updateIpv4((int) k.srcLow(), (int) k.dstLow(), k.srcPort(), k.dstPort(),
                                k.protocol(), op.flags, op.bytes, op.ts);
                    }
                    if (handle >= 0) {
                        // the handle must name this packet's flow until the next change to the table
                        FiveTuple at = liveKeyAt(t, handle);
                        check(k.equals(at), () -> "update returned handle " + handle + " which holds " + at
                                + ", not " + k);
                        check(t.find(k) == handle, () -> "find disagrees with the update's handle " + handle);
                        if (userSlots > 0) {
                            t.addToUserSlot(handle, 0, op.bytes);
                        }
                        if (userSlots > 1) {
                            t.setUserSlot(handle, 1, op.ts + 1);
                        }
                    }
                    return handle;
                }
                case REMOVE:
                    return t.remove(op.key) ? 1 : 0;
                case REMOVE_LAZILY:
                    return t.removeLazily(op.key) ? 1 : 0;
                case REBUILD:
                    return t.rebuild();
                case ADVANCE:
                    return t.advanceTime(op.ts, op.maxSlots);
                case FLUSH:
                    t.flush();
                    return 0;
                default:
                    throw new AssertionError(op);
            }
        }

        /** Key → last timestamp of the live flows a new flow {@code key} could displace: its d buckets, the stash. */
        Map<FiveTuple, Long> displaceable(FiveTuple key) {
            Map<FiveTuple, Long> out = new HashMap<>();
            TableLayout layout = table.layout();
            long h1 = hasher.hash(key);
            long h2 = ItemHasher.h2(h1);
            for (int level = 0; level < layout.levels(); level++) {
                int base = placement.bucketSlot(level, h1, h2);
                for (int s = base; s < base + layout.bucketCapacity(); s++) {
                    addLive(out, s);
                }
            }
            for (int s = layout.tableSlots(); s < layout.tableSlots() + table.stashSize(); s++) {
                addLive(out, s);
            }
            return out;
        }

        private void addLive(Map<FiveTuple, Long> out, int slot) {
            if (liveKeyAt(table, slot) != null) {
                FlowRecord r = table.record(slot);
                out.put(r.key(), r.lastTimestamp());
            }
        }

        static final Occupants NO_OCCUPANTS = new Occupants() {
            @Override
            public long hashOf(int slot) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void move(int from, int to) {
                throw new UnsupportedOperationException();
            }
        };

        static FiveTuple liveKeyAt(FlowTable t, int slot) {
            try {
                return t.record(slot).key();
            } catch (IllegalArgumentException e) {
                return null; // "holds no live flow"
            }
        }

        // ------------------------------------------------------------ the model

        /** Expired for the timeout whose deadline came first (idle on a tie), or null. */
        ExportReason expiry(ModelFlow f) {
            boolean idlePassed = now - f.last >= idle; // differences: a disabled timeout is Long.MAX_VALUE
            boolean activePassed = now - f.first >= active;
            if (idlePassed && activePassed) {
                return f.last - f.first <= active - idle ? ExportReason.IDLE_TIMEOUT : ExportReason.ACTIVE_TIMEOUT;
            }
            return idlePassed ? ExportReason.IDLE_TIMEOUT : activePassed ? ExportReason.ACTIVE_TIMEOUT : null;
        }

        /**
         * A packet: the update first runs its share of the sweep (timeout exports of any live flows, this
         * one's included), then a live flow past a timeout exports its old record, or a new flow that finds
         * no room exports one record marked EVICTED, and then the packet is counted.
         */
        void modelPacket(Op op, long handle, long lazilyBefore, int stashBefore, Map<FiveTuple, Long> candidates) {
            now = Math.max(now, op.ts);
            packetsSent++;
            bytesSent += op.bytes;
            sent.computeIfAbsent(op.key, k -> new Totals()).add(1, op.bytes, op.flags, op.ts, op.ts);
            List<Rec> ex = tableExports;
            boolean wasLive = live.containsKey(op.key);
            boolean evicted = false;
            boolean exportedAtOnce = false;
            for (int i = 0; i < ex.size(); i++) {
                Rec r = ex.get(i);
                if (r.reason != ExportReason.EVICTED) {
                    modelTimeout(r);
                    continue;
                }
                check(i == ex.size() - 1 && !live.containsKey(op.key),
                        () -> "EVICTED must be the last export of a packet of a new flow: " + ex);
                evicted = true;
                overflowingPackets++;
                // no room means: the stash was full (the sweep before only shrinks it), and it still is, unless
                // the victim was in the stash and the second placement found a bucket after all, which only
                // CONSERVATIVE can (its first attempt marks the occupant it failed to move, so the second one
                // tries the next)
                int stashAfter = table.stashSize();
                int stashCap = table.stashCapacity();
                check(stashBefore == stashCap && (stashAfter == stashCap
                        || (scheme == InsertionScheme.CONSERVATIVE && stashAfter == stashCap - 1)),
                        () -> "a new flow overflowed with room in the stash: " + stashBefore + " before, "
                                + stashAfter + " after, capacity " + stashCap);
                if (r.key.equals(op.key)) { // exported at once without entering the table
                    check(policy == OverflowPolicy.EXPORT_NEW || lazilyBefore > 0,
                            () -> "EVICT_LEAST_RECENT exported the new flow's packet although only live flows "
                                    + "blocked it: " + r);
                    check(r.packets == 1 && r.bytes == op.bytes && r.flags == op.flags && r.first == op.ts
                            && r.last == op.ts && r.user0 == 0 && r.user1 == 0,
                            () -> "the one-packet record of an overflowing new flow is wrong: " + r);
                    count(r);
                    exportedAtOnce = true;
                } else {
                    check(policy == OverflowPolicy.EVICT_LEAST_RECENT, () -> "EXPORT_NEW evicted another flow: "
                            + r);
                    // the least recently updated of the flows in the new flow's d buckets and the stash (less
                    // those the sweep just exported)
                    for (int j = 0; j < i; j++) {
                        candidates.remove(ex.get(j).key);
                    }
                    long least = candidates.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
                    check(candidates.containsKey(r.key) && r.last == least, () -> "evicted " + r + ", but the "
                            + "least recent flow it could displace was last updated at " + least + ": " + candidates);
                    ModelFlow victim = live.get(r.key);
                    check(victim == null || expiry(victim) == null, () -> "evicted " + r + ", which had already "
                            + "timed out: it leaves with its timeout as the reason");
                    close(r);
                }
            }
            ModelFlow f = live.get(op.key);
            if (f == null) {
                // a flow that timed out in this update was either swept (and re-inserted) or restarted in place;
                // a packet exported at once started no entry
                if (!exportedAtOnce) {
                    newFlowsMax++;
                    if (!wasLive || evicted) {
                        newFlowsMin++;
                    }
                }
            } else {
                ExportReason due = expiry(f);
                check(due == null, () -> "a packet of a flow past its " + due + " did not export the old record "
                        + "first: " + ex);
            }
            if (exportedAtOnce) {
                check(handle == -1, () -> "an exported-at-once packet returned handle " + handle);
                return;
            }
            check(handle >= 0, () -> "a packet that was not exported returned handle " + handle);
            if (f == null) {
                f = new ModelFlow();
                f.first = op.ts;
                f.last = op.ts;
                live.put(op.key, f);
            }
            f.packets++;
            f.bytes += op.bytes;
            f.flags |= op.flags;
            f.first = Math.min(f.first, op.ts);
            f.last = Math.max(f.last, op.ts);
            f.user0 += userSlots > 0 ? op.bytes : 0;
            f.user1 = userSlots > 1 ? op.ts + 1 : 0;
        }

        /** An export by the sweep: legal only for a live flow whose timeout has passed, and exact. */
        void modelTimeout(Rec r) {
            ModelFlow f = live.get(r.key);
            check(f != null, () -> "exported a flow that is not live: " + r);
            ExportReason due = expiry(f);
            check(due == r.reason, () -> "exported " + r + " with reason " + r.reason + " but by now=" + now
                    + " the model says " + due + " for " + f);
            close(r);
        }

        void modelRemove(Op op, long result) {
            List<Rec> ex = tableExports;
            boolean wasLive = live.containsKey(op.key);
            check(result == (wasLive ? 1 : 0), () -> op + " returned " + result + ", model has it live: " + wasLive);
            if (wasLive) {
                check(ex.size() == 1 && ex.get(0).reason == ExportReason.REMOVED && ex.get(0).key.equals(op.key),
                        () -> op + " exported " + ex);
                close(ex.get(0));
            } else {
                check(ex.isEmpty(), () -> op + " of an absent flow exported " + ex);
            }
        }

        void modelFlush() {
            Set<FiveTuple> seen = new HashSet<>();
            for (Rec r : tableExports) {
                check(r.reason == ExportReason.FLUSHED && seen.add(r.key), () -> "flush exported " + r);
                close(r);
            }
            check(live.isEmpty(), () -> "flush left live flows unexported: " + live.keySet());
            check(table.size() == 0 && table.lazilyDeleted() == 0 && table.stashSize() == 0,
                    () -> "flush left the table non-empty: " + table);
        }

        /** The table exported r for a live flow: it must be the model's open record, exactly; it closes. */
        void close(Rec r) {
            ModelFlow f = live.get(r.key);
            check(f != null, () -> "exported a flow that is not live: " + r);
            check(f.sameAs(r, userSlots), () -> "exported record " + r + " differs from the model's " + f);
            live.remove(r.key);
            count(r);
        }

        void count(Rec r) {
            exportCounts[r.reason.ordinal()]++;
            packetsExported += r.packets;
            bytesExported += r.bytes;
            exported.computeIfAbsent(r.key, k -> new Totals()).add(r.packets, r.bytes, r.flags, r.first, r.last);
        }

        // ------------------------------------------------------------ checks

        /**
         * Global invariants after every operation; with {@code full} (after every operation but a packet,
         * and every fourth packet) also the live entries against the model's, key by key: each entry the
         * table visits must be a live flow of the model, visited once (marked with this check's number in
         * {@link ModelFlow#visited}), equal to the model's open record, and as many as the model has, which
         * together make the two sets of live flows equal.
         */
        void checkTable(boolean full) {
            FlowTable t = table;
            int visit = ++fullChecks;
            long[] livePackets = new long[1];
            long[] liveBytes = new long[1];
            int[] count = new int[1];
            t.forEach(r -> {
                count[0]++;
                livePackets[0] += r.packets();
                liveBytes[0] += r.bytes();
                if (full) {
                    check(r.reason() == null, () -> "forEach view carries a reason: " + Rec.of(r, userSlots));
                    FiveTuple key = r.key();
                    ModelFlow f = live.get(key);
                    check(f != null, () -> "table holds " + Rec.of(r, userSlots) + ", not live in the model");
                    check(f.visited != visit, () -> "two live entries for " + key);
                    f.visited = visit;
                    check(f.sameAs(r, userSlots), () -> "live entry " + Rec.of(r, userSlots) + " differs from the "
                            + "model's " + key + " " + f);
                }
            });
            if (full) {
                check(count[0] == live.size(), () -> "table holds " + count[0] + " live flows, model " + live.size()
                        + "; missing " + live.entrySet().stream().filter(e -> e.getValue().visited != visit)
                                .map(Map.Entry::getKey).toList());
            }
            check(count[0] == live.size(), () -> "table holds " + count[0] + " live flows, model " + live.size());
            check(livePackets[0] + packetsExported == packetsSent && liveBytes[0] + bytesExported == bytesSent,
                    () -> "packets: " + livePackets[0] + " live + " + packetsExported + " exported != " + packetsSent
                            + " sent; bytes: " + liveBytes[0] + " + " + bytesExported + " != " + bytesSent);
            check(t.size() == count[0], () -> "size() " + t.size() + " != live entries " + count[0]);
            check(t.size() <= t.slots() && t.size() + t.lazilyDeleted() <= t.slots()
                    && t.stashSize() <= t.stashCapacity() && t.lazilyDeleted() >= 0,
                    () -> "size " + t.size() + " + lazily deleted " + t.lazilyDeleted() + " > slots " + t.slots()
                            + " or stash " + t.stashSize() + " > " + t.stashCapacity());
            check(t.packets() == packetsSent, () -> "packets() " + t.packets() + " != " + packetsSent);
            for (ExportReason reason : ExportReason.values()) {
                check(t.exports(reason) == exportCounts[reason.ordinal()], () -> "exports(" + reason + ") "
                        + t.exports(reason) + " != " + exportCounts[reason.ordinal()]);
            }
            check(t.evictions() == exportCounts[ExportReason.EVICTED.ordinal()], () -> "evictions()");
            check(t.newFlows() >= newFlowsMin && t.newFlows() <= newFlowsMax, () -> "newFlows() " + t.newFlows()
                    + " not in [" + newFlowsMin + ", " + newFlowsMax + "]");
            check(t.now() == now, () -> "now() " + t.now() + " != " + now);
            check(t.memoryBytes() == memoryBytes, () -> "memoryBytes changed to " + t.memoryBytes());
        }

        /** Per key: live + exported = sent (packets, bytes), flags and timestamp ranges; lookups agree. */
        void checkPerKey() {
            Map<FiveTuple, Rec> entries = new HashMap<>();
            table.forEach(r -> entries.put(r.key(), Rec.of(r, userSlots)));
            for (FiveTuple k : universe) {
                Totals s = sent.getOrDefault(k, new Totals());
                Totals out = new Totals();
                Totals x = exported.get(k);
                if (x != null) {
                    out.add(x.packets, x.bytes, x.flags, x.minTs, x.maxTs);
                }
                Rec c = entries.get(k);
                if (c != null) {
                    out.add(c.packets, c.bytes, c.flags, c.first, c.last);
                }
                check(out.packets == s.packets && out.bytes == s.bytes && out.flags == s.flags
                        && out.minTs == s.minTs && out.maxTs == s.maxTs,
                        () -> k + ": live + exported = " + out.packets + " packets, " + out.bytes + " bytes, flags 0x"
                                + Integer.toHexString(out.flags) + ", ts [" + out.minTs + ", " + out.maxTs + "]; sent "
                                + s.packets + ", " + s.bytes + ", 0x" + Integer.toHexString(s.flags) + ", ["
                                + s.minTs + ", " + s.maxTs + "]");
                int slot = table.find(k);
                check((slot >= 0) == (c != null), () -> "find(" + k + ") = " + slot + " but live: " + (c != null));
                if (shadow != null) { // same lookups on both, so that their summary counters stay equal
                    int there = shadow.find(k);
                    check(there == slot, () -> "find(" + k + ") = " + slot + " but " + there + " in the original");
                }
                if (slot >= 0) {
                    Rec viaFind = Rec.of(table.record(slot), userSlots);
                    check(viaFind.equals(c), () -> "record(find) " + viaFind + " != " + c);
                }
            }
        }

        void roundTrip() {
            roundTrips++;
            if (shadow != null) {
                compareWithShadow();
            }
            byte[] image = table.toByteArray();
            List<Rec> restoredExports = new ArrayList<>();
            FlowTable restored;
            try {
                restored = FlowTable.fromByteArray(image, r -> restoredExports.add(Rec.of(r, userSlots)));
            } catch (IllegalArgumentException e) {
                throw failure("a valid image was rejected: " + e.getMessage(), e);
            }
            check(Arrays.equals(restored.toByteArray(), image), () -> "image of the restored table differs");
            check(restored.memoryBytes() == memoryBytes, () -> "restored memoryBytes " + restored.memoryBytes());
            remember("round trip");
            // carry on with the restored table under the model, and the original beside it in lockstep
            shadow = table;
            shadowExports = tableExports;
            table = restored;
            tableExports = restoredExports;
            shadowOpsLeft = SHADOW_OPS;
            checkTable(true);
            checkPerKey();
        }

        void compareWithShadow() {
            byte[] mine = table.toByteArray();
            byte[] theirs = shadow.toByteArray();
            check(Arrays.equals(mine, theirs), () -> "after " + SHADOW_OPS + " operations in lockstep the restored "
                    + "table's image differs from the original's at byte " + Arrays.mismatch(mine, theirs) + " of "
                    + mine.length + " (" + table.layout().levels() + " levels): restored " + table + " summary "
                    + table.summaryLookups() + "/" + table.summaryFalsePositives() + "/" + table.summaryFailures()
                    + " original " + shadow + " summary " + shadow.summaryLookups() + "/"
                    + shadow.summaryFalsePositives() + "/" + shadow.summaryFailures());
            shadow = null;
        }

        // ------------------------------------------------------------ failure reporting

        Step remember(Object what) {
            if (trace.size() == 40) {
                trace.removeFirst();
            }
            Step step = new Step(opIndex, what);
            trace.addLast(step);
            return step;
        }

        void check(boolean ok, Supplier<String> message) {
            if (!ok) {
                throw failure(message.get(), null);
            }
        }

        AssertionError failure(String message, Throwable cause) {
            StringBuilder sb = new StringBuilder(message).append("\n  at operation #").append(opIndex).append(" of ")
                    .append(config).append("\n  last operations:");
            for (Step s : trace) {
                sb.append("\n    ").append(s);
            }
            return new AssertionError(sb.toString(), cause);
        }
    }
}
