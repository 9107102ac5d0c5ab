package io.linerate.sketches.flowtable;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A bounded per-flow table: a multilevel hash table (Kirsch's thesis, chapters 4 and 5) of flow entries
 * keyed by IP 5-tuple, with NetFlow-style idle and active timeouts and a documented overflow policy.
 *
 * <p><b>Placement.</b> d sub-tables of ⌊α<sub>i</sub>·capacity⌋ buckets (Table 5.1's α for the chosen
 * {@link InsertionScheme} and d, by default second chance with d = 4), one or two entries per bucket, and
 * an overflow stash of fixed size (64 by default) searched on every miss. One hash per packet: every
 * sub-table index is derived from the flow key's 128-bit hash value. An insertion moves at most one
 * existing entry. Optional multiple-Bloom-filter summary ({@link Builder#summary}) so a lookup reads one
 * bucket; its false positives and failures are counted and fall back to reading all d buckets.
 *
 * <p><b>Entries</b> live in one {@code long[]}, {@link #entryLongs()} longs per slot: the key (2 longs for
 * {@link FlowKeyFormat#IPV4_ONLY}, 5 for {@link FlowKeyFormat#IPV4_AND_IPV6}; the OR of TCP flags shares
 * the ports/protocol long), packets, bytes, first and last timestamp, then the user-defined long slots.
 * No per-entry objects; memory is fixed at construction whatever the input.
 *
 * <p><b>Time and expiry.</b> Timestamps are longs in any unit (milliseconds in the usual case); timeouts
 * are in the same unit. "Now" is the largest timestamp seen ({@link #advanceTime} moves it without a
 * packet). A packet for a flow that has been idle for the idle timeout, or that started at least the
 * active timeout ago, first exports the old record and then starts a new one. Idle flows nobody touches are
 * found by an amortised sweep: each update examines {@link Builder#sweepSlotsPerUpdate} slots (no
 * full-table scan on the update path). Exported records go to the {@link FlowExporter}.
 *
 * <p><b>Overflow.</b> When a new flow finds its d buckets and the stash full, the {@link OverflowPolicy}
 * exports one flow early as {@link ExportReason#EVICTED} (by default the least recently updated of those
 * the new flow could displace) and counts it. No packet's counts are ever dropped: every packet is in a
 * live entry or in an exported record.
 *
 * <p>Work per operation is O(d·bucketCapacity + stash) (O(d²) for extreme second chance) whatever the
 * keys, and the hash is seeded, so crafted keys cannot grow memory or work. Not thread-safe.
 */
public final class FlowTable {

    static final int IMAGE_VERSION = 1;
    /** Upper limit on user-defined long slots per entry. */
    public static final int MAX_USER_SLOTS = 16;
    static final long KEY_MASK = 0xFFFF_FFFF_FFFFL; // the meta word's key bits; bits 48-63 hold TCP flags
    private static final int PACKETS = 0;
    private static final int BYTES = 1;
    private static final int FIRST = 2;
    private static final int LAST = 3;
    private static final int COUNTERS = 4;

    private final long capacity; // the flows the table was sized for (n of α_i·n)
    private final ItemHasher hasher;
    private final FlowKeyFormat format;
    private final int keyLongs;
    private final int stride;
    private final int userSlots;
    private long idleTimeout; // not final: a restored table takes its operator's current timeouts (setTimeouts)
    private long activeTimeout;
    private final int sweepPerUpdate;
    private OverflowPolicy policy; // not final, as the timeouts: see setOverflowPolicy
    private FlowExporter exporter; // not state: not in the image, re-attached after a restore
    private final MultilevelTable table;
    private final TypeSummary summary;
    private final long[] entries;
    /*
     * h1 and last timestamp of the flow in each stash slot, in stash order, copies of what the entries hold: a
     * lookup that misses its d buckets compares the hashes, and an eviction looks for the least recent flow in
     * the timestamps (512 bytes each for 64 slots), instead of reading a cache line of every stash entry twice.
     * Under a flood of new flows the stash is always full and those two scans took about a third of the table's
     * time. Kept in step with the stash by insert, account and the moves; rebuilt from the entries when an image
     * is read, so not in the image.
     */
    private final long[] stashHashes;
    private final long[] stashLast;
    private final int scratchSlot; // one extra slot: the record of a packet exported without entering the table
    /*
     * The hit path of updateIpv4 (see there): true when find2 starts with the key's slots in sub-tables 0 and 1
     * (IPv4-only keys, one-entry buckets, at least 2 sub-tables, no summary). The buckets of those two sub-tables
     * (sub-table 1's slots start at level0Buckets), copied from the layout so that the hit path reads no other
     * object or array for them.
     */
    private final boolean twoLevelHit;
    private final long level0Buckets;
    private final long level1Buckets;
    private final FlowRecord view;
    private final long[] exports = new long[ExportReason.values().length];

    private long now = Long.MIN_VALUE;
    private int cursor;
    private long packets;
    private long newFlows;
    private long summaryLookups;
    private long summaryFalsePositives;
    private long summaryFailures;

    private FlowTable(Builder b) {
        this.hasher = ItemHasher.seeded(b.seed);
        this.format = b.keyFormat;
        this.keyLongs = format.keyLongs();
        this.userSlots = b.userSlots;
        this.stride = keyLongs + COUNTERS + userSlots;
        this.idleTimeout = b.idleTimeout;
        this.activeTimeout = b.activeTimeout;
        this.sweepPerUpdate = b.sweepSlotsPerUpdate;
        this.policy = b.overflowPolicy;
        this.exporter = b.exporter;
        TableLayout layout = b.layout();
        this.capacity = b.capacity(layout);
        // every size is checked before anything is allocated (the summary and slot states come first)
        MultilevelTable.check(layout, b.scheme);
        // the image limit (2^31 − 9 bytes, 8 per long) keeps the entry array far below a Java array's length too
        checkImageFits(capacity, b.buckets, layout, b.keyFormat, b.userSlots);
        long longs = ((long) layout.tableSlots() + layout.stashCapacity() + 1) * stride;
        this.summary = b.summary ? new TypeSummary(layout, capacity, b.seed) : null;
        this.table = new MultilevelTable(layout, b.scheme, occupants(), summary);
        this.entries = new long[(int) longs];
        this.stashHashes = new long[layout.stashCapacity()];
        this.stashLast = new long[layout.stashCapacity()];
        this.scratchSlot = table.totalSlots();
        this.view = new FlowRecord(this);
        this.twoLevelHit = keyLongs == 2 && summary == null && layout.bucketCapacity() == 1 && layout.levels() >= 2;
        this.level0Buckets = layout.buckets(0);
        this.level1Buckets = layout.levels() >= 2 ? layout.buckets(1) : 0;
    }

    /** An independent copy of {@code other} ({@link #copy()}). */
    private FlowTable(FlowTable other) {
        this.capacity = other.capacity;
        this.hasher = other.hasher;
        this.format = other.format;
        this.keyLongs = other.keyLongs;
        this.userSlots = other.userSlots;
        this.stride = other.stride;
        this.idleTimeout = other.idleTimeout;
        this.activeTimeout = other.activeTimeout;
        this.sweepPerUpdate = other.sweepPerUpdate;
        this.policy = other.policy;
        this.exporter = other.exporter;
        this.summary = other.summary == null ? null : other.summary.copy();
        this.table = other.table.copy(occupants(), summary);
        this.entries = Arrays.copyOf(other.entries, other.entries.length);
        this.stashHashes = Arrays.copyOf(other.stashHashes, other.stashHashes.length);
        this.stashLast = Arrays.copyOf(other.stashLast, other.stashLast.length);
        this.scratchSlot = other.scratchSlot;
        this.view = new FlowRecord(this);
        this.twoLevelHit = other.twoLevelHit;
        this.level0Buckets = other.level0Buckets;
        this.level1Buckets = other.level1Buckets;
        System.arraycopy(other.exports, 0, exports, 0, exports.length);
        this.now = other.now;
        this.cursor = other.cursor;
        this.packets = other.packets;
        this.newFlows = other.newFlows;
        this.summaryLookups = other.summaryLookups;
        this.summaryFalsePositives = other.summaryFalsePositives;
        this.summaryFailures = other.summaryFailures;
    }

    /** How the multilevel table reads and moves this table's entries. */
    private Occupants occupants() {
        return new Occupants() {
            @Override
            public long hashOf(int slot) {
                return hashAt(slot);
            }

            @Override
            public void move(int from, int to) {
                System.arraycopy(entries, from * stride, entries, to * stride, stride);
                clearKey(from);
                int stashBase = table.stashBase();
                if (to >= stashBase) {
                    stashHashes[to - stashBase] = from >= stashBase ? stashHashes[from - stashBase] : hashAt(to);
                    stashLast[to - stashBase] = lastTimestamp(to);
                }
            }
        };
    }

    /**
     * An independent deep copy: the same configuration, current timeouts, overflow policy, flows, slot states,
     * stash, summary, sweep position, clock and counters, so the same image and the same exports for the same
     * later packets; the same exporter is attached. Array copies without the per-flow checks a read from the
     * image does (a 1M-flow image read hashes every key): the Flink serializer's {@code copy} uses it (the heap
     * state backend copies state on write while a checkpoint is being written).
     */
    public FlowTable copy() {
        return new FlowTable(this);
    }

    /** A builder; {@link Builder#capacity} is the one required setting, unless {@link Builder#buckets} are given. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- updates

    /**
     * Accounts one IPv4 packet: finds or creates its flow and adds one packet, {@code bytes} and the TCP
     * flags. Addresses are 32-bit values in network order (10.0.0.1 = 0x0A000001).
     *
     * @return the flow's slot handle, valid until the next change to the table (for {@link #addToUserSlot});
     *     −1 if the packet was exported at once ({@link OverflowPolicy#EXPORT_NEW}, or the one case of
     *     {@link OverflowPolicy#EVICT_LEAST_RECENT} with nothing to displace)
     * @throws IllegalArgumentException if a port, the protocol, the flags or bytes are out of range
     */
    public int updateIpv4(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol,
                          int tcpFlags, long bytes, long timestamp) {
        checkPacket(srcPort, dstPort, protocol, tcpFlags, bytes);
        tick(timestamp);
        long h1 = hasher.hashIpv4(srcAddress, dstAddress, srcPort, dstPort, protocol);
        long meta = FiveTuple.meta(false, srcPort, dstPort, protocol);
        if (keyLongs != 2) {
            long src = srcAddress & 0xFFFF_FFFFL;
            long dst = dstAddress & 0xFFFF_FFFFL;
            long h2 = ItemHasher.h2(h1);
            int slot = find5(h1, h2, 0, src, 0, dst, meta);
            if (slot < 0) {
                slot = insert(h1, h2);
                writeKey5(slot >= 0 ? slot : scratchSlot, 0, src, 0, dst, meta);
            }
            return account(slot, tcpFlags, bytes, timestamp);
        }
        long addresses = ((long) srcAddress << 32) | (dstAddress & 0xFFFF_FFFFL);
        if (twoLevelHit) {
            // The hit path, small enough to be compiled into this method: find2's first two tests, the key's slots
            // in sub-tables 0 and 1 (about 90% of the benchmark's packets at 90% load, more at 50%), then the
            // counters of a flow that has not timed out (accountLive). As in find2, both slots' address words are
            // loaded before either is compared, so that their cache misses overlap. The bucket indexes are
            // MultilevelTable.bucketSlot's.
            long[] en = entries;
            long h2 = ItemHasher.h2(h1);
            int s0 = (int) DoubleHashing.reduce(DoubleHashing.mix(h1), level0Buckets);
            int s1 = (int) (level0Buckets + DoubleHashing.reduce(DoubleHashing.mix(h1 + h2), level1Buckets));
            int e0 = s0 * stride;
            int e1 = s1 * stride;
            long k0 = en[e0];
            long k1 = en[e1];
            // A slot that holds no item has all-zero key words (they are cleared whenever an item leaves or moves,
            // and an image restores only occupied slots), and a key's meta word is never 0: a matching key is in an
            // occupied slot, live unless lazily deleted. So the slot's state is read only if some slot is.
            boolean anyDeleted = table.lazilyDeleted() != 0;
            if (k0 == addresses && (en[e0 + 1] & KEY_MASK) == meta && (!anyDeleted || table.isLive(s0))) {
                return accountLive(s0, tcpFlags, bytes, timestamp);
            }
            if (k1 == addresses && (en[e1 + 1] & KEY_MASK) == meta && (!anyDeleted || table.isLive(s1))) {
                return accountLive(s1, tcpFlags, bytes, timestamp);
            }
            return updateIpv4Lookup(find2Beyond(2, h1, h2, addresses, meta), h1, h2, addresses, meta, tcpFlags,
                    bytes, timestamp);
        }
        long h2 = ItemHasher.h2(h1);
        return updateIpv4Lookup(find2(h1, h2, addresses, meta), h1, h2, addresses, meta, tcpFlags, bytes,
                timestamp);
    }

    /**
     * Whether every table and stash slot that holds no flow has all-zero key words, which {@link #updateIpv4}'s hit
     * path relies on (a key's meta word is never 0, so no key matches such a slot). For the model tests.
     */
    boolean unoccupiedSlotsHoldNoKey() {
        for (int slot = 0; slot < table.totalSlots(); slot++) {
            if (!table.isOccupied(slot)) {
                for (int k = 0; k < keyLongs; k++) {
                    if (entries[slot * stride + k] != 0) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** updateIpv4 after its lookup found {@code slot}: an insertion if it missed (−1), then the counters. */
    private int updateIpv4Lookup(int slot, long h1, long h2, long addresses, long meta, int tcpFlags, long bytes,
                                 long timestamp) {
        if (slot < 0) {
            slot = insert(h1, h2);
            int e = (slot >= 0 ? slot : scratchSlot) * stride;
            entries[e] = addresses;
            entries[e + 1] = meta;
        }
        return account(slot, tcpFlags, bytes, timestamp);
    }

    /**
     * Accounts one IPv6 packet; each address as its high and low 64 bits in network order.
     *
     * @throws IllegalStateException if the table was built for {@link FlowKeyFormat#IPV4_ONLY}
     * @see #updateIpv4
     */
    public int updateIpv6(long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                          int protocol, int tcpFlags, long bytes, long timestamp) {
        requireIpv6();
        checkPacket(srcPort, dstPort, protocol, tcpFlags, bytes);
        tick(timestamp);
        long h1 = hasher.hashIpv6(srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol);
        long h2 = ItemHasher.h2(h1);
        long meta = FiveTuple.meta(true, srcPort, dstPort, protocol);
        int slot = find5(h1, h2, srcHigh, srcLow, dstHigh, dstLow, meta);
        if (slot < 0) {
            slot = insert(h1, h2);
            writeKey5(slot >= 0 ? slot : scratchSlot, srcHigh, srcLow, dstHigh, dstLow, meta);
        }
        return account(slot, tcpFlags, bytes, timestamp);
    }

    /** Accounts one packet of the flow {@code key} (convenience; the primitive methods allocate nothing). */
    public int update(FiveTuple key, int tcpFlags, long bytes, long timestamp) {
        return key.isIpv6()
                ? updateIpv6(key.srcHigh(), key.srcLow(), key.dstHigh(), key.dstLow(), key.srcPort(), key.dstPort(),
                        key.protocol(), tcpFlags, bytes, timestamp)
                : updateIpv4((int) key.srcLow(), (int) key.dstLow(), key.srcPort(), key.dstPort(), key.protocol(),
                        tcpFlags, bytes, timestamp);
    }

    /**
     * The checks {@link #updateIpv4} and {@link #updateIpv6} make before they change anything, for a caller that
     * validates a packet before it builds a table (an operator creating a scope's table on its first packet).
     *
     * @throws IllegalStateException if {@code ipv6} and {@code keyFormat} is {@link FlowKeyFormat#IPV4_ONLY}
     * @throws IllegalArgumentException if a port, the protocol, the flags or bytes are out of range
     */
    public static void checkPacket(FlowKeyFormat keyFormat, boolean ipv6, int srcPort, int dstPort, int protocol,
                                   int tcpFlags, long bytes) {
        if (ipv6) {
            requireIpv6(keyFormat.keyLongs());
        }
        checkPacket(srcPort, dstPort, protocol, tcpFlags, bytes);
    }

    private static void checkPacket(int srcPort, int dstPort, int protocol, int tcpFlags, long bytes) {
        if (((srcPort | dstPort) >>> 16) != 0 || (protocol >>> 8) != 0 || (tcpFlags >>> 16) != 0 || bytes < 0) {
            throw new IllegalArgumentException(packetError(srcPort, dstPort, protocol, tcpFlags, bytes));
        }
    }

    private static String packetError(int srcPort, int dstPort, int protocol, int tcpFlags, long bytes) {
        if ((srcPort >>> 16) != 0) {
            return "srcPort must be in [0, 65535], got " + srcPort;
        }
        if ((dstPort >>> 16) != 0) {
            return "dstPort must be in [0, 65535], got " + dstPort;
        }
        if ((protocol >>> 8) != 0) {
            return "protocol must be in [0, 255], got " + protocol;
        }
        if ((tcpFlags >>> 16) != 0) {
            return "tcpFlags must be in [0, 65535], got " + tcpFlags;
        }
        return "bytes must be >= 0, got " + bytes;
    }

    private void requireIpv6() {
        requireIpv6(keyLongs);
    }

    private static void requireIpv6(int keyLongs) {
        if (keyLongs != 5) {
            throw new IllegalStateException("this flow table stores IPv4 keys only (keyFormat IPV4_ONLY); build it "
                    + "with keyFormat(FlowKeyFormat.IPV4_AND_IPV6) to meter IPv6 flows");
        }
    }

    /**
     * Moves "now" to the packet's timestamp and runs the update's share of the sweep, before the lookup: a
     * sweep after it could export the packet's own flow, or refill a stash slot, and so invalidate the
     * handle the update returns.
     */
    private void tick(long timestamp) {
        if (timestamp > now) {
            now = timestamp;
        }
        sweep(sweepPerUpdate);
    }

    /**
     * {@link #account} for a live flow in a sub-table slot (not the stash, whose timestamps have a copy): the same
     * changes, with the tests that are almost always false (first packet, a timeout passed) in one branch to
     * {@link #account}. A flow neither of whose unsigned differences reaches its timeout has not expired (
     * {@link #expired} needs one of them), whether or not the timeout is disabled.
     */
    private int accountLive(int slot, int tcpFlags, long bytes, long timestamp) {
        long[] en = entries;
        int base = slot * stride + keyLongs;
        long first = en[base + FIRST];
        long last = en[base + LAST];
        long n = en[base + PACKETS];
        if (n == 0 || Long.compareUnsigned(now - last, idleTimeout) >= 0
                || Long.compareUnsigned(now - first, activeTimeout) >= 0) {
            return account(slot, tcpFlags, bytes, timestamp);
        }
        packets++;
        en[base + PACKETS] = n + 1;
        long total = en[base + BYTES] + bytes;
        en[base + BYTES] = total < 0 ? Long.MAX_VALUE : total; // saturate, never wrap
        if (timestamp < first) {
            en[base + FIRST] = timestamp;
        }
        if (timestamp > last) {
            en[base + LAST] = timestamp;
        }
        en[base - 1] |= (long) tcpFlags << 48; // the key's meta word carries the flags
        return slot;
    }

    /** Adds the packet to the flow in {@code slot} (or, for −1, exports it from the scratch slot). */
    private int account(int slot, int tcpFlags, long bytes, long timestamp) {
        packets++;
        int target = slot >= 0 ? slot : scratchSlot;
        int base = target * stride + keyLongs;
        if (entries[base + PACKETS] == 0) {
            entries[base + FIRST] = timestamp;
            entries[base + LAST] = timestamp;
        } else {
            ExportReason reason = expired(base);
            if (reason != null) { // the old record ends before this packet starts a new one
                export(target, reason);
                resetCounters(target);
                entries[base + FIRST] = timestamp;
                entries[base + LAST] = timestamp;
            }
        }
        entries[base + PACKETS]++;
        long total = entries[base + BYTES] + bytes;
        entries[base + BYTES] = total < 0 ? Long.MAX_VALUE : total; // saturate, never wrap
        if (timestamp < entries[base + FIRST]) {
            entries[base + FIRST] = timestamp;
        }
        if (timestamp > entries[base + LAST]) {
            entries[base + LAST] = timestamp;
        }
        entries[base - 1] |= (long) tcpFlags << 48; // the key's meta word carries the flags
        int stashIndex = target - table.stashBase();
        if (slot >= 0 && stashIndex >= 0) {
            stashLast[stashIndex] = entries[base + LAST];
        }
        if (slot < 0) {
            export(scratchSlot, ExportReason.EVICTED);
            clearKey(scratchSlot);
        }
        return slot;
    }

    /**
     * Why the flow at {@code counterBase} has expired by {@code now}, or null. When both timeouts have passed, the
     * reason is the one whose deadline came first (idle at last + idleTimeout, active at first + activeTimeout;
     * idle on a tie): the record is the same whenever the sweep or the next packet finds it, so the output does
     * not depend on how often the table is swept (a restored job, a different watermark cadence).
     */
    private ExportReason expired(int counterBase) {
        long first = entries[counterBase + FIRST];
        long last = entries[counterBase + LAST];
        // first ≤ last ≤ now, so each difference is ≥ 0 but may pass Long.MAX_VALUE (timestamps far apart): compared
        // unsigned, it cannot wrap into "not expired"
        // Long.MAX_VALUE disables a timeout, even for timestamps more than Long.MAX_VALUE apart
        boolean idle = idleTimeout != Long.MAX_VALUE && Long.compareUnsigned(now - last, idleTimeout) >= 0;
        boolean active = activeTimeout != Long.MAX_VALUE && Long.compareUnsigned(now - first, activeTimeout) >= 0;
        if (idle && active) {
            // last + idle <= first + active, written without overflow for any timestamps
            long slack = activeTimeout - idleTimeout; // both in [1, MAX]: no overflow
            return slack >= 0 && Long.compareUnsigned(last - first, slack) <= 0
                    ? ExportReason.IDLE_TIMEOUT : ExportReason.ACTIVE_TIMEOUT;
        }
        return idle ? ExportReason.IDLE_TIMEOUT : active ? ExportReason.ACTIVE_TIMEOUT : null;
    }

    /**
     * A slot for a new flow, evicting one flow first if the policy says so; −1 for EXPORT_NEW overflow. Before
     * either, a candidate that has already timed out (the least recent one, if any has idled out), which the sweep
     * has not reached yet, leaves with its timeout as the reason: the record does not depend on how far the sweep
     * has got, and a slot held by an expired flow does not turn the new flow away.
     */
    private int insert(long h1, long h2) {
        int slot = table.place(h1, h2);
        if (slot >= 0) {
            newFlows++;
            return placed(slot, h1);
        }
        int victim = leastRecent(h1, h2);
        if (victim < 0) {
            return -1;
        }
        ExportReason expiredReason = expired(victim * stride + keyLongs);
        if (expiredReason == null && activeTimeout != Long.MAX_VALUE) {
            // no candidate has idled out (the least recent would have), but one may be past its active timeout
            int oldest = earliestStarted(h1, h2);
            ExportReason reason = expired(oldest * stride + keyLongs);
            if (reason != null) {
                victim = oldest;
                expiredReason = reason;
            }
        }
        if (expiredReason == null && policy != OverflowPolicy.EVICT_LEAST_RECENT) {
            return -1;
        }
        export(victim, expiredReason != null ? expiredReason : ExportReason.EVICTED);
        removeAt(victim);
        slot = table.placeAfterEviction(h1, h2); // the first place counted this flow's overflow
        if (slot < 0) {
            throw new IllegalStateException("flow table invariant broken: no slot after evicting slot " + victim);
        }
        newFlows++;
        return placed(slot, h1);
    }

    /** {@code slot}, after noting h1 if it is a stash slot (the caller writes the key there next). */
    private int placed(int slot, long h1) {
        int i = slot - table.stashBase();
        if (i >= 0) {
            stashHashes[i] = h1;
        }
        return slot;
    }

    /**
     * The live entry with the smallest last timestamp among the new flow's d buckets and the stash; −1 only if none
     * of them holds a live flow (every candidate bucket lazily deleted and the stash empty).
     */
    private int leastRecent(long h1, long h2) {
        int best = -1;
        long bestLast = 0;
        int cap = table.bucketCapacity();
        for (int i = 0; i < table.levels(); i++) {
            int base = table.bucketSlot(i, h1, h2);
            for (int s = base; s < base + cap; s++) {
                // best < 0: a flow last seen at Long.MAX_VALUE is still a candidate (a strict < against a
                // MAX_VALUE start turned the new flow away under EVICT_LEAST_RECENT)
                if (table.isLive(s) && (best < 0 || entries[s * stride + keyLongs + LAST] < bestLast)) {
                    best = s;
                    bestLast = entries[s * stride + keyLongs + LAST];
                }
            }
        }
        int stashBase = table.stashBase();
        for (int i = 0, n = table.stashSize(); i < n; i++) {
            if (best < 0 || stashLast[i] < bestLast) {
                best = stashBase + i;
                bestLast = stashLast[i];
            }
        }
        return best;
    }

    /** The live entry with the smallest first timestamp among the new flow's candidates (there is one: all full). */
    private int earliestStarted(long h1, long h2) {
        int best = -1;
        long bestFirst = 0;
        int cap = table.bucketCapacity();
        for (int i = 0; i < table.levels(); i++) {
            int base = table.bucketSlot(i, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (table.isLive(s) && (best < 0 || entries[s * stride + keyLongs + FIRST] < bestFirst)) {
                    best = s;
                    bestFirst = entries[s * stride + keyLongs + FIRST];
                }
            }
        }
        for (int s = table.stashBase(), end = s + table.stashSize(); s < end; s++) {
            if (best < 0 || entries[s * stride + keyLongs + FIRST] < bestFirst) {
                best = s;
                bestFirst = entries[s * stride + keyLongs + FIRST];
            }
        }
        return best;
    }

    // ---------------------------------------------------------------- lookups

    private int find2(long h1, long h2, long addresses, long meta) {
        int cap = table.bucketCapacity();
        int named = -1;
        int from = 0;
        if (summary != null) {
            summaryLookups++;
            named = summary.level(h1, h2);
            if (named < 0) {
                return findInStash2(h1, addresses, meta); // B0 says: in no sub-table
            }
            int base = table.bucketSlot(named, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (matches2(s, addresses, meta)) {
                    return s;
                }
            }
        } else if (cap == 1 && table.levels() >= 2) {
            // Most flows are in the first two sub-tables: load both candidates' address words before comparing
            // either, so that their cache misses overlap instead of following one another. Same order of tests.
            int s0 = table.bucketSlot(0, h1, h2);
            int s1 = table.bucketSlot(1, h1, h2);
            long k0 = entries[s0 * stride];
            long k1 = entries[s1 * stride];
            if (k0 == addresses && matches2(s0, addresses, meta)) {
                return s0;
            }
            if (k1 == addresses && matches2(s1, addresses, meta)) {
                return s1;
            }
            from = 2;
        }
        if (named < 0) {
            return find2Beyond(from, h1, h2, addresses, meta);
        }
        for (int i = 0; i < table.levels(); i++) {
            if (i == named) {
                continue;
            }
            int base = table.bucketSlot(i, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (matches2(s, addresses, meta)) {
                    summaryFailures++; // the summary named the wrong sub-table for a stored key
                    return s;
                }
            }
        }
        summaryFalsePositives++; // B0 claimed a key that is in no sub-table
        return findInStash2(h1, addresses, meta);
    }

    /** find2 without a summary, from sub-table {@code from} on: the key's buckets there, then the stash. */
    private int find2Beyond(int from, long h1, long h2, long addresses, long meta) {
        int cap = table.bucketCapacity();
        for (int i = from; i < table.levels(); i++) {
            int base = table.bucketSlot(i, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (matches2(s, addresses, meta)) {
                    return s;
                }
            }
        }
        return findInStash2(h1, addresses, meta);
    }

    private int findInStash2(long h1, long addresses, long meta) {
        int stashBase = table.stashBase();
        for (int i = 0, n = table.stashSize(); i < n; i++) {
            if (stashHashes[i] == h1 && matches2(stashBase + i, addresses, meta)) {
                return stashBase + i;
            }
        }
        return -1;
    }

    private boolean matches2(int slot, long addresses, long meta) {
        int e = slot * stride;
        // an empty slot's key words are 0 and a meta word never is, so the key test comes first
        return entries[e] == addresses && (entries[e + 1] & KEY_MASK) == meta && table.isLive(slot);
    }

    private int find5(long h1, long h2, long a, long b, long c, long d, long meta) {
        int cap = table.bucketCapacity();
        int named = -1;
        if (summary != null) {
            summaryLookups++;
            named = summary.level(h1, h2);
            if (named < 0) {
                return findInStash5(h1, a, b, c, d, meta); // B0 says: in no sub-table
            }
            int base = table.bucketSlot(named, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (matches5(s, a, b, c, d, meta)) {
                    return s;
                }
            }
        }
        for (int i = 0; i < table.levels(); i++) {
            if (i == named) {
                continue;
            }
            int base = table.bucketSlot(i, h1, h2);
            for (int s = base; s < base + cap; s++) {
                if (matches5(s, a, b, c, d, meta)) {
                    if (named >= 0) {
                        summaryFailures++; // the summary named the wrong sub-table for a stored key
                    }
                    return s;
                }
            }
        }
        if (named >= 0) {
            summaryFalsePositives++; // B0 claimed a key that is in no sub-table
        }
        return findInStash5(h1, a, b, c, d, meta);
    }

    private int findInStash5(long h1, long a, long b, long c, long d, long meta) {
        int stashBase = table.stashBase();
        for (int i = 0, n = table.stashSize(); i < n; i++) {
            if (stashHashes[i] == h1 && matches5(stashBase + i, a, b, c, d, meta)) {
                return stashBase + i;
            }
        }
        return -1;
    }

    private boolean matches5(int slot, long a, long b, long c, long d, long meta) {
        int e = slot * stride;
        return (entries[e + 4] & KEY_MASK) == meta && entries[e + 1] == b && entries[e + 3] == d
                && entries[e] == a && entries[e + 2] == c && table.isLive(slot);
    }

    // ---------------------------------------------------------------- expiry, removal, flush

    /**
     * Moves "now" to {@code timestamp} (if later) and examines up to {@code maxSlots} slots for expired
     * flows; for timers when no packets arrive. Returns the number of flows exported. With {@code maxSlots} ≥
     * {@link #slots()} every live flow is examined once, whatever the sweep's position (a budget of that size
     * spent from the cursor could re-examine a stash entry moved into a freed slot and miss the last one).
     */
    public int advanceTime(long timestamp, int maxSlots) {
        if (maxSlots < 0) {
            throw new IllegalArgumentException("maxSlots must be >= 0, got " + maxSlots);
        }
        if (timestamp > now) {
            now = timestamp;
        }
        return maxSlots >= table.totalSlots() ? sweepAll() : sweep(maxSlots);
    }

    private int sweep(int budget) {
        int exported = 0;
        for (int n = 0; n < budget; n++) {
            int end = table.stashBase() + table.stashSize();
            if (cursor >= end) {
                cursor = 0;
            }
            int slot = cursor;
            if (expireAt(slot)) {
                exported++;
                if (slot < table.stashBase()) {
                    cursor++;
                } // a freed stash slot is refilled by the stash's last entry: examine it next
            } else {
                cursor++;
            }
        }
        return exported;
    }

    /**
     * One pass over every slot, the stash from its end down: an entry that refills a freed stash slot comes from
     * the end, already examined.
     */
    private int sweepAll() {
        int exported = 0;
        int stashBase = table.stashBase();
        for (int slot = 0; slot < stashBase; slot++) {
            exported += expireAt(slot) ? 1 : 0;
        }
        for (int slot = stashBase + table.stashSize() - 1; slot >= stashBase; slot--) {
            exported += expireAt(slot) ? 1 : 0;
        }
        return exported;
    }

    /** Exports and removes the flow in {@code slot} if it has expired; true if it did. */
    private boolean expireAt(int slot) {
        int base = slot * stride + keyLongs;
        // One well-predicted branch per slot: "expired and holds a key" is almost always false, whereas
        // testing isLive first branches on whether the slot is occupied, a coin flip at usual loads, and
        // makes the entry loads wait for the state byte. Every live slot has a non-zero meta word (the
        // version, 4 or 6, is in it), so the result is the same.
        // differences compared unsigned (as in expired): timestamps far apart must not wrap into "not expired"
        if (((Long.compareUnsigned(now - entries[base + LAST], idleTimeout) >= 0
                | Long.compareUnsigned(now - entries[base + FIRST], activeTimeout) >= 0)
                & (entries[base - 1] & KEY_MASK) != 0) && table.isLive(slot)) {
            ExportReason reason = expired(base); // null where only a disabled (Long.MAX_VALUE) timeout passed
            if (reason != null) {
                export(slot, reason);
                removeAt(slot);
                return true;
            }
        }
        return false;
    }

    /** Exports (as {@link ExportReason#REMOVED}) and deletes the flow at once (§5.9). */
    public boolean remove(FiveTuple key) {
        int slot = find(key);
        if (slot < 0) {
            return false;
        }
        export(slot, ExportReason.REMOVED);
        removeAt(slot);
        return true;
    }

    /**
     * Exports (as {@link ExportReason#REMOVED}) and lazily deletes the flow (§4.10.1): it disappears from
     * lookups at once, but its slot is reused only after {@link #rebuild}.
     */
    public boolean removeLazily(FiveTuple key) {
        int slot = find(key);
        if (slot < 0) {
            return false;
        }
        export(slot, ExportReason.REMOVED);
        if (slot >= table.stashBase()) {
            removeAt(slot); // a stash slot is freed at once; removeAt also clears the entry the stash vacates
            return true;
        }
        long h1 = hashAt(slot);
        table.markDeleted(slot, h1, ItemHasher.h2(h1));
        return true;
    }

    /** The lazy-deletion rebuild of §4.10.1: entries move left where they can; returns the moves made. */
    public long rebuild() {
        long moved = table.rebuild();
        for (int s = 0; s < table.totalSlots(); s++) {
            if (!table.isOccupied(s)) {
                clearKey(s);
            }
        }
        return moved;
    }

    /** Exports every live flow as {@link ExportReason#FLUSHED} (end of input) and empties the table. */
    public void flush() {
        for (int s = 0; s < table.stashBase() + table.stashSize(); s++) {
            if (table.isLive(s)) {
                export(s, ExportReason.FLUSHED);
            }
        }
        for (int s = table.stashBase() + table.stashSize() - 1; s >= 0; s--) {
            if (table.isOccupied(s)) {
                removeAt(s);
            }
        }
        cursor = 0;
    }

    private void removeAt(int slot) {
        long h1 = hashAt(slot);
        table.free(slot, h1, ItemHasher.h2(h1));
        int last = table.stashBase() + table.stashSize();
        if (slot < table.stashBase()) {
            clearKey(slot);
        } else {
            clearKey(last); // the stash's last entry moved into slot (or slot was last)
        }
    }

    private void export(int slot, ExportReason reason) {
        exports[reason.ordinal()]++;
        if (exporter != null) {
            exporter.export(view.at(slot, reason));
        }
    }

    private void resetCounters(int slot) {
        int base = slot * stride + keyLongs;
        for (int i = 0; i < COUNTERS + userSlots; i++) {
            entries[base + i] = 0;
        }
        entries[slot * stride + keyLongs - 1] &= KEY_MASK; // TCP flags
    }

    private void clearKey(int slot) {
        java.util.Arrays.fill(entries, slot * stride, slot * stride + stride, 0L);
    }

    private void writeKey5(int slot, long a, long b, long c, long d, long meta) {
        int e = slot * stride;
        entries[e] = a;
        entries[e + 1] = b;
        entries[e + 2] = c;
        entries[e + 3] = d;
        entries[e + 4] = meta;
    }

    /** h1 of the key stored in {@code slot}, recomputed (the table does not store hashes). */
    long hashAt(int slot) {
        long meta = meta(slot);
        int sp = (int) (meta >>> 32) & 0xFFFF;
        int dp = (int) (meta >>> 16) & 0xFFFF;
        int proto = (int) (meta >>> 8) & 0xFF;
        if (isIpv6(slot)) {
            return hasher.hashIpv6(srcHigh(slot), srcLow(slot), dstHigh(slot), dstLow(slot), sp, dp, proto);
        }
        return hasher.hashIpv4((int) srcLow(slot), (int) dstLow(slot), sp, dp, proto);
    }

    // ---------------------------------------------------------------- reading entries

    /** The slot of the flow {@code key}, or −1. The handle is valid until the next change to the table. */
    public int find(FiveTuple key) {
        if (key.isIpv6()) {
            if (keyLongs != 5) {
                return -1;
            }
            long h1 = hasher.hash(key);
            return find5(h1, ItemHasher.h2(h1), key.srcHigh(), key.srcLow(), key.dstHigh(), key.dstLow(),
                    FiveTuple.meta(true, key.srcPort(), key.dstPort(), key.protocol()));
        }
        long h1 = hasher.hash(key);
        long meta = FiveTuple.meta(false, key.srcPort(), key.dstPort(), key.protocol());
        if (keyLongs == 2) {
            return find2(h1, ItemHasher.h2(h1), (key.srcLow() << 32) | key.dstLow(), meta);
        }
        return find5(h1, ItemHasher.h2(h1), 0, key.srcLow(), 0, key.dstLow(), meta);
    }

    /** A view of the live flow in {@code slot} (from {@link #find} or an update), valid until the next change. */
    public FlowRecord record(int slot) {
        checkLive(slot);
        return view.at(slot, null);
    }

    /**
     * Calls {@code action} with a view of every live flow (the same view object each time). The action must not
     * change the table (an update, removal, expiry or rebuild would move flows under the iteration, which could
     * then miss or repeat one): such a change fails with {@link java.util.ConcurrentModificationException}.
     */
    public void forEach(Consumer<FlowRecord> action) {
        int end = table.stashBase() + table.stashSize();
        long packetsBefore = packets;
        int sizeBefore = table.size();
        int lazyBefore = table.lazilyDeleted();
        long rebuildMovesBefore = table.rebuildMoves(); // a rebuild moves flows without changing how many there are
        for (int s = 0; s < end; s++) {
            if (table.isLive(s)) {
                action.accept(view.at(s, null));
                if (packets != packetsBefore || table.size() != sizeBefore || table.lazilyDeleted() != lazyBefore
                        || table.rebuildMoves() != rebuildMovesBefore) {
                    throw new java.util.ConcurrentModificationException("the flow table changed during forEach");
                }
            }
        }
    }

    public long userSlot(int slot, int i) {
        checkUserSlot(i);
        return entries[slot * stride + keyLongs + COUNTERS + i];
    }

    /** Adds {@code delta} to user slot {@code i} of the flow at {@code slot} (a handle from an update). */
    public void addToUserSlot(int slot, int i, long delta) {
        checkUserSlot(i);
        checkLive(slot);
        entries[slot * stride + keyLongs + COUNTERS + i] += delta;
    }

    public void setUserSlot(int slot, int i, long value) {
        checkUserSlot(i);
        checkLive(slot);
        entries[slot * stride + keyLongs + COUNTERS + i] = value;
    }

    private void checkUserSlot(int i) {
        if (i < 0 || i >= userSlots) {
            throw new IndexOutOfBoundsException("user slot must be in [0, " + userSlots + "), got " + i);
        }
    }

    private void checkLive(int slot) {
        if (slot < 0 || slot >= table.totalSlots() || !table.isLive(slot)) {
            throw new IllegalArgumentException("slot " + slot + " holds no live flow");
        }
    }

    boolean isIpv6(int slot) {
        return (meta(slot) & 0xFF) == 6;
    }

    long meta(int slot) {
        return entries[slot * stride + keyLongs - 1] & KEY_MASK;
    }

    int tcpFlags(int slot) {
        return (int) (entries[slot * stride + keyLongs - 1] >>> 48);
    }

    long srcHigh(int slot) {
        return keyLongs == 2 ? 0 : entries[slot * stride];
    }

    long srcLow(int slot) {
        return keyLongs == 2 ? entries[slot * stride] >>> 32 : entries[slot * stride + 1];
    }

    long dstHigh(int slot) {
        return keyLongs == 2 ? 0 : entries[slot * stride + 2];
    }

    long dstLow(int slot) {
        return keyLongs == 2 ? entries[slot * stride] & 0xFFFF_FFFFL : entries[slot * stride + 3];
    }

    long packets(int slot) {
        return entries[slot * stride + keyLongs + PACKETS];
    }

    long bytes(int slot) {
        return entries[slot * stride + keyLongs + BYTES];
    }

    long firstTimestamp(int slot) {
        return entries[slot * stride + keyLongs + FIRST];
    }

    long lastTimestamp(int slot) {
        return entries[slot * stride + keyLongs + LAST];
    }

    /**
     * Replaces the receiver of exported records ({@code null}: count and discard). The exporter is not part of
     * the table's state or byte image, so an operator that restores a table (e.g. from Flink state) attaches
     * its own output here before the first update.
     */
    public void setExporter(FlowExporter exporter) {
        this.exporter = exporter;
    }

    // ---------------------------------------------------------------- metrics

    /** Live flows (in sub-tables and stash). */
    public int size() {
        return table.size() - table.lazilyDeleted();
    }

    /**
     * The flow count the table was sized for (n of α<sub>i</sub>·n); for a table built from explicit
     * {@link Builder#buckets} without a capacity, its sub-tables' slots.
     */
    public long capacity() {
        return capacity;
    }

    /** Entry slots in sub-tables and stash: the most flows the table can ever hold. */
    public int slots() {
        return table.totalSlots();
    }

    public TableLayout layout() {
        return table.layout();
    }

    /** What this table's shape is made of ({@link Plan}); equal to the plan of the builder that made it. */
    public Plan plan() {
        return new Plan(scheme(), layout(), format, userSlots, capacity, seed());
    }

    /**
     * The shape of a table, known before it is built ({@link Builder#plan()}) so that a serializer can expect it
     * without allocating a table of the full capacity.
     *
     * @param scheme the insertion scheme
     * @param layout sub-table sizes, bucket capacity and stash
     * @param keyFormat the key format
     * @param userSlots user-defined long slots per entry
     * @param capacity the flows the table was sized for
     * @param seed the hash seed
     */
    public record Plan(InsertionScheme scheme, TableLayout layout, FlowKeyFormat keyFormat, int userSlots,
                       long capacity, long seed) {
        /** Bytes of the image of such a table with every slot and the stash occupied: the most it can take. */
        public long fullImageBytes() {
            return FlowTable.fullImageBytes(layout, keyFormat, userSlots);
        }
    }

    private static long fullImageBytes(TableLayout layout, FlowKeyFormat keyFormat, int userSlots) {
        long slots = (long) layout.tableSlots() + layout.stashCapacity();
        return ImageWriter.imageBytes(imageFieldBytes(layout.levels(), slots, slots,
                keyFormat.keyLongs() + COUNTERS + userSlots));
    }

    /**
     * Refuses a table whose image, once full, would not fit one image ({@link ImageWriter#MAX_IMAGE_BYTES}, which the
     * writer refuses to exceed): it would build and run, then fail every checkpoint once it filled up. A full image
     * of exactly that many bytes is accepted. Names the capacity, or the explicit bucket counts (a builder's, or an
     * image's) that sized the table instead when {@code buckets} is not null.
     */
    private static void checkImageFits(long capacity, int[] buckets, TableLayout layout, FlowKeyFormat keyFormat,
                                       int userSlots) {
        long bytes = fullImageBytes(layout, keyFormat, userSlots);
        if (bytes > ImageWriter.MAX_IMAGE_BYTES) {
            String what = buckets == null ? "capacity " + capacity + " is"
                    : "buckets " + Arrays.toString(buckets) + " with stashCapacity " + layout.stashCapacity() + " are";
            String lower = buckets == null ? (userSlots > 0 ? "capacity or userSlots" : "capacity")
                    : (userSlots > 0 ? "buckets, stashCapacity or userSlots" : "buckets or stashCapacity");
            throw new IllegalArgumentException(what + " too large: a full table's image (its state in a checkpoint)"
                    + " would have " + bytes + " bytes with keyFormat " + keyFormat + " and userSlots " + userSlots
                    + ", above the " + ImageWriter.MAX_IMAGE_BYTES + " one image may have (a Java array); lower "
                    + lower);
        }
    }

    /** Bytes of an image's family fields for a table of {@code levels} and {@code slots}, {@code occupied} of them. */
    private static long imageFieldBytes(int levels, long slots, long occupied, int stride) {
        return 4L * 4 + 4L * levels + 4 * 4 + 8 + 8 + 8 + 4 + 8 + 8 + 4 + 4
                + 8L * (8 + ExportReason.values().length) + slots + 4 + occupied * stride * Long.BYTES;
    }

    public InsertionScheme scheme() {
        return table.scheme();
    }

    public FlowKeyFormat keyFormat() {
        return format;
    }

    public int userSlots() {
        return userSlots;
    }

    /** Longs per entry slot: key, four counters, user slots. */
    public int entryLongs() {
        return stride;
    }

    /** Fraction of sub-table {@code level}'s slots (0-based) that are occupied. */
    public double load(int level) {
        return (double) table.occupancy(level) / table.slotsOf(level);
    }

    public int stashSize() {
        return table.stashSize();
    }

    public int stashCapacity() {
        return table.layout().stashCapacity();
    }

    /** Entries moved by insertions (each insertion moves at most one). */
    public long moves() {
        return table.moves();
    }

    /** Entries moved by {@link #rebuild}. */
    public long rebuildMoves() {
        return table.rebuildMoves();
    }

    /**
     * New flows that found all d buckets full (went to the stash, or overflowed it): each counted once, also
     * when an eviction then made room for it.
     */
    public long overflows() {
        return table.overflows();
    }

    /** Flows exported early because a new flow found no room. */
    public long evictions() {
        return exports[ExportReason.EVICTED.ordinal()];
    }

    /** Records exported for {@code reason}. */
    public long exports(ExportReason reason) {
        return exports[reason.ordinal()];
    }

    /** Packets accounted. */
    public long packets() {
        return packets;
    }

    /** Packets that started a new flow entry. */
    public long newFlows() {
        return newFlows;
    }

    /** Flows lazily deleted and waiting for {@link #rebuild}. */
    public int lazilyDeleted() {
        return table.lazilyDeleted();
    }

    public boolean hasSummary() {
        return summary != null;
    }

    /** Lookups that consulted the summary. */
    public long summaryLookups() {
        return summaryLookups;
    }

    /** Lookups the summary sent to a bucket although the key was in no sub-table (one wasted bucket read). */
    public long summaryFalsePositives() {
        return summaryFalsePositives;
    }

    /** Lookups the summary sent to the wrong sub-table for a stored key (a full scan found it). */
    public long summaryFailures() {
        return summaryFailures;
    }

    /** The largest timestamp seen: the table's "now". */
    public long now() {
        return now;
    }

    public long idleTimeout() {
        return idleTimeout;
    }

    public long activeTimeout() {
        return activeTimeout;
    }

    /**
     * Changes both timeouts (same limits as {@link Builder#idleTimeout} and {@link Builder#activeTimeout}). Sound
     * at any time: the timeouts only decide when flows are exported, never where they are stored, so a table
     * restored from state can take the timeouts its operator is now configured with. Flows already past the new
     * timeouts are exported by the next sweep.
     */
    public void setTimeouts(long idleTimeout, long activeTimeout) {
        long idle = Builder.positiveTimeout("idleTimeout", idleTimeout);
        long active = Builder.positiveTimeout("activeTimeout", activeTimeout);
        this.idleTimeout = idle;
        this.activeTimeout = active;
    }

    public OverflowPolicy overflowPolicy() {
        return policy;
    }

    /** Changes the overflow policy; sound at any time, like {@link #setTimeouts}: it only decides future evictions. */
    public void setOverflowPolicy(OverflowPolicy policy) {
        this.policy = java.util.Objects.requireNonNull(policy, "overflowPolicy");
    }

    public long seed() {
        return hasher.seed();
    }

    /**
     * Bytes held by this table's arrays (entries, stash copies, export counts, slot states, layout, summary filters and
     * their index arrays), excluding object headers.
     */
    public long memoryBytes() {
        return (long) (entries.length + stashHashes.length + stashLast.length + exports.length) * Long.BYTES
                + table.memoryBytes();
    }

    @Override
    public String toString() {
        return "FlowTable[" + table.scheme() + ", " + table.layout() + ", size=" + size() + ", stash="
                + stashSize() + ", moves=" + moves() + ", evictions=" + evictions() + "]";
    }

    // ---------------------------------------------------------------- byte image

    /**
     * The versioned byte image (family {@code FLOW_TABLE}, version 1): configuration, seed, counters, the
     * state byte of every slot, then the entries of occupied slots in slot order. The summary is not
     * stored; it is rebuilt from the entries on read. The exporter is not part of the image.
     */
    public byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    public void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    private byte[] image(ImageWriter.Sink sink) {
        int levels = table.levels();
        byte[] state = table.state();
        int occupied = 0;
        for (byte b : state) {
            occupied += b & MultilevelTable.OCCUPIED;
        }
        long fields = imageFieldBytes(levels, state.length, occupied, stride);
        ImageWriter w = new ImageWriter(Family.FLOW_TABLE, IMAGE_VERSION, fields, sink);
        w.putInt(table.scheme().ordinal()).putInt(levels).putInt(table.layout().bucketCapacity())
                .putInt(table.layout().stashCapacity());
        for (int i = 0; i < levels; i++) {
            w.putInt(table.layout().buckets(i));
        }
        w.putInt(format.ordinal()).putInt(userSlots).putInt(policy.ordinal()).putInt(summary != null ? 1 : 0)
                .putLong(capacity).putLong(idleTimeout).putLong(activeTimeout).putInt(sweepPerUpdate)
                .putLong(hasher.seed()).putLong(now).putInt(cursor).putInt(table.stashSize());
        w.putLong(table.moves()).putLong(table.overflows()).putLong(table.rebuildMoves()).putLong(packets)
                .putLong(newFlows).putLong(summaryLookups).putLong(summaryFalsePositives).putLong(summaryFailures);
        for (long e : exports) {
            w.putLong(e);
        }
        w.putBytes(state, 0, state.length).putInt(occupied);
        // the entries of occupied slots in slot order: each run of consecutive occupied slots in one bulk write
        for (int slot = 0; slot < state.length; ) {
            if ((state[slot] & MultilevelTable.OCCUPIED) == 0) {
                slot++;
                continue;
            }
            int end = slot + 1;
            while (end < state.length && (state[end] & MultilevelTable.OCCUPIED) != 0) {
                end++;
            }
            w.putLongs(entries, slot * stride, (end - slot) * stride);
            slot = end;
        }
        return w.finish();
    }

    /**
     * Reads an image written by {@link #toByteArray}, validating every size against what the image holds
     * before allocating, every slot state, that each stored key sits in one of its own buckets, and that each
     * entry's counters are ones the table writes (1 ≤ packets ≤ the packets counter, bytes ≥ 0, first ≤ last ≤
     * now).
     *
     * @param exporter receiver of the restored table's exports (may be {@code null})
     * @throws IllegalArgumentException naming the field and its limit, for any corrupt or hostile image
     */
    public static FlowTable fromByteArray(byte[] image, FlowExporter exporter) {
        return read(ImageReader.open(image, Family.FLOW_TABLE, IMAGE_VERSION), exporter);
    }

    /**
     * Reads the table whose image of {@code length} bytes comes from {@code source}, through a small buffer
     * straight into the table's arrays (no array of the image's size), with the validation and messages of
     * {@link #fromByteArray}; takes exactly {@code length} bytes from the source either way.
     *
     * @param exporter receiver of the restored table's exports (may be {@code null})
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static FlowTable readImage(ImageReader.Source source, int length, FlowExporter exporter) {
        return ImageReader.read(source, length, Family.FLOW_TABLE, IMAGE_VERSION, in -> read(in, exporter));
    }

    private static FlowTable read(ImageReader in, FlowExporter exporter) {
        Builder b = builder();
        b.scheme(InsertionScheme.ofId(in.getInt("scheme")));
        int levels = in.getInt("levels", 1, TableLayout.MAX_LEVELS);
        int capacity = in.getInt("bucketCapacity", 1, 2);
        if (capacity != b.scheme.bucketCapacity()) {
            throw new IllegalArgumentException("image field bucketCapacity is " + capacity + ", scheme " + b.scheme
                    + " needs " + b.scheme.bucketCapacity());
        }
        b.stashCapacity(in.getInt("stashCapacity", 0, TableLayout.MAX_STASH));
        int[] buckets = new int[levels];
        long tableSlots = 0;
        for (int i = 0; i < levels; i++) {
            buckets[i] = in.getInt("buckets[" + i + "]", 1, (int) TableLayout.MAX_SLOTS);
            tableSlots += (long) buckets[i] * capacity;
        }
        if (tableSlots > TableLayout.MAX_SLOTS) {
            throw new IllegalArgumentException("image declares " + tableSlots + " table slots, limit is "
                    + TableLayout.MAX_SLOTS);
        }
        b.buckets(buckets);
        b.keyFormat(FlowKeyFormat.ofId(in.getInt("keyFormat")));
        b.userSlots(in.getInt("userSlots", 0, MAX_USER_SLOTS));
        b.overflowPolicy(OverflowPolicy.ofId(in.getInt("overflowPolicy")));
        b.summary(in.getInt("summary", 0, 1) == 1);
        b.capacity(in.getLong("capacity", 1, TableLayout.MAX_SLOTS));
        b.idleTimeout(in.getLong("idleTimeout", 1, Long.MAX_VALUE));
        b.activeTimeout(in.getLong("activeTimeout", 1, Long.MAX_VALUE));
        b.sweepSlotsPerUpdate(in.getInt("sweepSlotsPerUpdate", 0, 1024));
        b.seed(in.getLong("seed"));
        b.exporter(exporter);
        long now = in.getLong("now");
        int totalSlots = (int) tableSlots + b.stashCapacity;
        int cursor = in.getInt("cursor", 0, totalSlots);
        int stashSize = in.getInt("stashSize", 0, b.stashCapacity);
        long[] counters = new long[8 + ExportReason.values().length];
        for (int i = 0; i < counters.length; i++) { // named as in docs/STATE-FORMAT.md, so an error says which
            String name = i < 8 ? "counters[" + i + "] (" + COUNTER_NAMES[i] + ")"
                    : "exports[" + ExportReason.values()[i - 8] + "]";
            counters[i] = in.getLong(name, 0, Long.MAX_VALUE);
        }
        byte[] state = in.getBytes("slotStates", totalSlots); // checked against the image before allocating
        int occupied = in.getInt("occupiedSlots", 0, totalSlots);
        int stride = b.keyFormat.keyLongs() + COUNTERS + b.userSlots;
        long entryBytes = (long) occupied * stride * Long.BYTES;
        int lazilyDeleted = checkStates(state, (int) tableSlots, stashSize, occupied);
        if (entryBytes > in.imageLength()) {
            throw new IllegalArgumentException("image truncated: " + occupied + " entries need " + entryBytes
                    + " bytes, the image has " + in.imageLength());
        }
        // allocation is now bounded by the image itself: at most (8·entryLongs + 1) bytes per state byte read
        FlowTable t = new FlowTable(b);
        // The entries of occupied slots follow each other in the image: they are read in chunks of up to
        // EntryCheck.CHUNK, each scattered straight from the reader's window to its slots and checked right after,
        // while it is in the cache (a second pass over the entries, after all were read, took a third of the time
        // of reading an image).
        EntryCheck check = t.new EntryCheck(state, stashSize, occupied, now, counters[3]);
        int[] chunk = check.chunkSlots;
        int slot = 0;
        for (int left = occupied; left > 0; ) {
            int n = Math.min(left, chunk.length);
            // the next n occupied slots, without a branch per slot: checkStates counted exactly `occupied` of them
            for (int k = 0; k < n; slot++) {
                chunk[k] = slot;
                k += state[slot] & MultilevelTable.OCCUPIED;
            }
            in.getLongRecords("entries", t.entries, chunk, n, stride);
            check.entries(n);
            left -= n;
        }
        check.stash();
        in.finish();
        t.table.restore(state, stashSize, occupied, lazilyDeleted, counters[0], counters[1], counters[2]);
        for (int i = 0; i < stashSize; i++) {
            t.stashHashes[i] = t.hashAt(t.table.stashBase() + i);
            t.stashLast[i] = t.lastTimestamp(t.table.stashBase() + i);
        }
        t.now = now;
        t.cursor = cursor;
        t.packets = counters[3];
        t.newFlows = counters[4];
        t.summaryLookups = counters[5];
        t.summaryFalsePositives = counters[6];
        t.summaryFailures = counters[7];
        System.arraycopy(counters, 8, t.exports, 0, t.exports.length);
        return t;
    }

    /** Eight slot states at a time, for {@link #checkStates}. */
    private static final java.lang.invoke.VarHandle STATE_WORDS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    /** A long with 1 in every byte: multiplied by a state bit, that bit in all eight states of a word. */
    private static final long BYTES_OF = 0x0101_0101_0101_0101L;
    /** The bits a table slot's state may have. */
    private static final int STATE_BITS = MultilevelTable.OCCUPIED | MultilevelTable.DELETED | MultilevelTable.MARKED;

    /** The image's eight counters before the exports, in order. */
    private static final String[] COUNTER_NAMES = {"moves", "overflows", "rebuildMoves", "packets", "newFlows",
            "summaryLookups", "summaryFalsePositives", "summaryFailures"};

    /**
     * Checks every slot state (a table slot: only the OCCUPIED, DELETED and MARKED bits, DELETED only with OCCUPIED;
     * a stash slot: OCCUPIED exactly for the first stashSize) and that {@code occupied} counts the occupied slots.
     *
     * @return the number of lazily deleted slots
     */
    private static int checkStates(byte[] state, int tableSlots, int stashSize, int occupied) {
        // the table slots in one loop without branches (the bits of every invalid state ORed into bad), then, if
        // any was invalid, the slot-by-slot loop that names the first
        long badBits = 0;
        int count = 0;
        int deleted = 0;
        int slot = 0;
        for (; slot <= tableSlots - Long.BYTES; slot += Long.BYTES) { // 8 states at a time, one per byte
            long w = (long) STATE_WORDS.get(state, slot);
            badBits |= (w & ~(BYTES_OF * STATE_BITS))
                    | ((w >>> 1) & ~w & BYTES_OF); // DELETED (bit 1) without OCCUPIED (bit 0)
            count += Long.bitCount(w & (BYTES_OF * MultilevelTable.OCCUPIED));
            deleted += Long.bitCount(w & (BYTES_OF * MultilevelTable.DELETED));
        }
        int bad = badBits != 0 ? 1 : 0;
        for (; slot < tableSlots; slot++) {
            int s = state[slot];
            int d = (s >> 1) & 1; // DELETED
            bad |= (s & ~(MultilevelTable.OCCUPIED | MultilevelTable.DELETED | MultilevelTable.MARKED))
                    | (d & ~s); // DELETED without OCCUPIED
            count += s & MultilevelTable.OCCUPIED;
            deleted += d;
        }
        for (slot = tableSlots; slot < state.length; slot++) {
            bad |= state[slot] ^ (slot - tableSlots < stashSize ? MultilevelTable.OCCUPIED : 0);
            count += state[slot] & MultilevelTable.OCCUPIED;
        }
        if (bad != 0) {
            for (slot = 0; slot < state.length; slot++) {
                int s = state[slot];
                boolean stash = slot >= tableSlots;
                boolean valid = stash
                        ? s == (slot - tableSlots < stashSize ? MultilevelTable.OCCUPIED : 0)
                        : (s & ~(MultilevelTable.OCCUPIED | MultilevelTable.DELETED | MultilevelTable.MARKED)) == 0
                                && ((s & MultilevelTable.DELETED) == 0 || (s & MultilevelTable.OCCUPIED) != 0);
                if (!valid) {
                    throw new IllegalArgumentException("image field slotStates[" + slot + "] is " + s
                            + ", not a valid " + (stash ? "stash" : "slot") + " state (stash holds " + stashSize
                            + " entries)");
                }
            }
            throw new IllegalStateException("slot states flagged invalid, none found"); // unreachable
        }
        if (count != occupied) {
            throw new IllegalArgumentException("image field occupiedSlots is " + occupied + ", slot states say "
                    + count);
        }
        return deleted;
    }

    /**
     * Checks of an image's entries, slot by slot in increasing order: every key is well formed, every entry's
     * counters are ones the table can hold ({@link #countersValid}), every key sits in one of its own d buckets (or
     * the stash), and every live key is stored once. A lazily deleted slot is checked like a live one except for the
     * last (the writer writes it like a live one: the deleted flow's key and its counters as they were, the key in
     * its own bucket; the flow may be live again in another slot). The searches of lower sub-tables for a second copy
     * run in batches, later than the slot's other checks, so an image with several defects may be refused for
     * another one than before the batching (always with an IllegalArgumentException naming a slot). A second copy
     * of a flow would be in one of its d buckets or in the stash; slots are laid out sub-table by sub-table, then
     * the stash, so a live slot of sub-table L can only have an earlier copy in sub-tables 0..L, and only those
     * buckets are searched (a stash slot searches all d, and the stash itself is checked by sorting).
     */
    private final class EntryCheck {
        private static final int QUEUED = 4096;
        /** Entries read and checked at a time (a chunk of 1024 IPv4-only entries is 48 KiB). */
        private static final int CHUNK = 1024;
        private final byte[] state;
        private final int stashBase;
        private final int stashEnd;
        private final int cap;
        private final int levels;
        /** The slots of the chunk being read, in increasing order (filled by the reader). */
        final int[] chunkSlots;
        /** h1 of the key in each slot of {@link #chunkSlots}. */
        private final long[] chunkHashes;
        /** h2 of the same keys (0 for sub-table 0's, which do not need it). */
        private final long[] chunkHashes2;
        /**
         * A 16-bit fingerprint of the h1 of every live table slot checked so far (0 for the others): two copies
         * of a flow have the same h1, so a different fingerprint proves two keys distinct without reading the
         * other entry; equal ones compare the keys. The candidate buckets are random reads, and 2 bytes per table
         * slot keep them in the caches, where the 8-byte hashes this replaced (12 MB at 1.5M slots) did not.
         * Within the bound on allocation that the image's state bytes give.
         */
        private final char[] fingerprints;
        /**
         * Searches of lower sub-tables' buckets, queued as (slot, bucket), one queue per searched sub-table, each
         * run when it holds {@value #QUEUED}. Each is a random read of {@link #fingerprints}; in one short loop many
         * of them are in flight at once, where made entry by entry (or through {@link #bucket}'s loop) each waited
         * for its read (measured on a 1M-flow image: 16 ns per search that way, 3–5 ns in the loop), and with one
         * queue per sub-table the reads of a run fall in that sub-table's fingerprints only (1.1 MB for the largest
         * of a 1.5M-slot table, instead of 3 MB for all), so more of them hit the cache.
         */
        private final int[][] queuedSlots;
        private final int[][] queuedBuckets;
        private final int[] queued;
        /** The image's {@code now}: no entry's last timestamp is later. */
        private final long now;
        /** The image's packets counter (every packet accounted): no entry holds more. */
        private final long packetsCounted;
        private int level;
        private int levelEnd;

        EntryCheck(byte[] state, int stashSize, int occupied, long now, long packetsCounted) {
            this.state = state;
            this.now = now;
            this.packetsCounted = packetsCounted;
            this.stashBase = table.stashBase();
            this.stashEnd = stashBase + stashSize;
            this.cap = table.bucketCapacity();
            this.levels = table.levels();
            this.fingerprints = new char[stashBase];
            int queue = Math.min(QUEUED, Math.max(16, stashBase)); // a small table's read allocates little
            this.queuedSlots = new int[Math.max(1, levels - 1)][queue]; // no search goes to the last sub-table
            this.queuedBuckets = new int[Math.max(1, levels - 1)][queue];
            this.queued = new int[Math.max(1, levels - 1)];
            int chunk = Math.min(CHUNK, Math.max(1, occupied));
            this.chunkSlots = new int[chunk];
            this.chunkHashes = new long[chunk];
            this.chunkHashes2 = new long[chunk];
            this.levelEnd = table.firstSlotOf(1);
        }

        /**
         * Checks the entries of the first {@code n} slots of {@link #chunkSlots} (occupied slots, in increasing
         * order, after the previous chunk's) with {@link #entry}'s checks for each of them: the same checks and
         * messages, in loops without a call per entry. First the well-formedness of every key, its counters and its
         * hash, independent from entry to entry; should any key be malformed or any counters invalid, {@link #entry}
         * runs over the chunk slot by slot instead, so the error is the one the first defective slot gives. Then,
         * sub-table by sub-table, the own-bucket check and the check against the bucket's first entry, in slot order,
         * and the queued searches of lower sub-tables; as those run in batches anyway, an image with several defects
         * may be refused for another of them than entry by entry (always with an IllegalArgumentException naming a
         * slot).
         */
        void entries(int n) {
            int[] slots = chunkSlots;
            long[] h = chunkHashes;
            long[] e = entries;
            boolean malformed = false;
            if (keyLongs == 2) {
                // IPV4_ONLY: the key is (addresses, meta), so a key is well formed exactly when its version byte is 4
                // (entry()'s other conditions are identities for this format), and then its h1, hashAt's
                // hashIpv4(src, dst, ports, protocol), is that of the stored words (FiveTuple.meta(false, ...)
                // rebuilds the stored meta from its fields when the version is 4). Every occupied slot's key: a
                // lazily deleted one is a flow's key too (written like a live one)
                long wrong = 0;
                for (int k = 0; k < n; k++) {
                    int slot = slots[k];
                    int o = slot * stride;
                    long addresses = e[o];
                    long meta = e[o + 1] & KEY_MASK;
                    wrong |= (meta & 0xFF) ^ 4;
                    malformed |= !countersValid(slot);
                    h[k] = hasher.hashIpv4((int) (addresses >>> 32), (int) addresses, (int) (meta >>> 32) & 0xFFFF,
                            (int) (meta >>> 16) & 0xFFFF, (int) (meta >>> 8) & 0xFF);
                }
                malformed |= wrong != 0;
            } else {
                for (int k = 0; k < n; k++) {
                    int slot = slots[k];
                    malformed |= !wellFormed(slot) | !countersValid(slot);
                    h[k] = hashAt(slot);
                }
            }
            if (malformed) {
                for (int k = 0; k < n; k++) {
                    entry(slots[k]); // throws for the first defective slot
                }
                throw new IllegalStateException("a chunk flagged malformed passed the checks"); // unreachable
            }
            int k = 0;
            while (k < n && slots[k] < stashBase) {
                int slot = slots[k];
                while (slot >= levelEnd) {
                    level++;
                    levelEnd = level < levels ? table.firstSlotOf(level + 1) : Integer.MAX_VALUE;
                }
                int end = k + 1; // the chunk's slots in this sub-table: [k, end)
                int last = Math.min(levelEnd, stashBase);
                while (end < n && slots[end] < last) {
                    end++;
                }
                placed(k, end, level);
                k = end;
            }
            for (; k < n; k++) { // stash slots: every table slot's fingerprint is set by now
                int slot = slots[k];
                long h1 = h[k];
                long h2 = ItemHasher.h2(h1);
                char fingerprint = (char) ((h1 >>> 48) | 1);
                for (int l = 0; l < levels; l++) {
                    bucket(slot, fingerprint, table.bucketSlot(l, h1, h2));
                }
            }
        }

        /**
         * {@link #entry}'s checks after well-formedness for the chunk's slots [from, to), all in sub-table
         * {@code level}: in its own bucket, and for a live slot not the same flow as the bucket's first entry, and
         * the searches of the lower sub-tables queued.
         */
        private void placed(int from, int to, int level) {
            int[] slots = chunkSlots;
            long[] h = chunkHashes;
            long[] h2s = chunkHashes2;
            for (int k = from; k < to; k++) {
                int slot = slots[k];
                long h1 = h[k];
                // sub-table 0's bucket is bucketSlot(0, h1, h2) = mix(h1 + 0·h2) whatever h2, and it searches no
                // lower sub-table: its entries (the most of any sub-table) need no h2
                long h2 = level == 0 ? 0 : ItemHasher.h2(h1);
                h2s[k] = h2;
                if (isLiveState(slot)) {
                    checkOwnBucket(slot, level, h1, h2);
                } else {
                    inOwnBucket(slot, level, h1, h2); // lazily deleted: placed, but compared with no other flow
                }
            }
            // then the searches of each lower sub-table, queued in slot order as entry() queues them
            for (int l = 0; l < level; l++) {
                int[] queueSlots = queuedSlots[l];
                int[] queueBuckets = queuedBuckets[l];
                int q = queued[l];
                for (int k = from; k < to; k++) {
                    int slot = slots[k];
                    if (!isLiveState(slot)) {
                        continue;
                    }
                    if (q == queueSlots.length) {
                        queued[l] = q;
                        runQueue(l);
                        q = 0;
                    }
                    queueSlots[q] = slot;
                    queueBuckets[q] = table.bucketSlot(l, h[k], h2s[k]);
                    q++;
                }
                queued[l] = q;
            }
        }

        private boolean isLiveState(int slot) {
            return (state[slot] & (MultilevelTable.OCCUPIED | MultilevelTable.DELETED)) == MultilevelTable.OCCUPIED;
        }

        /**
         * The counters of the entry in {@code slot} are ones the table can hold, live or lazily deleted (a lazily
         * deleted entry keeps the counters it had when live, and nothing changes them after): packets in [1, the
         * image's packets counter] (a flow enters the table with its first packet, every packet an entry counts is
         * counted there too, and a record restarted by a timeout starts from its new first packet), bytes ≥ 0
         * (a packet's bytes are ≥ 0 and the sum saturates at Long.MAX_VALUE), and firstTimestamp ≤ lastTimestamp ≤
         * now (first and last are the least and largest timestamp of the record's packets, out of order or not, and
         * now is the largest timestamp seen). Nothing is checked of the TCP flags (any 16 bits, ORed in whatever the
         * protocol), of the user slots (any longs), of bytes per packet (0 is a valid packet size) or of the span
         * from first to last (an out-of-order packet moves first back past the active timeout; timeouts may change).
         */
        private boolean countersValid(int slot) {
            int base = slot * stride + keyLongs;
            long first = entries[base + FIRST];
            long last = entries[base + LAST];
            // packets - 1 < packetsCounted, unsigned: 1 <= packets <= packetsCounted (packetsCounted >= 0)
            return Long.compareUnsigned(entries[base + PACKETS] - 1, packetsCounted) < 0
                    & entries[base + BYTES] >= 0 & first <= last & last <= now;
        }

        /** Fails, naming the slot, the field and the rule, if the counters of {@code slot} are not valid. */
        private void checkCounters(int slot) {
            int base = slot * stride + keyLongs;
            long packetCount = entries[base + PACKETS];
            long bytes = entries[base + BYTES];
            long first = entries[base + FIRST];
            long last = entries[base + LAST];
            if (packetCount < 1 || packetCount > packetsCounted) {
                throw new IllegalArgumentException(entryName(slot) + " has packets " + packetCount + ", must be in [1, "
                        + packetsCounted + "] (at least its first packet, at most the image's packets counter)");
            }
            if (bytes < 0) {
                throw new IllegalArgumentException(entryName(slot) + " has bytes " + bytes + ", must be ≥ 0");
            }
            if (first > last) {
                throw new IllegalArgumentException(entryName(slot) + " has firstTimestamp " + first
                        + " after its lastTimestamp " + last + " (must be ≤ it)");
            }
            if (last > now) {
                throw new IllegalArgumentException(entryName(slot) + " has lastTimestamp " + last
                        + " after the image's now " + now + " (must be ≤ it)");
            }
        }

        /** The key in {@code slot} is a valid 5-tuple of the table's key format. */
        private boolean wellFormed(int slot) {
            int version = (int) (meta(slot) & 0xFF);
            return (version == 4 || (version == 6 && keyLongs == 5))
                    && (version == 6 || (srcHigh(slot) == 0 && dstHigh(slot) == 0
                            && (srcLow(slot) >>> 32) == 0 && (dstLow(slot) >>> 32) == 0));
        }

        /** The live table slot's key lies in its own bucket of its sub-table, and not twice in it. */
        private void checkOwnBucket(int slot, int level, long h1, long h2) {
            char fingerprint = (char) ((h1 >>> 48) | 1); // the top 15 bits of h1, never 0
            fingerprints[slot] = fingerprint;
            int base = inOwnBucket(slot, level, h1, h2);
            if (base < slot && fingerprints[base] == fingerprint) { // the bucket's first entry, if it is second
                checkDistinct(slot, base);
            }
        }

        /**
         * The first slot of the bucket of sub-table {@code level} that the key of {@code slot} (with hashes h1, h2)
         * belongs in, which must hold {@code slot}. Also for a lazily deleted slot: a flow is never moved once
         * lazily deleted, so its key stays in its own bucket until {@link #rebuild} drops it.
         */
        private int inOwnBucket(int slot, int level, long h1, long h2) {
            int base = table.bucketSlot(level, h1, h2);
            if (slot < base || slot >= base + cap) {
                throw new IllegalArgumentException(entryName(slot) + " is not in its own bucket of sub-table "
                        + (level + 1) + " (wrong seed or corrupt image)");
            }
            return base;
        }

        /** "image entry in slot N", and whether the flow there is lazily deleted, for the messages. */
        private String entryName(int slot) {
            return "image entry in slot " + slot + (isLiveState(slot) ? "" : " (lazily deleted)");
        }

        /**
         * The checks of one occupied slot, in order; the reference for {@link #entries}, and its path on a bad key.
         * A lazily deleted slot (a table slot only) is checked up to its bucket: it holds the key of a flow that
         * was live there, and may hold the same flow as another slot (one that came back after the deletion).
         */
        private void entry(int slot) {
            int level = 0;
            while (level + 1 < levels && slot >= table.firstSlotOf(level + 1)) {
                level++;
            }
            if (!wellFormed(slot)) {
                throw new IllegalArgumentException(entryName(slot) + " is not a valid "
                        + (keyLongs == 5 ? "IPv4/IPv6" : "IPv4") + " 5-tuple");
            }
            checkCounters(slot);
            long h1 = hashAt(slot);
            long h2 = ItemHasher.h2(h1);
            if (!isLiveState(slot)) {
                inOwnBucket(slot, level, h1, h2);
                return;
            }
            if (slot < stashBase) {
                checkOwnBucket(slot, level, h1, h2);
                for (int l = 0; l < level; l++) {
                    queue(l, slot, table.bucketSlot(l, h1, h2));
                }
                return;
            }
            char fingerprint = (char) ((h1 >>> 48) | 1);
            for (int l = 0; l < levels; l++) { // a stash slot: every table slot's fingerprint is set by now
                bucket(slot, fingerprint, table.bucketSlot(l, h1, h2));
            }
        }

        /**
         * Queues the search of a lower sub-table's bucket for a table slot. Fingerprints are set in slot order and a
         * search only compares slots before its own, so running it later finds what running it now would.
         */
        private void queue(int level, int slot, int bucket) {
            int q = queued[level];
            if (q == queuedSlots[level].length) {
                runQueue(level);
                q = 0;
            }
            queuedSlots[level][q] = slot;
            queuedBuckets[level][q] = bucket;
            queued[level] = q + 1;
        }

        /**
         * The queued searches of sub-table {@code level}, with the bucket capacity (1 or 2) unrolled: no inner loop
         * to hold up the reads.
         */
        private void runQueue(int level) {
            int[] slots = queuedSlots[level];
            int[] buckets = queuedBuckets[level];
            char[] f = fingerprints;
            for (int i = 0, n = queued[level]; i < n; i++) {
                int slot = slots[i];
                int base = buckets[i];
                char fingerprint = f[slot];
                if (f[base] == fingerprint && base < slot) {
                    checkDistinct(slot, base);
                }
                if (cap == 2 && f[base + 1] == fingerprint && base + 1 < slot) {
                    checkDistinct(slot, base + 1);
                }
            }
            queued[level] = 0;
        }

        /** Fails if a live slot of the bucket at {@code base}, before {@code slot}, holds the same flow. */
        private void bucket(int slot, char fingerprint, int base) {
            for (int other = base; other < base + cap; other++) {
                if (other < slot && fingerprints[other] == fingerprint) {
                    checkDistinct(slot, other);
                }
            }
        }

        /** Two copies in the stash: sorted by key they are neighbours (O(s log s) whatever the hashes). */
        void stash() {
            for (int l = 0; l < queued.length; l++) {
                runQueue(l); // the table slots' searches still waiting
            }
            Integer[] stash = new Integer[stashEnd - stashBase];
            for (int i = 0; i < stash.length; i++) {
                stash[i] = stashBase + i;
            }
            java.util.Arrays.sort(stash, FlowTable.this::compareKeys);
            for (int i = 1; i < stash.length; i++) {
                checkDistinct(Math.max(stash[i], stash[i - 1]), Math.min(stash[i], stash[i - 1]));
            }
        }
    }

    private int compareKeys(int slot, int other) {
        int a = slot * stride;
        int b = other * stride;
        for (int i = 0; i < keyLongs; i++) {
            long mask = i == keyLongs - 1 ? KEY_MASK : -1L; // the last key word carries the TCP flags
            int c = Long.compare(entries[a + i] & mask, entries[b + i] & mask);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private void checkDistinct(int slot, int other) {
        if (compareKeys(slot, other) == 0) {
            throw new IllegalArgumentException("image entry in slot " + slot + " is the same flow as slot " + other
                    + " (corrupt image)");
        }
    }

    // ---------------------------------------------------------------- builder

    /**
     * Settings of a {@link FlowTable}; every one has a default except {@link #capacity}, which explicit
     * {@link #buckets} make optional.
     */
    public static final class Builder {
        long capacity;
        InsertionScheme scheme = InsertionScheme.SECOND_CHANCE;
        int levels = 4;
        boolean levelsSet; // levels(d) was called: it must then agree with the length of alphas or buckets
        double[] alphas;
        int[] buckets;
        int stashCapacity = TableLayout.DEFAULT_STASH;
        FlowKeyFormat keyFormat = FlowKeyFormat.IPV4_AND_IPV6;
        int userSlots;
        long idleTimeout = 15_000;
        long activeTimeout = 1_800_000;
        int sweepSlotsPerUpdate = 2;
        OverflowPolicy overflowPolicy = OverflowPolicy.EVICT_LEAST_RECENT;
        boolean summary;
        long seed = ItemHasher.DEFAULT_SEED;
        FlowExporter exporter;

        Builder() {
        }

        /**
         * The number of flows n the sub-tables are sized for (α<sub>i</sub>·n buckets each). Required unless
         * {@link #buckets} give the sub-tables' sizes; then it sizes only the {@link #summary} (for at most the
         * sub-tables' slots, which is also what it is when not set).
         */
        public Builder capacity(long flows) {
            if (flows < 1 || flows > TableLayout.MAX_SLOTS) {
                throw new IllegalArgumentException("capacity must be in [1, " + TableLayout.MAX_SLOTS + "] flows, got "
                        + flows);
            }
            this.capacity = flows;
            return this;
        }

        /** Insertion scheme; default {@link InsertionScheme#SECOND_CHANCE}. */
        public Builder scheme(InsertionScheme scheme) {
            this.scheme = java.util.Objects.requireNonNull(scheme, "scheme");
            return this;
        }

        /**
         * Number of sub-tables d (3, 4 or 5 for Table 5.1's sizes); default 4, or the length of {@link #alphas} or
         * {@link #buckets}. With either of those it must equal their length: {@link #build()} fails naming both.
         */
        public Builder levels(int d) {
            if (d < 1 || d > TableLayout.MAX_LEVELS) {
                throw new IllegalArgumentException("levels must be in [1, " + TableLayout.MAX_LEVELS + "], got " + d);
            }
            this.levels = d;
            this.levelsSet = true;
            return this;
        }

        /**
         * Explicit α<sub>i</sub> (buckets per flow of each sub-table) instead of Table 5.1's; the number of sub-tables
         * is their count. Not with {@link #buckets}: {@link #build()} fails naming both.
         */
        public Builder alphas(double... alphas) {
            if (alphas.length < 1 || alphas.length > TableLayout.MAX_LEVELS) {
                throw new IllegalArgumentException("alphas must name 1 to " + TableLayout.MAX_LEVELS
                        + " sub-tables, got " + alphas.length);
            }
            this.alphas = alphas.clone();
            return this;
        }

        /**
         * Explicit bucket counts per sub-table (e.g. 40000, 10000, 5000, 2500, 2500) instead of capacity × α; the
         * number of sub-tables is their count. Not with {@link #alphas}: {@link #build()} fails naming both. No
         * {@link #capacity} is needed then: without one, the table's capacity is its sub-tables' slots (buckets ×
         * the scheme's bucket capacity, stash not counted), the most flows the summary's filters can ever hold.
         */
        public Builder buckets(int... buckets) {
            this.buckets = buckets.clone();
            return this;
        }

        /** Stash (overflow list) entries, searched on every miss; default 64. */
        public Builder stashCapacity(int entries) {
            if (entries < 0 || entries > TableLayout.MAX_STASH) {
                throw new IllegalArgumentException("stashCapacity must be in [0, " + TableLayout.MAX_STASH + "], got "
                        + entries);
            }
            this.stashCapacity = entries;
            return this;
        }

        /** Key width; default {@link FlowKeyFormat#IPV4_AND_IPV6}; IPV4_ONLY saves 24 bytes per slot. */
        public Builder keyFormat(FlowKeyFormat format) {
            this.keyFormat = java.util.Objects.requireNonNull(format, "keyFormat");
            return this;
        }

        /** User-defined long counters per flow (0 to {@value FlowTable#MAX_USER_SLOTS}); default 0. */
        public Builder userSlots(int slots) {
            if (slots < 0 || slots > MAX_USER_SLOTS) {
                throw new IllegalArgumentException("userSlots must be in [0, " + MAX_USER_SLOTS + "], got " + slots);
            }
            this.userSlots = slots;
            return this;
        }

        /** Idle (inactive) timeout in timestamp units; default 15,000 (15 s in milliseconds). */
        public Builder idleTimeout(long timeout) {
            this.idleTimeout = positiveTimeout("idleTimeout", timeout);
            return this;
        }

        /** Active timeout in timestamp units; default 1,800,000 (30 min in milliseconds). */
        public Builder activeTimeout(long timeout) {
            this.activeTimeout = positiveTimeout("activeTimeout", timeout);
            return this;
        }

        private static long positiveTimeout(String name, long timeout) {
            if (timeout <= 0) {
                throw new IllegalArgumentException(name + " must be > 0 (Long.MAX_VALUE disables it), got " + timeout);
            }
            return timeout;
        }

        /**
         * Slots the expiry sweep examines per update; default 2. A full pass takes slots / this many
         * updates, which bounds how late an idle flow is exported when nothing else touches it. 0 turns the sweep
         * off: a flow nothing touches then expires only through {@link FlowTable#advanceTime} or {@code flush}.
         */
        public Builder sweepSlotsPerUpdate(int slots) {
            if (slots < 0 || slots > 1024) {
                throw new IllegalArgumentException("sweepSlotsPerUpdate must be in [0, 1024], got " + slots);
            }
            this.sweepSlotsPerUpdate = slots;
            return this;
        }

        public Builder overflowPolicy(OverflowPolicy policy) {
            this.overflowPolicy = java.util.Objects.requireNonNull(policy, "overflowPolicy");
            return this;
        }

        /** Keep the multiple-Bloom-filter summary (§4.7.2, counting filters) so a lookup reads one bucket. */
        public Builder summary(boolean enabled) {
            this.summary = enabled;
            return this;
        }

        /** Hash seed (kept in the byte image); choose it at random where keys may be adversarial. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Receiver of exported flow records; without one, exports are counted and discarded. */
        public Builder exporter(FlowExporter exporter) {
            this.exporter = exporter;
            return this;
        }

        /** The shape the table would have, without building it ({@link FlowTable#plan()} of the table built). */
        public Plan plan() {
            TableLayout layout = layout();
            long flows = capacity(layout);
            checkImageFits(flows, buckets, layout, keyFormat, userSlots);
            return new Plan(scheme, layout, keyFormat, userSlots, flows, seed);
        }

        /**
         * Bytes of the image the table would have with every slot and the stash occupied, without building it;
         * {@link #build} and {@link #plan} refuse a table for which this exceeds {@link ImageWriter#MAX_IMAGE_BYTES}.
         */
        public long fullImageBytes() {
            return FlowTable.fullImageBytes(layout(), keyFormat, userSlots);
        }

        /** The capacity set, or with explicit buckets and none set, the sub-tables' slots. */
        long capacity(TableLayout layout) {
            return capacity != 0 ? capacity : layout.tableSlots();
        }

        /** Checks the settings first, then that a capacity is set where no explicit buckets size the sub-tables. */
        TableLayout layout() {
            if (alphas != null && buckets != null) {
                throw new IllegalArgumentException("set either alphas(..) or buckets(..), not both: each gives every"
                        + " sub-table's size (got alphas " + java.util.Arrays.toString(alphas) + " and buckets "
                        + java.util.Arrays.toString(buckets) + ")");
            }
            // levels, called before or after them, must agree with the sub-tables that buckets or alphas name
            int given = buckets != null ? buckets.length : alphas != null ? alphas.length : levels;
            if (levelsSet && given != levels) {
                throw new IllegalArgumentException("levels " + levels + " disagrees with the " + given + " sub-tables"
                        + " that " + (buckets != null ? "buckets" : "alphas") + " gave; set one of them");
            }
            if (buckets != null) {
                return TableLayout.of(scheme.bucketCapacity(), stashCapacity, buckets);
            }
            if (capacity == 0) {
                throw new IllegalArgumentException("capacity (flows) must be set: it sizes the sub-tables (or give"
                        + " their bucket counts with buckets(..))");
            }
            double[] a = alphas != null ? alphas : scheme.defaultAlphas(levels);
            return TableLayout.forItems(capacity, scheme, a, stashCapacity);
        }

        public FlowTable build() {
            return new FlowTable(this);
        }
    }
}
