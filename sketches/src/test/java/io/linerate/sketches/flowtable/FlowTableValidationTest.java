package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.ImageWriter;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Out-of-range settings, bad packet arguments and hostile byte images: each fails with an
 * {@link IllegalArgumentException} that names the field and its limit, and a hostile image fails before
 * anything the size of what it declares is allocated.
 */
class FlowTableValidationTest {

    private static final long MAX = TableLayout.MAX_SLOTS;

    /** Asserts {@code call} throws an IllegalArgumentException whose message contains every fragment. */
    private static void rejects(ThrowingCallable call, String... fragments) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).message().contains(fragments);
    }

    private static FlowTable.Builder table() {
        return FlowTable.builder().capacity(100);
    }

    // ------------------------------------------------------------------------------------------ builder

    @Test
    void capacityOutOfRange() {
        for (long bad : new long[] {0, -1, Long.MIN_VALUE, MAX + 1, Long.MAX_VALUE}) {
            rejects(() -> FlowTable.builder().capacity(bad), "capacity", "[1, " + MAX + "]", "got " + bad);
        }
        rejects(() -> FlowTable.builder().build(), "capacity", "must be set");
        // within the builder's range, but the sub-tables of Table 5.1 (1.29 buckets per flow) would exceed it
        rejects(() -> FlowTable.builder().capacity(MAX).build(), "slots", "limit is " + MAX);
    }

    /**
     * With explicit buckets, capacity sizes nothing but the summary, whose filters are never sized for more flows
     * than the sub-tables' slots: without a capacity the table takes those slots as its capacity, so it is the table
     * a capacity of that many flows (or more) gives. Without buckets, capacity sizes the sub-tables and stays required,
     * and alphas or levels with buckets are still refused.
     */
    @Test
    void bucketsNeedNoCapacity() {
        FlowTable.Builder noCapacity = FlowTable.builder().scheme(InsertionScheme.STANDARD_2).buckets(40, 30, 20, 10)
                .summary(true).keyFormat(FlowKeyFormat.IPV4_ONLY).seed(5);
        FlowTable t = noCapacity.build();
        assertThat(t.capacity()).isEqualTo(200);
        assertThat(noCapacity.plan()).isEqualTo(t.plan());
        assertThat(noCapacity.fullImageBytes()).isEqualTo(t.plan().fullImageBytes());
        for (long capacity : new long[] {200, MAX}) {
            FlowTable.Builder explicit = FlowTable.builder().scheme(InsertionScheme.STANDARD_2).buckets(40, 30, 20, 10)
                    .summary(true).keyFormat(FlowKeyFormat.IPV4_ONLY).seed(5).capacity(capacity);
            assertThat(t.memoryBytes()).isEqualTo(explicit.build().memoryBytes());
        }
        t.updateIpv4(1, 2, 3, 4, 6, 0, 100, 1);
        byte[] image = t.toByteArray();
        FlowTable back = FlowTable.fromByteArray(image, null);
        assertThat(back.capacity()).isEqualTo(200);
        assertThat(back.toByteArray()).isEqualTo(image);
        // without a summary too, and with a stash, which the capacity does not count
        assertThat(FlowTable.builder().scheme(InsertionScheme.STANDARD).buckets(8, 4).build().capacity()).isEqualTo(12);

        String required = "capacity (flows) must be set: it sizes the sub-tables (or give their bucket counts with"
                + " buckets(..))";
        assertThatThrownBy(() -> FlowTable.builder().build()).hasMessage(required);
        assertThatThrownBy(() -> FlowTable.builder().alphas(0.5, 0.3).build()).hasMessage(required);
        assertThatThrownBy(() -> FlowTable.builder().levels(3).plan()).hasMessage(required);
        assertThatThrownBy(() -> FlowTable.builder().fullImageBytes()).hasMessage(required);
        rejects(() -> FlowTable.builder().alphas(0.5, 0.3).buckets(10, 5).build(), "set either alphas(..) or"
                + " buckets(..), not both");
        rejects(() -> FlowTable.builder().buckets(10, 5).levels(3).build(), "levels 3", "2 sub-tables", "buckets");
    }

    @Test
    void levelsAlphasAndBucketsOutOfRange() {
        for (int bad : new int[] {0, -1, 17, Integer.MAX_VALUE}) {
            rejects(() -> table().levels(bad), "levels", "[1, 16]", "got " + bad);
        }
        // Table 5.1 has sub-table sizes for d = 3, 4, 5 only
        for (int d : new int[] {1, 2, 6, 16}) {
            rejects(() -> table().levels(d).build(), "levels must be 3, 4 or 5", "got " + d, "explicit");
        }
        rejects(() -> table().alphas(), "alphas", "1 to 16", "got 0");
        rejects(() -> table().alphas(new double[17]), "alphas", "1 to 16", "got 17");
        for (double bad : new double[] {0, -0.5, 64.5, Double.NaN, Double.POSITIVE_INFINITY}) {
            rejects(() -> table().alphas(0.5, bad, 0.3).build(), "alpha of sub-table 2", "(0, 64]", "got " + bad);
        }
        rejects(() -> FlowTable.builder().capacity(MAX).alphas(64, 1).build(), "sub-table 1", "buckets",
                "limit is " + MAX);
        rejects(() -> table().buckets().build(), "levels", "[1, 16]", "got 0");
        rejects(() -> table().buckets(new int[17]).build(), "levels", "[1, 16]", "got 17");
        rejects(() -> table().buckets(10, 0, 5).build(), "sub-table 2", "at least 1 bucket", "got 0");
        rejects(() -> table().buckets(10, 5, -3).build(), "sub-table 3", "at least 1 bucket", "got -3");
        rejects(() -> table().buckets(1 << 27, 1 << 27, 1).build(), "slots", "limit is " + MAX);
        // levels set after buckets or alphas, to another count: refused, not silently overridden by their length
        rejects(() -> table().buckets(10, 5, 5).levels(4).build(), "levels 4", "3 sub-tables", "buckets");
        rejects(() -> table().alphas(0.5, 0.3, 0.2).levels(5).build(), "levels 5", "3 sub-tables", "alphas");
        assertThat(table().buckets(10, 5, 5).levels(3).build().layout().levels()).isEqualTo(3);
    }

    /** Two ways of sizing the sub-tables, or a levels they contradict, fail naming both whatever the order. */
    @Test
    void alphasWithBucketsOrADisagreeingLevelsFailNamingBoth() {
        String both = "set either alphas(..) or buckets(..), not both: each gives every sub-table's size (got alphas"
                + " [0.5, 0.3, 0.2] and buckets [10, 5, 5])";
        assertThatThrownBy(() -> table().alphas(0.5, 0.3, 0.2).buckets(10, 5, 5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(both);
        assertThatThrownBy(() -> table().buckets(10, 5, 5).alphas(0.5, 0.3, 0.2).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(both);
        assertThatThrownBy(() -> table().buckets(10, 5, 5).alphas(0.5, 0.3, 0.2).plan())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(both);
        // levels set before them, to another count, was silently replaced by their length
        rejects(() -> table().levels(3).buckets(10, 5, 5, 5).build(), "levels 3", "4 sub-tables", "buckets");
        rejects(() -> table().levels(5).alphas(0.5, 0.3, 0.2).build(), "levels 5", "3 sub-tables", "alphas");
        assertThat(table().levels(3).alphas(0.5, 0.3, 0.2).build().layout().levels()).isEqualTo(3);
        assertThat(table().alphas(0.5, 0.3).build().layout().levels()).isEqualTo(2);
    }

    /** Each range's own limits are accepted: only what lies beyond them is refused. */
    @Test
    void theLimitsThemselvesAreAccepted() {
        double[] sixteen = new double[TableLayout.MAX_LEVELS];
        Arrays.fill(sixteen, 0.1);
        assertThat(table().scheme(InsertionScheme.STANDARD).alphas(sixteen).build().layout().levels()).isEqualTo(16);
        assertThat(table().sweepSlotsPerUpdate(1024).build().size()).isZero();
        int[] oneBucketEach = new int[TableLayout.MAX_LEVELS];
        Arrays.fill(oneBucketEach, 1);
        TableLayout widest = TableLayout.of(1, TableLayout.MAX_STASH, oneBucketEach);
        assertThat(widest.levels()).isEqualTo(16);
        assertThat(widest.stashCapacity()).isEqualTo(TableLayout.MAX_STASH);
        double[] one = {1.0};
        assertThat(TableLayout.forItems(1, InsertionScheme.STANDARD, one, 0).tableSlots()).isOne();
        assertThat(TableLayout.forItems(MAX, InsertionScheme.STANDARD, one, 0).tableSlots()).isEqualTo(MAX);
        // a bucket of two slots counts twice towards the limit on slots
        rejects(() -> TableLayout.of(2, 0, (int) (MAX / 2) + 1), "table would have " + (MAX + 2) + " slots",
                "limit is " + MAX);
        assertThat(TableLayout.of(1, 2, 3, 2)).isEqualTo(TableLayout.of(1, 2, 3, 2))
                .hasSameHashCodeAs(TableLayout.of(1, 2, 3, 2)).isNotEqualTo(TableLayout.of(1, 2, 3, 1))
                .isNotEqualTo(TableLayout.of(2, 2, 3, 2)).isNotEqualTo(TableLayout.of(1, 3, 3, 2));
    }

    @Test
    void stashUserSlotsTimeoutsAndSweepOutOfRange() {
        for (int bad : new int[] {-1, TableLayout.MAX_STASH + 1}) {
            rejects(() -> table().stashCapacity(bad), "stashCapacity", "[0, 65536]", "got " + bad);
        }
        for (int bad : new int[] {-1, FlowTable.MAX_USER_SLOTS + 1}) {
            rejects(() -> table().userSlots(bad), "userSlots", "[0, 16]", "got " + bad);
        }
        for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
            rejects(() -> table().idleTimeout(bad), "idleTimeout", "> 0", "got " + bad);
            rejects(() -> table().activeTimeout(bad), "activeTimeout", "> 0", "got " + bad);
        }
        for (int bad : new int[] {-1, 1025}) {
            rejects(() -> table().sweepSlotsPerUpdate(bad), "sweepSlotsPerUpdate", "[0, 1024]", "got " + bad);
        }
        rejects(() -> table().build().advanceTime(5, -1), "maxSlots", ">= 0");
        assertThatThrownBy(() -> table().scheme(null)).isInstanceOf(NullPointerException.class).hasMessage("scheme");
        assertThatThrownBy(() -> table().keyFormat(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("keyFormat");
        assertThatThrownBy(() -> table().overflowPolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("overflowPolicy");
    }

    @Test
    void schemeThatDoesNotFitTheLayout() {
        for (InsertionScheme scheme : new InsertionScheme[] {InsertionScheme.CONSERVATIVE,
            InsertionScheme.SECOND_CHANCE, InsertionScheme.EXTREME_SECOND_CHANCE, InsertionScheme.SECOND_CHANCE_2}) {
            rejects(() -> table().scheme(scheme).buckets(50).build(), "scheme " + scheme, "at least 2 levels",
                    "got 1");
            rejects(() -> table().scheme(scheme).alphas(1.5).build(), "scheme " + scheme, "at least 2 levels");
        }
        // the one-level layouts that moving schemes cannot use are fine for the standard ones
        assertThat(table().scheme(InsertionScheme.STANDARD).buckets(50).build().slots()).isEqualTo(50 + 64);
        assertThat(table().scheme(InsertionScheme.STANDARD_2).buckets(50).build().slots()).isEqualTo(100 + 64);
        rejects(() -> new MultilevelTable(TableLayout.of(2, 0, 4, 4), InsertionScheme.SECOND_CHANCE, null, null),
                "scheme SECOND_CHANCE needs buckets of 1 items, layout has 2");
        rejects(() -> InsertionScheme.ofId(6), "insertion scheme id", "[0, 5]", "got 6");
        rejects(() -> OverflowPolicy.ofId(-1), "overflow policy id", "[0, 1]", "got -1");
        rejects(() -> FlowKeyFormat.ofId(2), "key format id", "[0, 1]", "got 2");
    }

    @Test
    void tablesTooLargeToAllocateFailBeforeAllocating() {
        // 2^27 flows with 16 user slots: 1.7·10^8 slots of 25 longs, past the long[] limit and far past what one
        // image holds; with the summary on, its filters would need ~1 GB on their own: the size check must come first
        for (boolean summary : new boolean[] {false, true}) {
            failsFast(() -> FlowTable.builder().capacity(1 << 27).userSlots(16).summary(summary).build(),
                    "capacity 134217728 is too large: a full table's image", "lower capacity or userSlots");
        }
        // without user slots the hint names only what can be lowered (the flow meter has no user slots)
        assertThatThrownBy(() -> FlowTable.builder().capacity(1L << 26).build())
                .hasMessageContaining("is too large: a full table's image").hasMessageEndingWith(" lower capacity");
        failsFast(() -> FlowTable.builder().capacity(1 << 27).summary(true).buckets(1 << 28).build(),
                "scheme SECOND_CHANCE needs at least 2 levels");
    }

    /**
     * The boundary of the full-image limit: a table whose image, once full, has exactly {@link
     * ImageWriter#MAX_IMAGE_BYTES} (2^31 − 9) bytes, which the writer still writes, is accepted; one byte or one slot
     * more is refused, naming what sized the table (here its explicit buckets) and the limit: by the builder before
     * anything is allocated, and by the reader of an image that declares such a table before the table (only the
     * slot states, which the image holds, were read). A full image has
     * 204 + 4·levels + slots·(1 + 8·entryLongs) bytes: 14 sub-tables and 7 longs per entry (IPv4 keys, one user slot)
     * reach the limit exactly; 7 sub-tables and 6 longs per entry pass it by one byte. (A table at the limit is not
     * built here: its entries take 2.1 GB.)
     */
    @Test
    void theFullImageLimitIsAcceptedAndOneByteOrSlotPastItRefused() {
        long limit = ImageWriter.MAX_IMAGE_BYTES;
        int[] atLimit = new int[14];
        Arrays.fill(atLimit, 2_000_000);
        atLimit[13] = 37_675_147 - 64 - 13 * 2_000_000;
        assertThat(explicit(atLimit, 64, 1).fullImageBytes()).isEqualTo(limit);
        assertThat(explicit(atLimit, 64, 1).plan().fullImageBytes()).isEqualTo(limit);
        failsFast(() -> explicit(atLimit, 65, 1).plan(), "buckets " + Arrays.toString(atLimit)
                + " with stashCapacity 65 are too large: a full table's image (its state in a checkpoint) would have "
                + (limit + 57) + " bytes with keyFormat IPV4_ONLY and userSlots 1, above the " + limit
                + " one image may have (a Java array); lower buckets, stashCapacity or userSlots");

        int[] onePast = new int[7];
        Arrays.fill(onePast, 6_000_000);
        onePast[6] = 43_826_192 - 64 - 6 * 6_000_000;
        assertThat(explicit(onePast, 64, 0).fullImageBytes()).isEqualTo(limit + 1);
        String refused = "buckets " + Arrays.toString(onePast) + " with stashCapacity 64 are too large: a full "
                + "table's image (its state in a checkpoint) would have " + (limit + 1) + " bytes with keyFormat "
                + "IPV4_ONLY and userSlots 0, above the " + limit + " one image may have (a Java array); lower buckets "
                + "or stashCapacity";
        failsFast(() -> explicit(onePast, 64, 0).plan(), refused);
        failsFast(() -> explicit(onePast, 64, 0).build(), refused);
        // an image declaring that table, with its 43.8 million slot states (all empty); the helper's image of a small
        // table reads back as written
        byte[] small = emptyStandardImage(new int[] {3, 2}, 2, FlowKeyFormat.IPV4_ONLY, 0);
        assertThat(FlowTable.fromByteArray(small, null).toByteArray()).isEqualTo(small);
        byte[] image = emptyStandardImage(onePast, 64, FlowKeyFormat.IPV4_ONLY, 0);
        rejects(() -> FlowTable.fromByteArray(image, null), refused);
    }

    /** A STANDARD table of IPv4 keys with explicit buckets; its capacity (1000) does not size it. */
    private static FlowTable.Builder explicit(int[] buckets, int stash, int userSlots) {
        return FlowTable.builder().capacity(1000).scheme(InsertionScheme.STANDARD).buckets(buckets)
                .stashCapacity(stash).keyFormat(FlowKeyFormat.IPV4_ONLY).userSlots(userSlots);
    }

    /** The image of an empty STANDARD table (one slot per bucket) with these buckets, written field by field. */
    private static byte[] emptyStandardImage(int[] buckets, int stash, FlowKeyFormat format, int userSlots) {
        long slots = stash;
        for (int n : buckets) {
            slots += n;
        }
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(204 + 4L * buckets.length + slots))
                .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x4B53524C).put((byte) 9).put((byte) 1).putShort((short) 0); // magic, FLOW_TABLE, version 1
        b.putInt(InsertionScheme.STANDARD.ordinal()).putInt(buckets.length).putInt(1).putInt(stash);
        for (int n : buckets) {
            b.putInt(n);
        }
        b.putInt(format.ordinal()).putInt(userSlots).putInt(0).putInt(0); // overflow policy, no summary
        b.putLong(1000).putLong(15_000).putLong(1_800_000).putInt(2).putLong(7).putLong(Long.MIN_VALUE);
        b.putInt(0).putInt(0); // cursor, stashSize
        b.position(b.position() + 8 * (8 + ExportReason.values().length) + (int) slots); // counters, slot states: 0
        b.putInt(0); // occupiedSlots; the checksum follows
        return resealed(b.array());
    }

    @Test
    void aSummaryIsNeverSizedForMoreFlowsThanTheSubTablesHold() {
        // capacity only sizes the layout and the summary; with explicit small buckets a huge capacity must not
        // make the summary huge (its first filter can never hold more items than the sub-tables' slots)
        long before = allocatedBytes();
        FlowTable t = FlowTable.builder().capacity(MAX).buckets(40, 30, 20, 10).summary(true).build();
        long allocated = allocatedBytes() - before;
        assertThat(t.memoryBytes()).isLessThan(1 << 20);
        assertThat(allocated).isLessThan(16L << 20);
        t.updateIpv4(1, 2, 3, 4, 6, 0, 100, 1);
        assertThat(t.size()).isEqualTo(1);
    }

    // ------------------------------------------------------------------------------------------ packets

    @Test
    void badPacketArgumentsNameTheField() {
        // the checks an operator makes before it builds a table, as an update makes them
        FlowTable.checkPacket(FlowKeyFormat.IPV4_AND_IPV6, true, 0, 65535, 255, 65535, 0);
        FlowTable.checkPacket(FlowKeyFormat.IPV4_ONLY, false, 0, 65535, 255, 65535, 0);
        assertThatThrownBy(() -> FlowTable.checkPacket(FlowKeyFormat.IPV4_ONLY, true, 1, 2, 6, 0, 10))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("keyFormat IPV4_ONLY");
        rejects(() -> FlowTable.checkPacket(FlowKeyFormat.IPV4_AND_IPV6, true, 1, 65536, 6, 0, 10), "dstPort",
                "got 65536");
        rejects(() -> FlowTable.checkPacket(FlowKeyFormat.IPV4_ONLY, false, 1, 2, 6, 0, -1), "bytes", "got -1");
        FlowTable t = table().userSlots(1).build();
        t.updateIpv4(1, 2, 3, 4, 6, 0, 10, 100);
        byte[] image = t.toByteArray();
        for (int bad : new int[] {-1, 65536, Integer.MAX_VALUE}) {
            rejects(() -> t.updateIpv4(1, 2, bad, 4, 6, 0, 10, 200), "srcPort", "[0, 65535]", "got " + bad);
            rejects(() -> t.updateIpv4(1, 2, 3, bad, 6, 0, 10, 200), "dstPort", "[0, 65535]", "got " + bad);
            rejects(() -> t.updateIpv4(1, 2, 3, 4, 6, bad, 10, 200), "tcpFlags", "[0, 65535]", "got " + bad);
            rejects(() -> t.updateIpv6(1, 2, 3, 4, bad, 4, 6, 0, 10, 200), "srcPort", "[0, 65535]");
            rejects(() -> t.updateIpv6(1, 2, 3, 4, 3, bad, 6, 0, 10, 200), "dstPort", "[0, 65535]");
            rejects(() -> t.updateIpv6(1, 2, 3, 4, 3, 4, 6, bad, 10, 200), "tcpFlags", "[0, 65535]");
        }
        for (int bad : new int[] {-1, 256}) {
            rejects(() -> t.updateIpv4(1, 2, 3, 4, bad, 0, 10, 200), "protocol", "[0, 255]", "got " + bad);
            rejects(() -> t.updateIpv6(1, 2, 3, 4, 3, 4, bad, 0, 10, 200), "protocol", "[0, 255]", "got " + bad);
        }
        rejects(() -> t.updateIpv4(1, 2, 3, 4, 6, 0, -1, 200), "bytes", ">= 0", "got -1");
        rejects(() -> t.update(FiveTuple.ipv4(1, 2, 3, 4, 6), 0, Long.MIN_VALUE, 200), "bytes", ">= 0");
        // a rejected packet changes nothing: not the counters, not "now", and it runs no sweep
        assertThat(t.toByteArray()).isEqualTo(image);
        assertThat(t.now()).isEqualTo(100);
        // handles and user slots
        assertThatThrownBy(() -> t.addToUserSlot(0, 1, 5)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("user slot must be in [0, 1), got 1");
        int empty = t.find(FiveTuple.ipv4(1, 2, 3, 4, 6)) == 0 ? 1 : 0;
        for (int bad : new int[] {-1, empty, t.slots(), Integer.MAX_VALUE}) {
            rejects(() -> t.addToUserSlot(bad, 0, 5), "slot " + bad, "no live flow");
            rejects(() -> t.record(bad), "slot " + bad, "no live flow");
        }
    }

    // ------------------------------------------------------------------------------------------ images

    /** A small valid image: a few IPv4 and IPv6 flows (one in the stash, one lazily deleted), user slots. */
    private static FlowTable smallTable() {
        FlowTable t = FlowTable.builder().capacity(16).stashCapacity(2).userSlots(1).summary(true).build();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; t.stashSize() == 0; i++) { // until a flow finds its buckets full: room is left elsewhere
            t.updateIpv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), 443, 6, 0x12, 100, i);
            t.updateIpv6(rnd.nextLong(), rnd.nextLong(), 7, 8, 5353, 5353, 17, 0, 80, i);
        }
        FiveTuple inTable = null; // a flow in a sub-table, to delete lazily
        int tableSlots = t.layout().tableSlots();
        for (int slot = 0; slot < tableSlots && inTable == null; slot++) {
            FiveTuple k = keyIn(t, slot);
            inTable = t.find(k) == slot ? k : null;
        }
        assertThat(t.removeLazily(inTable)).isTrue();
        assertThat(t.lazilyDeleted()).isEqualTo(1);
        assertThat(t.size() + t.lazilyDeleted() - t.stashSize()).as("occupied table slots").isLessThan(tableSlots);
        return t;
    }

    /** The key of the live flow in {@code slot}, or one that is nowhere (for an empty slot). */
    private static FiveTuple keyIn(FlowTable t, int slot) {
        try {
            return t.record(slot).key();
        } catch (IllegalArgumentException empty) {
            return FiveTuple.ipv4(0, 0, 0, 0, 0);
        }
    }

    /** Field offsets of a FLOW_TABLE image (see FlowTable.toByteArray and ImageWriter's preamble). */
    private static final class Layout {
        final int levels;
        final int buckets;       // offset of buckets[0]
        final int keyFormat;
        final int userSlots;
        final int overflowPolicy;
        final int summary;
        final int capacity;
        final int idleTimeout;
        final int activeTimeout;
        final int sweep;
        final int seed;
        final int now;
        final int cursor;
        final int stashSize;
        final int counters;
        final int states;
        final int totalSlots;
        final int occupied;
        final int entries;

        Layout(byte[] image) {
            ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
            levels = b.getInt(12);
            int bucketCapacity = b.getInt(16);
            int stash = b.getInt(20);
            buckets = 24;
            long slots = 0;
            for (int i = 0; i < levels; i++) {
                slots += (long) b.getInt(buckets + 4 * i) * bucketCapacity;
            }
            totalSlots = (int) slots + stash;
            keyFormat = buckets + 4 * levels;
            userSlots = keyFormat + 4;
            overflowPolicy = userSlots + 4;
            summary = overflowPolicy + 4;
            capacity = summary + 4;
            idleTimeout = capacity + 8;
            activeTimeout = idleTimeout + 8;
            sweep = activeTimeout + 8;
            seed = sweep + 4;
            now = seed + 8;
            cursor = now + 8;
            stashSize = cursor + 4;
            counters = stashSize + 4;
            states = counters + 8 * (8 + ExportReason.values().length);
            occupied = states + totalSlots;
            entries = occupied + 4;
        }
    }

    private static byte[] withInt(byte[] image, int offset, int value) {
        byte[] copy = image.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        return resealed(copy);
    }

    private static byte[] withLong(byte[] image, int offset, long value) {
        byte[] copy = image.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putLong(offset, value);
        return resealed(copy);
    }

    /** Recomputes the CRC32C trailer, as an attacker who knows the format would. */
    private static byte[] resealed(byte[] image) {
        CRC32C crc = new CRC32C();
        crc.update(image, 0, image.length - 4);
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putInt(image.length - 4, (int) crc.getValue());
        return image;
    }

    private static long allocatedBytes() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "needs HotSpot's allocation counter");
        return ((com.sun.management.ThreadMXBean) bean).getCurrentThreadAllocatedBytes();
    }

    /**
     * Asserts {@code call} throws an IllegalArgumentException naming the fragments, having allocated less than
     * 16 MB on the way (what it rejects would have needed far more).
     */
    private static void failsFast(ThrowingCallable call, String... fragments) {
        long before = allocatedBytes();
        Throwable thrown = catchThrowable(call);
        long allocated = allocatedBytes() - before;
        assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
        assertThat(thrown.getMessage()).contains(fragments);
        assertThat(allocated).as("bytes allocated before failing: " + thrown.getMessage()).isLessThan(16L << 20);
    }

    private static void rejectsImage(byte[] image, String... fragments) {
        failsFast(() -> FlowTable.fromByteArray(image, null), fragments);
    }

    @Test
    void theSmallImageIsValidAndItsLayoutIsUnderstood() {
        FlowTable t = smallTable();
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        assertThat(at.entries + 4L + 8L * t.entryLongs() * countOccupied(image, at)).isEqualTo(image.length);
        assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
        assertThat(t.stashSize()).isPositive();
        assertThat(ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getLong(at.seed)).isEqualTo(t.seed());
    }

    private static int countOccupied(byte[] image, Layout at) {
        int n = 0;
        for (int i = 0; i < at.totalSlots; i++) {
            n += image[at.states + i] & MultilevelTable.OCCUPIED;
        }
        return n;
    }

    @Test
    void truncatedAtEveryLength() {
        byte[] image = smallTable().toByteArray();
        rejects(() -> FlowTable.fromByteArray(null, null), "image is null");
        for (int length = 0; length < image.length; length++) {
            byte[] cut = Arrays.copyOf(image, length);
            rejects(() -> FlowTable.fromByteArray(cut, null), length < 12 ? "truncated" : "CRC32C");
            // and with a checksum made to fit, so that the fields themselves are read short
            if (length >= 12) {
                byte[] sealed = resealed(Arrays.copyOf(image, length));
                Throwable thrown = catchThrowable(() -> FlowTable.fromByteArray(sealed, null));
                int len = length;
                assertThat(thrown).as("resealed at length %d", len).isInstanceOf(IllegalArgumentException.class);
                assertThat(thrown.getMessage()).as("resealed at length %d", len).containsAnyOf("truncated",
                        "must be in", "slot states say", "slotStates", "not a valid");
            }
        }
        byte[] longer = resealed(Arrays.copyOf(image, image.length + 8));
        rejects(() -> FlowTable.fromByteArray(longer, null), "8 unexpected trailing bytes");
    }

    @Test
    void flippedBytesAreCaughtByTheChecksum() {
        byte[] image = smallTable().toByteArray();
        SplittableRandom rnd = new SplittableRandom(17);
        for (int trial = 0; trial < 2000; trial++) {
            byte[] bad = image.clone();
            int flips = 1 + rnd.nextInt(3);
            int lowest = Integer.MAX_VALUE;
            for (int f = 0; f < flips; f++) {
                int at = rnd.nextInt(image.length);
                bad[at] ^= (byte) (1 + rnd.nextInt(255));
                lowest = Math.min(lowest, at);
            }
            if (Arrays.equals(bad, image)) {
                continue;
            }
            int first = lowest;
            Throwable thrown = catchThrowable(() -> FlowTable.fromByteArray(bad, null));
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
            if (first >= 6) { // past magic, family and version: only the checksum can tell
                assertThat(thrown.getMessage()).contains("CRC32C");
            }
        }
    }

    /**
     * Random changes with the checksum rebuilt, as from an attacker: the reader must reject the image with an
     * IllegalArgumentException or return a table that works (never another exception, never a broken table).
     */
    @Test
    void resealedRandomChangesAreRejectedOrHarmless() {
        byte[] image = smallTable().toByteArray();
        SplittableRandom rnd = new SplittableRandom(23);
        int accepted = 0;
        for (int trial = 0; trial < 3000; trial++) {
            byte[] bad = image.clone();
            int flips = 1 + rnd.nextInt(4);
            for (int f = 0; f < flips; f++) {
                bad[8 + rnd.nextInt(image.length - 12)] ^= (byte) (1 << rnd.nextInt(8));
            }
            resealed(bad);
            FlowTable t;
            try {
                t = FlowTable.fromByteArray(bad, null);
            } catch (IllegalArgumentException expected) {
                continue;
            }
            accepted++;
            int[] live = new int[1];
            t.forEach(r -> live[0]++);
            assertThat(t.size()).isEqualTo(live[0]).isLessThanOrEqualTo(t.slots());
            for (int i = 0; i < 50; i++) {
                t.updateIpv4(i, 2, 3, 4, 6, 0, 10, t.now() + i);
            }
            t.rebuild();
            assertThat(FlowTable.fromByteArray(t.toByteArray(), null).toByteArray()).isEqualTo(t.toByteArray());
            t.flush();
            assertThat(t.size()).isZero();
        }
        assertThat(accepted).as("some changes (counters, timestamps) are harmless").isPositive();
    }

    @Test
    void hostileSizesAreRejectedBeforeAllocating() {
        byte[] image = smallTable().toByteArray();
        Layout at = new Layout(image);
        rejectsImage(withInt(image, 8, 6), "insertion scheme id", "got 6");
        rejectsImage(withInt(image, 8, InsertionScheme.STANDARD_2.ordinal()), "bucketCapacity is 1",
                "scheme STANDARD_2 needs 2");
        rejectsImage(withInt(image, 12, 17), "levels", "is 17", "[1, 16]");
        rejectsImage(withInt(image, 12, 0), "levels", "is 0", "[1, 16]");
        rejectsImage(withInt(image, 12, Integer.MAX_VALUE), "levels", "[1, 16]");
        rejectsImage(withInt(image, 16, 3), "bucketCapacity", "[1, 2]");
        rejectsImage(withInt(image, 20, TableLayout.MAX_STASH + 1), "stashCapacity", "[0, 65536]");
        rejectsImage(withInt(image, 20, -1), "stashCapacity", "[0, 65536]");
        // the largest legal stash and slot counts: the image does not hold their slot states
        rejectsImage(withInt(image, 20, TableLayout.MAX_STASH), "truncated", "slotStates");
        rejectsImage(withInt(image, at.buckets, (int) MAX - 100), "truncated", "slotStates");
        rejectsImage(withInt(image, at.buckets, (int) MAX), "table slots", "limit is " + MAX);
        int others = at.totalSlots - 2 - ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getInt(at.buckets);
        assertThat(ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getInt(16)).as("bucketCapacity").isOne();
        rejectsImage(withInt(image, at.buckets, (int) MAX - others), "truncated", "slotStates"); // exactly MAX slots
        rejectsImage(withInt(image, at.buckets, Integer.MAX_VALUE), "buckets[0]", "must be in [1, " + MAX + "]");
        rejectsImage(withInt(image, at.buckets, 0), "buckets[0]", "is 0");
        rejectsImage(withInt(image, at.keyFormat, 2), "key format id", "got 2");
        rejectsImage(withInt(image, at.userSlots, 17), "userSlots", "[0, 16]");
        rejectsImage(withInt(image, at.overflowPolicy, 2), "overflow policy id", "got 2");
        rejectsImage(withInt(image, at.summary, 2), "summary", "[0, 1]");
        rejectsImage(withLong(image, at.capacity, 0), "capacity", "[1, " + MAX + "]");
        rejectsImage(withLong(image, at.capacity, MAX + 1), "capacity", "[1, " + MAX + "]");
        rejectsImage(withLong(image, at.idleTimeout, 0), "idleTimeout", "is 0");
        rejectsImage(withLong(image, at.activeTimeout, -1), "activeTimeout", "is -1");
        rejectsImage(withInt(image, at.sweep, 1025), "sweepSlotsPerUpdate", "[0, 1024]");
        rejectsImage(withInt(image, at.cursor, at.totalSlots + 1), "cursor", "[0, " + at.totalSlots + "]");
        rejectsImage(withInt(image, at.stashSize, 3), "stashSize", "[0, 2]");
        rejectsImage(withLong(image, at.counters + 8 * 3, -1), "counters[3] (packets)", "is -1");
        rejectsImage(withLong(image, at.counters + 8 * 8, -1), "exports[IDLE_TIMEOUT]", "is -1"); // offset o + 132
        rejectsImage(withLong(image, at.counters + 8 * 12, -1), "exports[FLUSHED]", "is -1");
        rejectsImage(withInt(image, at.occupied, Integer.MAX_VALUE), "occupiedSlots", "[0, " + at.totalSlots + "]");
        rejectsImage(withInt(image, at.occupied, countOccupied(image, at) - 1), "occupiedSlots", "slot states say");
        // a summary sized for 2^28 flows on a table of a few dozen slots: accepted, but without a huge summary
        long before = allocatedBytes();
        FlowTable huge = FlowTable.fromByteArray(withLong(image, at.capacity, MAX), null);
        assertThat(allocatedBytes() - before).isLessThan(16L << 20);
        assertThat(huge.capacity()).isEqualTo(MAX);
    }

    @Test
    void badSlotStatesAreRejected() {
        byte[] image = smallTable().toByteArray();
        Layout at = new Layout(image);
        int free = -1;
        for (int i = 0; i < at.totalSlots - 2; i++) {
            if (image[at.states + i] == 0) {
                free = i;
                break;
            }
        }
        int slot = free;
        assertThat(slot).isNotNegative();
        byte[] bad = image.clone();
        bad[at.states + slot] = 8; // no such state bit
        rejectsImage(resealed(bad), "slotStates[" + slot + "]", "not a valid slot state");
        byte[] deletedButEmpty = image.clone();
        deletedButEmpty[at.states + slot] = MultilevelTable.DELETED;
        rejectsImage(resealed(deletedButEmpty), "slotStates[" + slot + "]");
        // the stash is compact and holds stashSize entries: flipping its last slot breaks that either way
        byte[] stashGap = image.clone();
        int stashSlot = at.totalSlots - 1;
        stashGap[at.states + stashSlot] ^= MultilevelTable.OCCUPIED;
        rejectsImage(resealed(stashGap), "slotStates[" + stashSlot + "]", "stash");
    }

    /**
     * Every table slot's state is checked and counted, also in the slots after the last whole group of eight (read
     * one at a time, the others eight at a time): a state bit that does not exist, DELETED without OCCUPIED, and a
     * lazily deleted flow, wherever it is.
     */
    @Test
    void everyTableSlotsStateIsCheckedAndCounted() {
        FlowTable t = smallTable();
        int tableSlots = t.layout().tableSlots();
        int tail = tableSlots - tableSlots % 8;
        assertThat(tail).as("slots after the last group of eight").isLessThan(tableSlots);
        for (int slot = tableSlots - 1; slot >= tail; slot--) { // one free slot there too
            FiveTuple k = keyIn(t, slot);
            if (t.find(k) == slot) {
                assertThat(t.remove(k)).isTrue();
                break;
            }
        }
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        int[] kinds = new int[2]; // free and occupied (not lazily deleted) slots of the tail
        for (int slot = 0; slot < tableSlots; slot++) {
            byte state = image[at.states + slot];
            byte[] bad = image.clone();
            bad[at.states + slot] = (byte) (state | 8); // no such state bit
            rejectsImage(resealed(bad), "slotStates[" + slot + "]", "not a valid slot state");
            if (state == 0) {
                byte[] deletedButEmpty = image.clone();
                deletedButEmpty[at.states + slot] = MultilevelTable.DELETED;
                rejectsImage(resealed(deletedButEmpty), "slotStates[" + slot + "]", "not a valid slot state");
            } else if (state == MultilevelTable.OCCUPIED) { // its flow lazily deleted instead: one more of them
                byte[] deleted = image.clone();
                deleted[at.states + slot] = MultilevelTable.OCCUPIED | MultilevelTable.DELETED;
                assertThat(FlowTable.fromByteArray(resealed(deleted), null).lazilyDeleted()).as("slot %d", slot)
                        .isEqualTo(2);
            }
            if (slot >= tail && (state == 0 || state == MultilevelTable.OCCUPIED)) {
                kinds[state]++;
            }
        }
        assertThat(kinds[0]).as("free slots in the tail").isPositive();
        assertThat(kinds[1]).as("occupied slots in the tail").isPositive();
    }

    /**
     * Slot states that claim more entries than the image holds: rejected, naming what the entries need, before the
     * table is allocated (8 longs per slot here, 64 bytes where the image has 1).
     */
    @Test
    void entriesTheImageDoesNotHoldAreRejectedBeforeTheTableIsAllocated() {
        byte[] image = FlowTable.builder().capacity(400_000).stashCapacity(0).keyFormat(FlowKeyFormat.IPV4_ONLY)
                .userSlots(2).build().toByteArray();
        Layout at = new Layout(image);
        byte[] bad = image.clone();
        Arrays.fill(bad, at.states, at.states + at.totalSlots, MultilevelTable.OCCUPIED);
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(at.occupied, at.totalSlots);
        rejectsImage(resealed(bad), "image truncated: " + at.totalSlots + " entries need");
    }

    /** A table of fewer slots than one group of eight states (three, and a stash of two) reads back. */
    @Test
    void aTableOfFewerThanEightSlotsReadsBack() {
        FlowTable t = FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(2, 1).stashCapacity(2)
                .build();
        for (int i = 0; i < 5; i++) {
            t.updateIpv4(i, 9, 1, 1, 6, 0, 10, i);
        }
        byte[] image = t.toByteArray();
        FlowTable read = FlowTable.fromByteArray(image, null);
        assertThat(read.toByteArray()).isEqualTo(image);
        assertThat(read.size()).isEqualTo(t.size()).isPositive();
    }

    @Test
    void anEntryInAWrongSlotOrUnderAWrongSeedIsRejected() {
        FlowTable t = FlowTable.builder().capacity(8).stashCapacity(2).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        FiveTuple key = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6);
        t.update(key, 0x02, 60, 1);
        int home = t.find(key);
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        MultilevelTable placement = new MultilevelTable(t.layout(), t.scheme(), null, null);
        long h1 = ItemHasher.seeded(t.seed()).hash(key);
        int tableSlots = t.layout().tableSlots();
        int moved = 0;
        for (int slot = 0; slot < tableSlots; slot++) {
            if (slot == home) {
                continue;
            }
            // the one entry, moved to another slot: same bytes, another state byte set
            byte[] bad = image.clone();
            bad[at.states + home] = 0;
            bad[at.states + slot] = MultilevelTable.OCCUPIED;
            resealed(bad);
            int level = placement.levelOf(slot);
            if (placement.bucketSlot(level, h1, ItemHasher.h2(h1)) == slot) {
                // its own bucket in another sub-table: a legal place
                assertThat(FlowTable.fromByteArray(bad, null).find(key)).isEqualTo(slot);
            } else {
                rejectsImage(bad, "image entry in slot " + slot, "not in its own bucket of sub-table " + (level + 1));
                moved++;
            }
        }
        assertThat(moved).isGreaterThan(tableSlots / 2);
        // in the stash, any key is in its place
        byte[] inStash = image.clone();
        inStash[at.states + home] = 0;
        inStash[at.states + tableSlots] = MultilevelTable.OCCUPIED;
        ByteBuffer.wrap(inStash).order(ByteOrder.LITTLE_ENDIAN).putInt(at.stashSize, 1);
        assertThat(FlowTable.fromByteArray(resealed(inStash), null).find(key)).isEqualTo(tableSlots);

        // a full table read with another seed: its keys are not where that seed puts them
        FlowTable full = FlowTable.builder().capacity(200).build();
        SplittableRandom rnd = new SplittableRandom(9);
        for (int i = 0; i < 150; i++) {
            full.updateIpv4(rnd.nextInt(), rnd.nextInt(), 1, 2, 17, 0, 1, i);
        }
        byte[] fullImage = full.toByteArray();
        rejectsImage(withLong(fullImage, new Layout(fullImage).seed, full.seed() + 1), "not in its own bucket",
                "wrong seed or corrupt image");
    }

    /** The same flow twice, in its bucket and in the stash, or twice in the stash: two live entries for one key. */
    @Test
    void aFlowStoredTwiceIsRejected() {
        FlowTable t = FlowTable.builder().capacity(8).stashCapacity(2).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        FiveTuple key = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6);
        t.update(key, 0x02, 60, 1);
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        int tableSlots = t.layout().tableSlots();
        int entryBytes = 8 * t.entryLongs();
        byte[] entry = Arrays.copyOfRange(image, at.entries, at.entries + entryBytes);
        // a copy of the entry in stash slot 0: the entries of occupied slots are in slot order, so it goes last
        byte[] twice = Arrays.copyOf(image, image.length + entryBytes);
        System.arraycopy(entry, 0, twice, image.length - 4, entryBytes);
        twice[at.states + tableSlots] = MultilevelTable.OCCUPIED;
        ByteBuffer b = ByteBuffer.wrap(twice).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at.stashSize, 1).putInt(at.occupied, 2);
        b.putLong(at.counters + 8 * 3, 8); // the packets counter: at least any entry's packets (7, below)
        rejectsImage(resealed(twice), "image entry in slot " + tableSlots, "same flow as slot");
        // and twice in the stash
        byte[] inStash = Arrays.copyOf(twice, twice.length);
        inStash[at.states + t.find(key)] = 0;
        inStash[at.states + tableSlots + 1] = MultilevelTable.OCCUPIED;
        ByteBuffer.wrap(inStash).order(ByteOrder.LITTLE_ENDIAN).putInt(at.stashSize, 2);
        rejectsImage(resealed(inStash), "same flow as slot");
        // twice in the stash, the second copy with other TCP flags (in the key's last word) and another count
        byte[] differing = Arrays.copyOf(inStash, inStash.length);
        ByteBuffer d = ByteBuffer.wrap(differing).order(ByteOrder.LITTLE_ENDIAN);
        int second = differing.length - 4 - entryBytes; // key words 0 and 1, then packets
        d.putLong(second + 8, d.getLong(second + 8) ^ (0x10L << 48)).putLong(second + 16, 7);
        rejectsImage(resealed(differing), "image entry in slot " + (tableSlots + 1), "same flow as slot " + tableSlots);
    }

    /** Two copies of a flow in the stash with another flow between them: found, the stash being compared sorted. */
    @Test
    void twoCopiesInTheStashWithAnotherFlowBetweenAreFound() {
        FlowTable.Builder builder = FlowTable.builder().capacity(8).stashCapacity(3).keyFormat(FlowKeyFormat.IPV4_ONLY);
        byte[] copy = onlyEntry(builder, FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6));
        byte[] between = onlyEntry(builder, FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 81, 6));
        FlowTable empty = builder.build();
        byte[] image = empty.toByteArray();
        Layout at = new Layout(image);
        int stashBase = empty.layout().tableSlots();
        int entryBytes = copy.length;
        byte[] bad = Arrays.copyOf(image, image.length + 3 * entryBytes); // the entries go before the checksum
        System.arraycopy(copy, 0, bad, image.length - 4, entryBytes);
        System.arraycopy(between, 0, bad, image.length - 4 + entryBytes, entryBytes);
        System.arraycopy(copy, 0, bad, image.length - 4 + 2 * entryBytes, entryBytes);
        Arrays.fill(bad, at.states + stashBase, at.states + stashBase + 3, MultilevelTable.OCCUPIED);
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(at.stashSize, 3).putInt(at.occupied, 3)
                .putLong(at.counters + 8 * 3, 3).putLong(at.now, 1); // the entries' packets; their timestamp
        rejectsImage(resealed(bad), "same flow as slot");
    }

    /** The entry of a table of {@code builder}'s that holds one flow, {@code key}, as its image has it. */
    private static byte[] onlyEntry(FlowTable.Builder builder, FiveTuple key) {
        FlowTable t = builder.build();
        t.update(key, 0x02, 60, 1);
        byte[] image = t.toByteArray();
        int entries = new Layout(image).entries;
        return Arrays.copyOfRange(image, entries, entries + 8 * t.entryLongs());
    }

    /**
     * The same flow in two of its own buckets (any two sub-tables), or twice in one bucket of capacity 2: each
     * copy is in a legal place, only the search for a second copy catches it, whichever copy comes first.
     */
    @Test
    void aFlowInTwoOfItsOwnBucketsIsRejected() {
        for (InsertionScheme scheme : new InsertionScheme[] {InsertionScheme.SECOND_CHANCE, InsertionScheme.SECOND_CHANCE_2}) {
            FlowTable t = FlowTable.builder().capacity(64).scheme(scheme).stashCapacity(2)
                    .keyFormat(FlowKeyFormat.IPV4_ONLY).build();
            FiveTuple key = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6);
            t.update(key, 0x02, 60, 1);
            byte[] image = t.toByteArray();
            Layout at = new Layout(image);
            MultilevelTable placement = new MultilevelTable(t.layout(), t.scheme(), null, null);
            long h1 = ItemHasher.seeded(t.seed()).hash(key);
            long h2 = ItemHasher.h2(h1);
            int levels = t.layout().levels();
            assertThat(levels).isGreaterThanOrEqualTo(3);
            int pairs = 0;
            for (int a = 0; a < levels; a++) {
                for (int b = a; b < levels; b++) {
                    int first = placement.bucketSlot(a, h1, h2);
                    int second = a == b ? first + 1 : placement.bucketSlot(b, h1, h2);
                    if (a == b && scheme.bucketCapacity() < 2) {
                        continue;
                    }
                    rejectsImage(withTwoCopies(image, at, t, first, second), "image entry in slot " + second,
                            "same flow as slot " + first);
                    pairs++;
                }
            }
            assertThat(pairs).isEqualTo(scheme.bucketCapacity() == 2 ? levels * (levels + 1) / 2 : levels * (levels - 1) / 2);
        }
    }

    /** {@code image} (one entry) with that entry in {@code first} and in {@code second} (first &lt; second). */
    private static byte[] withTwoCopies(byte[] image, Layout at, FlowTable t, int first, int second) {
        int entryBytes = 8 * t.entryLongs();
        byte[] entry = Arrays.copyOfRange(image, at.entries, at.entries + entryBytes);
        byte[] twice = Arrays.copyOf(image, image.length + entryBytes);
        System.arraycopy(entry, 0, twice, image.length - 4, entryBytes);
        Arrays.fill(twice, at.states, at.states + at.totalSlots, (byte) 0);
        twice[at.states + first] = MultilevelTable.OCCUPIED;
        twice[at.states + second] = MultilevelTable.OCCUPIED;
        ByteBuffer.wrap(twice).order(ByteOrder.LITTLE_ENDIAN).putInt(at.occupied, 2);
        return resealed(twice);
    }

    /**
     * A large table reads back equal: with 200,000 flows many candidate buckets hold a flow whose 15-bit
     * fingerprint equals the checked flow's (about one comparison in 32,768), and those must compare keys, not
     * reject.
     */
    @Test
    void aLargeTableReadsBackEqual() {
        FlowTable t = FlowTable.builder().capacity(240_000).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        SplittableRandom rnd = new SplittableRandom(31);
        for (int i = 0; i < 200_000; i++) {
            t.updateIpv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), 443, 6, 0x10, 100, i);
        }
        byte[] image = t.toByteArray();
        FlowTable copy = FlowTable.fromByteArray(image, null);
        assertThat(copy.size()).isEqualTo(t.size());
        assertThat(copy.toByteArray()).isEqualTo(image);
    }

    /**
     * A second copy of one flow among 50,000, in the last sub-table: the read queues each search of a lower
     * sub-table's bucket and runs the queue whenever it is full (every 4,096), so this search runs with thousands of
     * others, late in the read. It must still find the first copy, in either slot of a two-entry bucket.
     */
    @Test
    void aSecondCopyAmongManyFlowsIsFound() {
        for (InsertionScheme scheme : new InsertionScheme[] {InsertionScheme.SECOND_CHANCE,
                InsertionScheme.SECOND_CHANCE_2}) {
            FlowTable t = FlowTable.builder().capacity(60_000).scheme(scheme).keyFormat(FlowKeyFormat.IPV4_ONLY)
                    .build();
            SplittableRandom rnd = new SplittableRandom(37);
            for (int i = 0; i < 50_000; i++) {
                t.updateIpv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), 443, 6, 0x10, 100, i);
            }
            byte[] image = t.toByteArray();
            Layout at = new Layout(image);
            MultilevelTable placement = new MultilevelTable(t.layout(), t.scheme(), null, null);
            int cap = scheme.bucketCapacity();
            int last = t.layout().levels() - 1;
            int first = -1;
            int second = -1;
            // the last slot of a first-level bucket (for two-entry buckets, the slot the unrolled second test reads)
            for (int slot = cap - 1; slot < t.layout().buckets(0) * cap && second < 0; slot += cap) {
                if (image[at.states + slot] != MultilevelTable.OCCUPIED) {
                    continue;
                }
                long h1 = t.hashAt(slot);
                int candidate = placement.bucketSlot(last, h1, ItemHasher.h2(h1));
                if (image[at.states + candidate] == 0) {
                    first = slot;
                    second = candidate;
                }
            }
            assertThat(second).as("an empty bucket in the last sub-table").isPositive();
            byte[] twice = withCopy(image, at, t, first, second);
            rejectsImage(twice, "image entry in slot " + second, "same flow as slot " + first);
            // and early in sub-table 2: its search is in the first batch of sub-table 1's queue, run when it fills
            int level1 = t.layout().buckets(0) * cap;
            int early = Integer.MAX_VALUE;
            for (int slot = cap - 1; slot < level1; slot += cap) {
                if (image[at.states + slot] == MultilevelTable.OCCUPIED) {
                    long h1 = t.hashAt(slot);
                    int candidate = placement.bucketSlot(1, h1, ItemHasher.h2(h1));
                    if (image[at.states + candidate] == 0 && candidate < early) {
                        early = candidate;
                        first = slot;
                    }
                }
            }
            assertThat(occupiedBefore(image, at, early) - occupiedBefore(image, at, level1)).as("searches before it")
                    .isLessThan(4096);
            int level2 = level1 + t.layout().buckets(1) * cap;
            assertThat(occupiedBefore(image, at, level2) - occupiedBefore(image, at, level1))
                    .as("flows in sub-table 2: more than one batch").isGreaterThan(4096);
            rejectsImage(withCopy(image, at, t, first, early), "image entry in slot " + early,
                    "same flow as slot " + first);
            assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
        }
    }

    /** {@code image} with a copy of slot {@code from}'s entry added in the empty slot {@code to} (from &lt; to). */
    private static byte[] withCopy(byte[] image, Layout at, FlowTable t, int from, int to) {
        int entryBytes = 8 * t.entryLongs();
        int fromAt = at.entries + entryBytes * occupiedBefore(image, at, from);
        int toAt = at.entries + entryBytes * occupiedBefore(image, at, to);
        byte[] copy = new byte[image.length + entryBytes];
        System.arraycopy(image, 0, copy, 0, toAt);
        System.arraycopy(image, fromAt, copy, toAt, entryBytes);
        System.arraycopy(image, toAt, copy, toAt + entryBytes, image.length - toAt);
        copy[at.states + to] = MultilevelTable.OCCUPIED;
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at.occupied, b.getInt(at.occupied) + 1);
        return resealed(copy);
    }

    private static int occupiedBefore(byte[] image, Layout at, int slot) {
        int n = 0;
        for (int s = 0; s < slot; s++) {
            n += image[at.states + s] & MultilevelTable.OCCUPIED;
        }
        return n;
    }

    @Test
    void malformedKeysAreRejected() {
        FlowTable t = FlowTable.builder().capacity(8).stashCapacity(0).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        t.updateIpv4(1, 2, 3, 4, 6, 0, 10, 1);
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        int meta = at.entries + 8; // IPV4_ONLY: addresses, then the ports/protocol/version word
        // an IPv6 key in an IPv4-only table, and an IP version that does not exist
        for (int version : new int[] {6, 5, 0}) {
            byte[] bad = image.clone();
            bad[meta] = (byte) version;
            rejectsImage(resealed(bad), "image entry in slot", "not a valid IPv4 5-tuple");
        }
        FlowTable both = FlowTable.builder().capacity(8).stashCapacity(0).build();
        both.updateIpv4(1, 2, 3, 4, 6, 0, 10, 1);
        byte[] image5 = both.toByteArray();
        Layout at5 = new Layout(image5);
        // an IPv4 key with bits in the high address words
        rejectsImage(withLong(image5, at5.entries, 1L), "not a valid IPv4/IPv6 5-tuple");
        rejectsImage(withLong(image5, at5.entries + 8, 1L << 32), "not a valid IPv4/IPv6 5-tuple");
    }

    /**
     * A lazily deleted flow's entry is written like a live one: its key stays in its slot until {@link
     * FlowTable#rebuild}, in its own bucket (a lazily deleted flow is never moved), and the summary read from an
     * image holds it. Its key is checked like a live one's, naming the slot: malformed (a version byte that does not
     * exist, an IPv6 key in an IPv4-only table, bits in an IPv4 key's padding) or out of its bucket is rejected. Not
     * compared with the other keys: the same flow lazily deleted and live again in another slot is a table the
     * writer writes, and reads back.
     */
    @Test
    void lazilyDeletedKeysAreCheckedLikeLiveOnes() {
        for (FlowKeyFormat format : FlowKeyFormat.values()) {
            FlowTable t = FlowTable.builder().capacity(16).stashCapacity(2).keyFormat(format).summary(true).build();
            FiveTuple gone = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6);
            t.update(FiveTuple.ipv4(0x0A000003, 0x0A000004, 1234, 443, 6), 0x02, 60, 1);
            t.update(gone, 0x02, 60, 1);
            int deleted = t.find(gone);
            assertThat(deleted).as("in a sub-table").isBetween(0, t.layout().tableSlots() - 1);
            assertThat(t.removeLazily(gone)).isTrue();
            t.update(gone, 0x10, 70, 2); // the same flow again, live in another slot
            assertThat(t.find(gone)).isNotNegative().isNotEqualTo(deleted);
            byte[] image = t.toByteArray();
            assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
            Layout at = new Layout(image);
            assertThat(image[at.states + deleted]).isEqualTo((byte) (MultilevelTable.OCCUPIED | MultilevelTable.DELETED));
            int entry = at.entries + 8 * t.entryLongs() * occupiedBefore(image, at, deleted);
            int metaAt = entry + 8 * (format.keyLongs() - 1); // the key's last word: version, protocol, ports
            assertThat(ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getLong(metaAt) & 0xFF).isEqualTo(4);
            String malformed = "image entry in slot " + deleted + " (lazily deleted) is not a valid "
                    + (format == FlowKeyFormat.IPV4_ONLY ? "IPv4" : "IPv4/IPv6") + " 5-tuple";
            for (int version : format == FlowKeyFormat.IPV4_ONLY ? new int[] {6, 5, 0} : new int[] {5, 0}) {
                byte[] bad = image.clone();
                bad[metaAt] = (byte) version;
                rejectsImage(resealed(bad), malformed);
            }
            if (format == FlowKeyFormat.IPV4_AND_IPV6) { // an IPv4 key with bits in its high words or upper halves
                rejectsImage(withLong(image, entry, 1L), malformed);
                rejectsImage(withLong(image, entry + 8, 0x0A000001L | 1L << 32), malformed);
                rejectsImage(withLong(image, entry + 16, 1L << 63), malformed);
            }
            // a well-formed key that is not in the deleted slot's bucket: another source address
            MultilevelTable placement = new MultilevelTable(t.layout(), t.scheme(), null, null);
            int level = placement.levelOf(deleted);
            int src = 0x0A000001;
            long h1;
            do {
                src++;
                h1 = ItemHasher.seeded(t.seed()).hash(FiveTuple.ipv4(src, 0x0A000002, 1234, 80, 6));
            } while (placement.bucketSlot(level, h1, ItemHasher.h2(h1)) == deleted);
            byte[] moved = format == FlowKeyFormat.IPV4_ONLY
                    ? withLong(image, entry, (long) src << 32 | 0x0A000002L)
                    : withLong(image, entry + 8, src);
            rejectsImage(moved, "image entry in slot " + deleted + " (lazily deleted) is not in its own bucket of "
                    + "sub-table " + (level + 1));
        }
    }

    /**
     * Defects deep in a large image, in a later chunk of the read (entries are read and checked 1,024 at a time,
     * their keys checked in a loop of their own): the first defective slot in slot order is the one named, whether
     * it is a malformed key or a key out of its bucket followed by a malformed one in the same chunk.
     */
    @Test
    void defectsDeepInALargeImageAreReportedForTheFirstDefectiveSlot() {
        for (FlowKeyFormat format : FlowKeyFormat.values()) {
            FlowTable t = FlowTable.builder().capacity(12_000).keyFormat(format).build();
            SplittableRandom rnd = new SplittableRandom(41);
            for (int i = 0; i < 10_000; i++) {
                t.updateIpv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), 443, 6, 0x10, 100, i);
            }
            byte[] image = t.toByteArray();
            Layout at = new Layout(image);
            int entryBytes = 8 * t.entryLongs();
            int metaAt = 8 * (t.entryLongs() - t.userSlots() - 4 - 1); // the key's last word: ports, protocol, version
            int early = slotOfOccupied(image, at, 2990);
            int late = slotOfOccupied(image, at, 3000);
            String malformed = format == FlowKeyFormat.IPV4_ONLY ? "not a valid IPv4 5-tuple"
                    : "not a valid IPv4/IPv6 5-tuple";
            // a malformed key alone, then two in one chunk: the earlier is named
            byte[] one = image.clone();
            one[at.entries + entryBytes * 3000 + metaAt] = 5;
            rejectsImage(resealed(one), "image entry in slot " + late + " is " + malformed);
            byte[] two = one.clone();
            two[at.entries + entryBytes * 2990 + metaAt] = 0;
            rejectsImage(resealed(two), "image entry in slot " + early + " is " + malformed);
            // a well-formed key moved out of its bucket (another address), before a malformed one in its chunk
            byte[] moved = one.clone();
            int addressAt = at.entries + entryBytes * 2990 + (format == FlowKeyFormat.IPV4_ONLY ? 0 : 8);
            moved[addressAt] ^= 0x55;
            rejectsImage(resealed(moved), "image entry in slot " + early + " is not in its own bucket");
            assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
        }
    }

    /** The slot of the {@code n}th occupied slot (from 0) of {@code image}. */
    private static int slotOfOccupied(byte[] image, Layout at, int n) {
        for (int slot = 0; ; slot++) {
            if ((image[at.states + slot] & MultilevelTable.OCCUPIED) != 0 && n-- == 0) {
                return slot;
            }
        }
    }

    /**
     * A table for the entry checks: a few IPv4 and IPv6 flows of several packets (out of order among them), one in
     * the stash, one lazily deleted in a sub-table. Returns the slots {live table slot, stash slot, lazily deleted
     * slot}.
     */
    private static int[] entrySlots(FlowTable t) {
        SplittableRandom rnd = new SplittableRandom(61);
        for (int i = 0; t.stashSize() == 0; i++) { // until a flow finds its buckets full
            int src = rnd.nextInt();
            t.updateIpv4(src, 0x0A000002, 1000 + i, 443, 6, 0x02, 60, 100 + 3 * i);
            t.updateIpv4(src, 0x0A000002, 1000 + i, 443, 6, 0x10, 1500, 99 + 3 * i); // out of order: first moves back
            if (t.keyFormat() == FlowKeyFormat.IPV4_AND_IPV6) {
                t.updateIpv6(rnd.nextLong(), rnd.nextLong(), 7, 8, 5353, 5353, 17, 0, 80, 100 + 3 * i);
            }
        }
        int stash = t.layout().tableSlots();
        int live = -1;
        int deleted = -1;
        for (int slot = 0; slot < stash && (live < 0 || deleted < 0); slot++) {
            FiveTuple k = keyIn(t, slot);
            if (t.find(k) != slot) {
                continue;
            }
            if (deleted < 0) {
                assertThat(t.removeLazily(k)).isTrue();
                deleted = slot;
            } else {
                live = slot;
            }
        }
        assertThat(live).as("a live sub-table slot").isNotNegative();
        assertThat(deleted).as("a lazily deleted slot").isNotNegative();
        return new int[] {live, stash, deleted};
    }

    /** Offset of the counters (packets, bytes, firstTimestamp, lastTimestamp) of the entry in {@code slot}. */
    private static int countersAt(byte[] image, Layout at, FlowTable t, int slot) {
        return at.entries + 8 * t.entryLongs() * occupiedBefore(image, at, slot) + 8 * t.keyFormat().keyLongs();
    }

    /** The first occupied slot whose entry's lastTimestamp is after {@code now}. */
    private static int firstWithLastAfter(byte[] image, Layout at, FlowTable t, long now) {
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        for (int slot = 0; ; slot++) {
            if ((image[at.states + slot] & MultilevelTable.OCCUPIED) != 0
                    && b.getLong(countersAt(image, at, t, slot) + 24) > now) {
                return slot;
            }
        }
    }

    /**
     * Every entry the table writes has 1 ≤ packets ≤ the table's packets counter, bytes ≥ 0 and firstTimestamp ≤
     * lastTimestamp ≤ now; an image entry, live (in a sub-table or the stash) or lazily deleted, that breaks one of
     * these is rejected, naming the slot, the field and the rule. Before these checks any counters were read
     * (a flow of 0 packets, negative bytes, a record ending before it started or after the table's clock).
     */
    @Test
    void entryCountersOutsideWhatTheTableWritesAreRejected() {
        for (FlowKeyFormat format : FlowKeyFormat.values()) {
            FlowTable t = FlowTable.builder().capacity(16).stashCapacity(2).keyFormat(format).userSlots(1).build();
            int[] slots = entrySlots(t);
            byte[] image = t.toByteArray();
            Layout at = new Layout(image);
            ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
            long now = b.getLong(at.now);
            long total = b.getLong(at.counters + 8 * 3); // counters[3]: packets
            assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
            for (int slot : slots) {
                String entry = "image entry in slot " + slot + (slot == slots[2] ? " (lazily deleted)" : "");
                int c = countersAt(image, at, t, slot);
                long first = b.getLong(c + 16);
                long last = b.getLong(c + 24);
                assertThat(b.getLong(c)).as("packets of slot %d", slot).isBetween(1L, total);
                for (long packets : new long[] {0, -1, Long.MIN_VALUE, total + 1, Long.MAX_VALUE}) {
                    rejectsImage(withLong(image, c, packets), entry + " has packets " + packets + ", must be in [1, "
                            + total + "]");
                }
                for (long bytes : new long[] {-1, Long.MIN_VALUE}) {
                    rejectsImage(withLong(image, c + 8, bytes), entry + " has bytes " + bytes + ", must be ≥ 0");
                }
                rejectsImage(withLong(image, c + 16, last + 1), entry + " has firstTimestamp " + (last + 1)
                        + " after its lastTimestamp " + last);
                rejectsImage(withLong(image, c + 16, Long.MAX_VALUE), entry + " has firstTimestamp " + Long.MAX_VALUE
                        + " after its lastTimestamp " + last);
                rejectsImage(withLong(image, c + 24, first - 1), entry + " has firstTimestamp " + first
                        + " after its lastTimestamp " + (first - 1));
                rejectsImage(withLong(image, c + 24, now + 1), entry + " has lastTimestamp " + (now + 1)
                        + " after the image's now " + now);
                int named = firstWithLastAfter(image, at, t, last - 1); // the first slot the lowered now fails
                rejectsImage(withLong(image, at.now, last - 1), "image entry in slot " + named,
                        " has lastTimestamp " + b.getLong(countersAt(image, at, t, named) + 24)
                        + " after the image's now " + (last - 1));
                // the limits themselves are entries the table can hold
                byte[] edge = image.clone();
                ByteBuffer e = ByteBuffer.wrap(edge).order(ByteOrder.LITTLE_ENDIAN);
                e.putLong(c, total).putLong(c + 8, 0).putLong(c + 16, now).putLong(c + 24, now);
                byte[] sealed = resealed(edge);
                assertThat(FlowTable.fromByteArray(sealed, null).toByteArray()).isEqualTo(sealed);
            }
            // a lowered packets counter is checked against every entry: the largest entry's count is still accepted
            long most = 0;
            for (int slot : slots) {
                most = Math.max(most, b.getLong(countersAt(image, at, t, slot)));
            }
            assertThat(FlowTable.fromByteArray(withLong(image, at.counters + 8 * 3, most), null)).isNotNull();
            rejectsImage(withLong(image, at.counters + 8 * 3, most - 1), "has packets " + most + ", must be in [1, "
                    + (most - 1) + "]");
        }
    }

    /**
     * A defect in a later stash entry is named as such: the entries before it, a sub-table one and a stash one, each
     * of one packet and the stash one of 0 bytes (both valid), pass the same checks on the way to it.
     */
    @Test
    void aDefectiveSecondStashEntryIsNamedAfterTheValidEntriesBeforeIt() {
        FlowTable t = FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(3)
                .sweepSlotsPerUpdate(0).build();
        t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 1); // slot 0, the only sub-table slot
        t.updateIpv4(2, 9, 1, 1, 6, 0, 0, 2);  // slot 1, the first stash slot: a packet of 0 bytes
        t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 3); // slot 2
        byte[] image = t.toByteArray();
        Layout at = new Layout(image);
        assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
        rejectsImage(withLong(image, countersAt(image, at, t, 2) + 24, 4),
                "image entry in slot 2 has lastTimestamp 4 after the image's now 3");
    }

    /**
     * The entries at the edges of what the table writes read back: saturated bytes, packets of 0 bytes, timestamps
     * out of order and at both ends of the long range, a record restarted after a timeout, lazily deleted ones.
     * A guard for the entry checks above (it passed before them too): none may refuse a table the writer writes.
     */
    @Test
    void entriesAtTheEdgesOfWhatTheTableWritesReadBack() {
        for (FlowKeyFormat format : FlowKeyFormat.values()) {
            FlowTable t = FlowTable.builder().capacity(16).stashCapacity(2).keyFormat(format).idleTimeout(50)
                    .activeTimeout(Long.MAX_VALUE).sweepSlotsPerUpdate(0).build();
            FiveTuple big = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1, 2, 6);
            FiveTuple empty = FiveTuple.ipv4(0x0A000003, 0x0A000002, 1, 2, 17);
            FiveTuple restarted = FiveTuple.ipv4(0x0A000005, 0x0A000002, 1, 2, 6);
            t.update(big, 0xFFFF, Long.MAX_VALUE, -10);
            t.update(big, 0, Long.MAX_VALUE, Long.MIN_VALUE); // saturates; far earlier than the first
            t.update(restarted, 0, 40, -5);
            t.update(empty, 0, 0, -1);
            t.update(empty, 0, 0, -3);
            t.update(restarted, 0, 40, 100); // idle since -5: exported, a new record starts
            FlowRecord r = t.record(t.find(big));
            assertThat(r.bytes()).isEqualTo(Long.MAX_VALUE);
            assertThat(r.firstTimestamp()).isEqualTo(Long.MIN_VALUE);
            assertThat(r.lastTimestamp()).isEqualTo(-10);
            assertThat(t.record(t.find(restarted)).packets()).isEqualTo(1);
            assertThat(t.record(t.find(empty)).bytes()).isZero();
            assertThat(t.exports(ExportReason.IDLE_TIMEOUT)).isEqualTo(1);
            byte[] image = t.toByteArray();
            assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
            int bigSlot = t.find(big);
            assertThat(bigSlot).as("in a sub-table").isLessThan(t.layout().tableSlots());
            assertThat(t.removeLazily(big)).isTrue();
            t.update(big, 0, 1, Long.MAX_VALUE); // live again, at the end of time
            assertThat(t.lazilyDeleted()).isEqualTo(1);
            byte[] later = t.toByteArray();
            assertThat(FlowTable.fromByteArray(later, null).toByteArray()).isEqualTo(later);
        }
    }
}
