package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
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
 * {@link FlowTable} against an exact model (a {@link HashMap} of key to open record, and every exported record
 * checked against it) with what {@link FlowTableModelTest} does not vary: timeouts and overflow policy changed
 * mid-run ({@code setTimeouts}, {@code setOverflowPolicy}), {@link FlowTable#copy()} and the streamed image
 * ({@code writeImage}/{@code readImage}) each continued in lockstep with the original, timestamps at both ends of
 * the long range (and a jump across more than {@code Long.MAX_VALUE}), up to 8 levels and stashes of up to 8, and
 * per-operation guarantees: at most one move per insertion and none outside insertions, the sweep's bounded work
 * per update, {@code advanceTime(t, slots())} leaving no expired flow, {@code forEach} visiting every live flow
 * once, and a summary that never loses a stored flow (a lookup of every live key after every operation).
 * Fixed seeds: every scheme × policy × summary × key format, each a sequence of 3,000 operations by default, 6,000
 * (the length this test had before 2026-11-28) with {@code -Pmodel-full} (the system property
 * {@code linerate.model.scale=full}).
 */
class FlowTableLifecycleModelTest {

    /** Operations per case (see the class comment). */
    private static final int OPS = "full".equals(System.getProperty("linerate.model.scale", "reduced").trim())
            ? 6_000 : 3_000;
    private static final int LOCKSTEP_OPS = 200;

    static Stream<Arguments> cases() {
        return FlowTableModelTest.everyConfiguration(0x1F_EC7C_1E5EEDL, 0x2545F4914F6CDD1DL);
    }

    @ParameterizedTest(name = "{0} {1} summary={2} {3} seed={4}")
    @MethodSource("cases")
    void agreesWithAnExactModel(InsertionScheme scheme, OverflowPolicy policy, boolean summary, FlowKeyFormat format,
                                long seed) {
        Run run = new Run(scheme, policy, summary, format, seed);
        run.run();
        assertThat(run.lockstepRuns).as("copies and images continued in lockstep").isPositive();
        assertThat(run.timeoutExports).as("timeout exports").isPositive();
    }

    enum Kind { PACKET, REMOVE, REMOVE_LAZILY, REBUILD, ADVANCE, ADVANCE_ALL, FLUSH, TIMEOUTS, POLICY, COPY, IMAGE,
        STREAM }

    record Op(Kind kind, FiveTuple key, int flags, long bytes, long ts, int n, long idle, long active,
              OverflowPolicy policy) {
        @Override
        public String toString() {
            return kind + (key != null ? " " + key : "") + (kind == Kind.PACKET ? " flags=" + flags + " bytes=" + bytes
                    + " ts=" + ts : "") + (kind == Kind.ADVANCE || kind == Kind.ADVANCE_ALL ? " ts=" + ts + " n=" + n
                    : "") + (kind == Kind.TIMEOUTS ? " idle=" + idle + " active=" + active : "")
                    + (kind == Kind.POLICY ? " " + policy : "");
        }
    }

    static final class Run {
        final SplittableRandom rnd;
        final InsertionScheme scheme;
        final int userSlots;
        final int sweep;
        final String config;
        final List<FiveTuple> universe = new ArrayList<>();
        final Map<FiveTuple, FlowTableModelTest.ModelFlow> live = new HashMap<>();
        final ArrayDeque<FlowTableModelTest.Step> trace = new ArrayDeque<>();

        FlowTable table;
        List<FlowTableModelTest.Rec> exports = new ArrayList<>();
        FlowTable twin; // an original (or the source of a copy) run in lockstep
        List<FlowTableModelTest.Rec> twinExports;
        int lockstepLeft;
        int lockstepRuns;
        final long memoryBytes;
        long idle;
        long active;
        OverflowPolicy policy;
        long now = Long.MIN_VALUE;
        long clock;
        long sent;
        long exportedPackets;
        long timeoutExports;
        int opIndex;
        int tableChecks;

        Run(InsertionScheme scheme, OverflowPolicy policy, boolean summary, FlowKeyFormat format, long seed) {
            this.rnd = new SplittableRandom(seed);
            this.scheme = scheme;
            this.policy = policy;
            this.userSlots = rnd.nextInt(3);
            this.sweep = rnd.nextInt(7);
            this.idle = timeout(10, 60);
            this.active = timeout(20, 200);
            // timestamps near either end of the range, or in the middle
            int where = rnd.nextInt(3);
            clock = where == 0 ? Long.MIN_VALUE + 5 : where == 1 ? Long.MAX_VALUE - 5_000_000 : rnd.nextInt(1000);
            FlowTable.Builder b = FlowTable.builder().scheme(scheme).overflowPolicy(policy).summary(summary)
                    .keyFormat(format).userSlots(userSlots).idleTimeout(idle).activeTimeout(active)
                    .stashCapacity(rnd.nextInt(9)).sweepSlotsPerUpdate(sweep).seed(rnd.nextLong())
                    .capacity(4 + rnd.nextInt(60));
            if (rnd.nextInt(3) == 0) {
                boolean one = scheme == InsertionScheme.STANDARD || scheme == InsertionScheme.STANDARD_2;
                int[] buckets = new int[(one ? 1 : 2) + rnd.nextInt(7)];
                for (int i = 0; i < buckets.length; i++) {
                    buckets[i] = 1 + rnd.nextInt(12);
                }
                b.buckets(buckets);
            } else {
                b.levels(3 + rnd.nextInt(3));
            }
            List<FlowTableModelTest.Rec> out = exports;
            table = b.exporter(r -> out.add(FlowTableModelTest.Rec.of(r, userSlots))).build();
            memoryBytes = table.memoryBytes();
            config = table + " userSlots=" + userSlots + " idle=" + idle + " active=" + active + " sweep=" + sweep
                    + " policy=" + policy + " summary=" + summary + " seed=" + seed;
            Set<FiveTuple> distinct = new HashSet<>();
            int keys = Math.max(8, table.slots() * (2 + rnd.nextInt(3)));
            while (distinct.size() < keys) {
                FiveTuple k = format == FlowKeyFormat.IPV4_AND_IPV6 && rnd.nextInt(3) == 0
                        ? FiveTuple.ipv6(rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(),
                                rnd.nextInt(65536), rnd.nextInt(65536), rnd.nextInt(256))
                        : FiveTuple.ipv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), rnd.nextInt(65536),
                                rnd.nextBoolean() ? 6 : 17);
                if (distinct.add(k)) {
                    universe.add(k);
                }
            }
        }

        long timeout(int min, int range) {
            int p = rnd.nextInt(12);
            return p == 0 ? Long.MAX_VALUE : p == 1 ? 1 : min + rnd.nextInt(range);
        }

        FiveTuple someKey() {
            double u = rnd.nextDouble();
            return universe.get((int) (u * u * universe.size()));
        }

        long ts() {
            long back = rnd.nextInt(10) == 0 ? rnd.nextInt(100) : 0;
            return clock - back < clock ? clock - back : clock; // never wraps below Long.MIN_VALUE
        }

        Op nextOp() {
            if (rnd.nextInt(100) < 40 && clock < Long.MAX_VALUE - 1000) {
                clock += rnd.nextInt(3);
            }
            if (rnd.nextInt(3000) == 0 && clock < 0) {
                clock = Long.MAX_VALUE - 4_000_000; // more than Long.MAX_VALUE later than every flow
            }
            int p = rnd.nextInt(1000);
            if (p < 850) {
                return new Op(Kind.PACKET, someKey(), rnd.nextInt(3) == 0 ? 0 : 1 << rnd.nextInt(16),
                        rnd.nextInt(1500), ts(), rnd.nextInt(3), 0, 0, null);
            }
            if (p < 875) {
                return new Op(Kind.REMOVE, someKey(), 0, 0, 0, 0, 0, 0, null);
            }
            if (p < 905) {
                return new Op(Kind.REMOVE_LAZILY, someKey(), 0, 0, 0, 0, 0, 0, null);
            }
            if (p < 920) {
                return new Op(Kind.REBUILD, null, 0, 0, 0, 0, 0, 0, null);
            }
            if (p < 950) {
                return new Op(Kind.ADVANCE, null, 0, 0, ts(), rnd.nextInt(table.slots()), 0, 0, null);
            }
            if (p < 960) {
                return new Op(Kind.ADVANCE_ALL, null, 0, 0, ts(), table.slots() + rnd.nextInt(3), 0, 0, null);
            }
            if (p < 963) {
                return new Op(Kind.FLUSH, null, 0, 0, 0, 0, 0, 0, null);
            }
            if (p < 973) {
                return new Op(Kind.TIMEOUTS, null, 0, 0, 0, 0, timeout(10, 60), timeout(20, 200), null);
            }
            if (p < 980) {
                return new Op(Kind.POLICY, null, 0, 0, 0, 0, 0, 0,
                        OverflowPolicy.values()[rnd.nextInt(OverflowPolicy.values().length)]);
            }
            return new Op(p < 987 ? Kind.COPY : p < 994 ? Kind.IMAGE : Kind.STREAM, null, 0, 0, 0, 0, 0, 0, null);
        }

        void run() {
            for (opIndex = 0; opIndex < OPS; opIndex++) {
                Op op = nextOp();
                FlowTableModelTest.Step step = remember(op);
                if (op.kind == Kind.COPY || op.kind == Kind.IMAGE || op.kind == Kind.STREAM) {
                    replace(op.kind);
                    continue;
                }
                long movesBefore = table.moves();
                long rebuildMovesBefore = table.rebuildMoves();
                int lazily = table.lazilyDeleted();
                long result = apply(table, op, exports);
                step.done(result, exports);
                if (twin != null) {
                    long r2 = apply(twin, op, twinExports);
                    check(r2 == result && twinExports.equals(exports), () -> "lockstep twin diverged: " + r2 + " "
                            + twinExports);
                    twinExports.clear();
                    if (--lockstepLeft == 0) {
                        compareTwin();
                    }
                }
                long moves = table.moves() - movesBefore;
                check(moves <= (op.kind == Kind.PACKET ? 1 : 0), () -> op + " made " + moves + " moves");
                check(op.kind == Kind.REBUILD || table.rebuildMoves() == rebuildMovesBefore,
                        () -> "rebuild moves outside rebuild");
                model(op, result, lazily);
                exports.clear();
                checkTable();
                check(table.unoccupiedSlotsHoldNoKey(), () -> op + " left a key in a slot that holds no flow");
            }
            if (twin != null) {
                compareTwin();
            }
        }

        long apply(FlowTable t, Op op, List<FlowTableModelTest.Rec> out) {
            switch (op.kind) {
                case PACKET: {
                    FiveTuple k = op.key;
                    int h = op.n == 0 ? t.update(k, op.flags, op.bytes, op.ts) : k.isIpv6()
                            ? t.updateIpv6(k.srcHigh(), k.srcLow(), k.dstHigh(), k.dstLow(), k.srcPort(), k.dstPort(),
                                    k.protocol(), op.flags, op.bytes, op.ts)
                            : t.updateIpv4((int) k.srcLow(), (int) k.dstLow(), k.srcPort(), k.dstPort(), k.protocol(),
                                    op.flags, op.bytes, op.ts);
                    if (h >= 0) {
                        check(k.equals(t.record(h).key()), () -> "handle " + h + " holds another flow");
                        if (userSlots > 0) {
                            t.addToUserSlot(h, 0, op.bytes);
                        }
                        if (userSlots > 1) {
                            t.setUserSlot(h, 1, op.ts + 1);
                        }
                    }
                    return h;
                }
                case REMOVE:
                    return t.remove(op.key) ? 1 : 0;
                case REMOVE_LAZILY:
                    return t.removeLazily(op.key) ? 1 : 0;
                case REBUILD:
                    return t.rebuild();
                case ADVANCE:
                case ADVANCE_ALL:
                    return t.advanceTime(op.ts, op.n);
                case FLUSH:
                    t.flush();
                    return 0;
                case TIMEOUTS:
                    t.setTimeouts(op.idle, op.active);
                    return 0;
                case POLICY:
                    t.setOverflowPolicy(op.policy);
                    return 0;
                default:
                    throw new AssertionError(op);
            }
        }

        // ------------------------------------------------------------ the model

        static boolean passed(long now, long since, long timeout) {
            if (timeout == Long.MAX_VALUE) {
                return false;
            }
            BigInteger elapsed = BigInteger.valueOf(now).subtract(BigInteger.valueOf(since));
            return elapsed.compareTo(BigInteger.valueOf(timeout)) >= 0;
        }

        ExportReason expiry(FlowTableModelTest.ModelFlow f) {
            boolean i = passed(now, f.last, idle);
            boolean a = passed(now, f.first, active);
            if (i && a) {
                BigInteger idleAt = BigInteger.valueOf(f.last).add(BigInteger.valueOf(idle));
                BigInteger activeAt = BigInteger.valueOf(f.first).add(BigInteger.valueOf(active));
                return idleAt.compareTo(activeAt) <= 0 ? ExportReason.IDLE_TIMEOUT : ExportReason.ACTIVE_TIMEOUT;
            }
            return i ? ExportReason.IDLE_TIMEOUT : a ? ExportReason.ACTIVE_TIMEOUT : null;
        }

        void model(Op op, long result, int lazilyBefore) {
            switch (op.kind) {
                case PACKET:
                    now = Math.max(now, op.ts);
                    packet(op, result, lazilyBefore);
                    break;
                case REMOVE:
                case REMOVE_LAZILY: {
                    boolean wasLive = live.containsKey(op.key);
                    check(result == (wasLive ? 1 : 0), () -> op + " returned " + result);
                    check(exports.size() == (wasLive ? 1 : 0), () -> op + " exported " + exports);
                    if (wasLive) {
                        check(exports.get(0).reason() == ExportReason.REMOVED, () -> "reason " + exports);
                        close(exports.get(0));
                    }
                    break;
                }
                case REBUILD:
                case TIMEOUTS:
                case POLICY:
                    check(exports.isEmpty(), () -> op + " exported " + exports);
                    if (op.kind == Kind.TIMEOUTS) {
                        idle = op.idle;
                        active = op.active;
                    } else if (op.kind == Kind.POLICY) {
                        policy = op.policy;
                    } else {
                        check(table.lazilyDeleted() == 0, () -> "rebuild left lazily deleted entries");
                    }
                    break;
                case ADVANCE:
                case ADVANCE_ALL:
                    now = Math.max(now, op.ts);
                    check(result == exports.size() && exports.size() <= op.n, () -> op + " returned " + result
                            + ", exported " + exports.size());
                    for (FlowTableModelTest.Rec r : exports) {
                        timedOut(r);
                    }
                    if (op.kind == Kind.ADVANCE_ALL) {
                        for (Map.Entry<FiveTuple, FlowTableModelTest.ModelFlow> e : live.entrySet()) {
                            check(expiry(e.getValue()) == null, () -> "advanceTime(t, slots()) left " + e.getKey()
                                    + " " + e.getValue() + " live past its " + expiry(e.getValue()));
                        }
                    }
                    break;
                case FLUSH:
                    for (FlowTableModelTest.Rec r : exports) {
                        check(r.reason() == ExportReason.FLUSHED, () -> "flush exported " + r);
                        close(r);
                    }
                    check(live.isEmpty() && table.size() == 0, () -> "flush left flows " + live.keySet());
                    break;
                default:
                    throw new AssertionError(op);
            }
        }

        void packet(Op op, long handle, int lazilyBefore) {
            sent += 1;
            int timeouts = 0;
            boolean evicted = false;
            boolean atOnce = false;
            for (int i = 0; i < exports.size(); i++) {
                FlowTableModelTest.Rec r = exports.get(i);
                if (r.reason() == ExportReason.IDLE_TIMEOUT || r.reason() == ExportReason.ACTIVE_TIMEOUT) {
                    timedOut(r);
                    timeouts++;
                    continue;
                }
                check(r.reason() == ExportReason.EVICTED && i == exports.size() - 1 && !live.containsKey(op.key),
                        () -> "a packet exported " + exports);
                evicted = true;
                if (r.key().equals(op.key)) {
                    check(policy == OverflowPolicy.EXPORT_NEW || lazilyBefore > 0, () -> "exported the new flow "
                            + "under " + policy + " with no lazily deleted entry: " + r);
                    check(r.packets() == 1 && r.bytes() == op.bytes && r.first() == op.ts && r.last() == op.ts
                            && r.flags() == op.flags, () -> "one-packet record wrong: " + r);
                    exportedPackets += 1;
                    atOnce = true;
                } else {
                    check(policy == OverflowPolicy.EVICT_LEAST_RECENT, () -> policy + " evicted " + r);
                    FlowTableModelTest.ModelFlow v = live.get(r.key());
                    check(v != null && expiry(v) == null, () -> "evicted " + r + ", expired or not live: " + v);
                    close(r);
                }
            }
            int bound = sweep + 1;
            int n = timeouts;
            check(n <= bound, () -> "a packet exported " + n + " timed-out records, sweep budget " + sweep);
            FlowTableModelTest.ModelFlow open = live.get(op.key);
            if (open != null) {
                check(expiry(open) == null, () -> "packet of a flow past " + expiry(open) + " kept the old record");
            }
            FlowTableModelTest.ModelFlow f = open;
            if (atOnce) {
                check(handle == -1, () -> "handle " + handle + " for a packet exported at once");
                return;
            }
            check(handle >= 0, () -> "handle " + handle);
            if (f == null) {
                f = new FlowTableModelTest.ModelFlow();
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

        void timedOut(FlowTableModelTest.Rec r) {
            FlowTableModelTest.ModelFlow f = live.get(r.key());
            check(f != null, () -> "exported a flow that is not live: " + r);
            ExportReason due = expiry(f);
            check(due == r.reason(), () -> "exported " + r + " but the model says " + due + " for " + f + " at now="
                    + now);
            timeoutExports++;
            close(r);
        }

        void close(FlowTableModelTest.Rec r) {
            FlowTableModelTest.ModelFlow f = live.remove(r.key());
            check(f != null && f.sameAs(r, userSlots), () -> "exported " + r + " but the model has " + f);
            exportedPackets += r.packets();
        }

        /**
         * The live entries against the model: each entry forEach visits must be a live flow of the model, visited
         * once (marked with this check's number in {@code visited}) and equal to the model's open record, and there
         * must be as many as the model has, so the two sets of live flows are equal; then a lookup of every live key.
         */
        void checkTable() {
            int visit = ++tableChecks;
            long[] packets = new long[1];
            int[] count = new int[1];
            table.forEach(r -> {
                count[0]++;
                packets[0] += r.packets();
                FiveTuple key = r.key();
                FlowTableModelTest.ModelFlow f = live.get(key);
                check(f != null, () -> "live flows differ: the table holds " + key + ", the model does not");
                check(f.visited != visit, () -> "forEach visited " + key + " twice");
                f.visited = visit;
                check(f.sameAs(r, userSlots), () -> "entry " + FlowTableModelTest.Rec.of(r, userSlots)
                        + " vs model " + f);
            });
            check(count[0] == live.size(), () -> "live flows differ: table " + count[0] + " model " + live.size());
            for (Map.Entry<FiveTuple, FlowTableModelTest.ModelFlow> e : live.entrySet()) {
                int slot = table.find(e.getKey()); // a summary that lost the flow would send this to the stash only
                check(slot >= 0 && table.record(slot).key().equals(e.getKey()), () -> "find lost live " + e.getKey()
                        + " (summary " + table.hasSummary() + ")");
                if (twin != null) {
                    twin.find(e.getKey()); // the same lookups, so that summary counters stay comparable
                }
            }
            checkSummary();
            check(packets[0] + exportedPackets == sent, () -> "packets lost: live " + packets[0] + " exported "
                    + exportedPackets + " sent " + sent);
            check(table.size() == live.size(), () -> "size() " + table.size() + " model " + live.size());
            check(table.now() == now, () -> "now() " + table.now() + " model " + now);
            check(table.memoryBytes() == memoryBytes, () -> "memoryBytes changed");
            check(table.idleTimeout() == idle && table.activeTimeout() == active && table.overflowPolicy() == policy,
                    () -> "settings");
        }

        /**
         * No false negative in any filter of the summary: every entry of sub-table L (live or lazily deleted, both are
         * in the summary) is in B_0..B_L, so the summary names L or a sub-table right of it. A false negative of B_j,
         * j ≥ 1, would not change find()'s answer (it falls back to all d buckets), so it is checked here directly.
         */
        void checkSummary() {
            if (!table.hasSummary()) {
                return;
            }
            MultilevelTable placement;
            try {
                java.lang.reflect.Field f = FlowTable.class.getDeclaredField("table");
                f.setAccessible(true);
                placement = (MultilevelTable) f.get(table);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            TypeSummary summary = placement.summary();
            for (int slot = 0; slot < placement.stashBase(); slot++) {
                if (placement.isOccupied(slot)) {
                    long h1 = table.hashAt(slot);
                    int level = placement.levelOf(slot);
                    int named = summary.level(h1, io.linerate.sketches.hash.ItemHasher.h2(h1));
                    int at = slot;
                    check(named >= level, () -> "summary names sub-table " + named + " for the entry in slot " + at
                            + " of sub-table " + level + " (a false negative)");
                }
            }
        }

        // ------------------------------------------------------------ copies and images

        void replace(Kind kind) {
            if (twin != null) {
                compareTwin();
            }
            List<FlowTableModelTest.Rec> out = new ArrayList<>();
            byte[] image = table.toByteArray();
            FlowTable next;
            if (kind == Kind.COPY) {
                next = table.copy();
                next.setExporter(r -> out.add(FlowTableModelTest.Rec.of(r, userSlots)));
            } else if (kind == Kind.IMAGE) {
                next = FlowTable.fromByteArray(image, r -> out.add(FlowTableModelTest.Rec.of(r, userSlots)));
            } else {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                int[] announced = new int[1];
                table.writeImage(new ImageWriter.Sink() {
                    @Override
                    public void begin(int imageLength) {
                        announced[0] = imageLength;
                    }

                    @Override
                    public void write(byte[] b, int offset, int length) {
                        bytes.write(b, offset, length);
                    }

                    @Override
                    public int chunkBytes() {
                        return 16 + rnd.nextInt(64);
                    }
                });
                byte[] streamed = bytes.toByteArray();
                check(Arrays.equals(streamed, image) && announced[0] == image.length, () -> "streamed image differs");
                int[] pos = new int[1];
                int chunk = 16 + rnd.nextInt(64);
                next = FlowTable.readImage(new ImageReader.Source() {
                    @Override
                    public void read(byte[] b, int offset, int length) {
                        System.arraycopy(streamed, pos[0], b, offset, length);
                        pos[0] += length;
                    }

                    @Override
                    public int chunkBytes() {
                        return chunk;
                    }
                }, streamed.length, r -> out.add(FlowTableModelTest.Rec.of(r, userSlots)));
                check(pos[0] == streamed.length, () -> "readImage read " + pos[0] + " of " + streamed.length);
            }
            FlowTable made = next;
            check(Arrays.equals(made.toByteArray(), image), () -> kind + ": the new table's image differs");
            check(made.memoryBytes() == memoryBytes, () -> kind + ": memoryBytes " + made.memoryBytes());
            twin = table;
            twinExports = exports;
            table = next;
            exports = out;
            lockstepLeft = LOCKSTEP_OPS;
            lockstepRuns++;
            checkTable();
        }

        void compareTwin() {
            byte[] mine = table.toByteArray();
            byte[] theirs = twin.toByteArray();
            check(Arrays.equals(mine, theirs), () -> "after lockstep the images differ at byte "
                    + Arrays.mismatch(mine, theirs) + ": " + table + " summary " + table.summaryLookups() + "/"
                    + table.summaryFalsePositives() + "/" + table.summaryFailures() + " vs " + twin + " summary "
                    + twin.summaryLookups() + "/" + twin.summaryFalsePositives() + "/" + twin.summaryFailures());
            twin = null;
        }

        // ------------------------------------------------------------ reporting

        /** Traces the operation; it is formatted only if a check fails (see {@link FlowTableModelTest.Step}). */
        FlowTableModelTest.Step remember(Op op) {
            if (trace.size() == 30) {
                trace.removeFirst();
            }
            FlowTableModelTest.Step step = new FlowTableModelTest.Step(opIndex, op);
            trace.addLast(step);
            return step;
        }

        void check(boolean ok, Supplier<String> message) {
            if (!ok) {
                StringBuilder sb = new StringBuilder(message.get()).append("\n  at #").append(opIndex).append(" of ")
                        .append(config);
                for (FlowTableModelTest.Step s : trace) {
                    sb.append("\n    ").append(s);
                }
                throw new AssertionError(sb.toString());
            }
        }
    }
}
