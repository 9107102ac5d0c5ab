package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Space-Saving (Metwally, Agrawal &amp; El Abbadi, "Efficient Computation of Frequent and Top-k Elements in
 * Data Streams", 2005) with m counters in primitive arrays ({@link MonitoredItems}).
 *
 * <p>A monitored item's weight is added to its counter; an unmonitored item replaces the item with the
 * smallest counter c<sub>min</sub>, inheriting c<sub>min</sub> as its error. Deterministic guarantees, for
 * every item with counter c and error e: c − e ≤ true weight ≤ c, and c<sub>min</sub> ≤ N/m; every item
 * heavier than c<sub>min</sub> — so every item heavier than N/m — is monitored. Hence
 * {@link #heavyHitters(double)} with φ &gt; 1/m misses no item of weight ≥ φN. (At φ = 1/m exactly an item of
 * weight N/m can be displaced: updates of weight 0 let c<sub>min</sub> reach N/m.)
 */
public final class SpaceSaving implements HeavyHitters {

    static final int IMAGE_VERSION = 1;
    public static final int MAX_CAPACITY = 1 << 26;

    private final ItemHasher hasher;
    private final MonitoredItems items;
    private long totalWeight;
    /** Upper bound on the weight of any unmonitored item, beyond c_min (raised by merges). */
    private long floor;
    /** Estimate and h1 of the latest update's item (not state: not in the image). */
    private long lastEstimate;
    private long lastItemHash;

    /**
     * @param entries the counters to allocate now: {@code capacity} for a new tracker (fixed memory), the
     *                image's entry count for one read from an image (grows up to the capacity as items arrive)
     */
    private SpaceSaving(KeyKind kind, int capacity, long seed, int entries) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "], got " + capacity);
        }
        this.hasher = ItemHasher.seeded(seed);
        this.items = MonitoredItems.forEntries(kind, capacity, true, hasher, entries);
    }

    /** An empty tracker for {@link #union} that allocates as a tracker read from an image does. */
    private SpaceSaving(ItemHasher hasher, KeyKind kind, int capacity) {
        this.hasher = hasher;
        this.items = MonitoredItems.forEntries(kind, capacity, true, hasher, 0);
    }

    private SpaceSaving(SpaceSaving other) {
        this.hasher = other.hasher;
        this.items = other.items.copy();
        this.totalWeight = other.totalWeight;
        this.floor = other.floor;
        this.lastEstimate = other.lastEstimate;
        this.lastItemHash = other.lastItemHash;
    }

    /**
     * A tracker with {@code capacity} counters, all allocated now: its memory ({@link #memoryBytes()}) is fixed,
     * and updates never allocate.
     */
    public static SpaceSaving withCapacity(KeyKind kind, int capacity, long seed) {
        checkCapacity(kind, capacity);
        return new SpaceSaving(kind, capacity, seed, capacity);
    }

    /**
     * Checks what {@link #withCapacity} checks, allocating nothing: capacity in [1, {@link #MAX_CAPACITY}], and the
     * image of a full tracker within {@link ImageWriter#MAX_IMAGE_BYTES} (one checkpointed value): a larger one
     * would run, then fail to be written once it monitored enough items.
     *
     * @throws IllegalArgumentException naming the capacity and the limit
     */
    public static void checkCapacity(KeyKind kind, int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "], got " + capacity);
        }
        long image = fullImageBytes(kind, capacity);
        if (image > ImageWriter.MAX_IMAGE_BYTES) {
            throw new IllegalArgumentException("capacity " + capacity + " is too large for " + kind + " keys: a full "
                    + "tracker's image would have " + image + " bytes, above the " + ImageWriter.MAX_IMAGE_BYTES
                    + " one image (one checkpointed value) may have");
        }
    }

    /** Bytes of the image of a tracker of {@code capacity} monitoring that many items: the most it can take. */
    public static long fullImageBytes(KeyKind kind, int capacity) {
        return ImageWriter.imageBytes(fieldBytes(kind.width(), capacity));
    }

    private static long fieldBytes(int width, long entries) {
        return 8 + 4 + 4 + 4 + 8 + 8 + 4 + entries * (8L * width + 16 + 4);
    }

    /** {@link #memoryBytes()} of a tracker built by {@link #withCapacity}, without building it. */
    public static long memoryBytesFor(KeyKind kind, int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "], got " + capacity);
        }
        return bytesFor(kind, capacity);
    }

    /**
     * As many counters as fit in {@code bytes} (exactly: {@link #memoryBytes()} ≤ bytes), all allocated now as by
     * {@link #withCapacity}.
     */
    public static SpaceSaving withMemory(KeyKind kind, long bytes, long seed) {
        int capacity = capacityForMemory(kind, bytes);
        return new SpaceSaving(kind, capacity, seed, capacity);
    }

    /**
     * The capacity {@link #withMemory} gives, allocating nothing: the largest whose memory fits in {@code bytes}
     * and whose full image fits one image ({@link #checkCapacity}; a tracker's image is never larger than its
     * memory plus a 52-byte header, so the budget is first capped just below the image limit).
     *
     * @throws IllegalArgumentException if {@code bytes} cannot hold a single counter
     */
    public static int capacityForMemory(KeyKind kind, long bytes) {
        if (bytesFor(kind, 1) > bytes) {
            throw new IllegalArgumentException("bytes=" + bytes + " cannot hold a single " + kind
                    + " counter: needs at least " + bytesFor(kind, 1));
        }
        long budget = Math.min(bytes, ImageWriter.MAX_IMAGE_BYTES - 1024);
        int lo = 1;
        int hi = MAX_CAPACITY;
        while (lo < hi) {
            int mid = (int) (((long) lo + hi + 1) / 2);
            if (bytesFor(kind, mid) <= budget) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        checkCapacity(kind, lo); // holds by the cap: a broken assumption fails here, not at a checkpoint
        return lo;
    }

    static long bytesFor(KeyKind kind, int capacity) {
        return MonitoredItems.bytesFor(kind, capacity, true);
    }

    @Override
    public void update(long item, long weight) {
        items.kind.require(KeyKind.Type.LONG);
        items.probe[0] = item;
        updateHashed(hasher.hash(item), weight);
    }

    @Override
    public void update(FiveTuple item, long weight) {
        items.kind.require(KeyKind.Type.FIVE_TUPLE);
        KeyKind.encode(item, items.probe, 0);
        updateHashed(hasher.hash(item), weight);
    }

    /** As {@link HeavyHitters#update(CharSequence, long)}: its UTF-8 bytes; fails for a tracker not of byte strings. */
    @Override
    public void update(CharSequence item, long weight) {
        items.kind.requireBytesForText();
        HeavyHitters.super.update(item, weight);
    }

    @Override
    public void update(byte[] bytes, int offset, int length, long weight) {
        items.kind.require(KeyKind.Type.BYTES);
        items.kind.encode(bytes, offset, length, items.probe, 0);
        updateHashed(hasher.hash(bytes, offset, length), weight);
    }

    private void updateHashed(long h1, long weight) {
        TrackerArguments.checkWeight(weight);
        totalWeight = add(totalWeight, weight);
        lastItemHash = h1;
        int s = items.find(h1);
        if (s >= 0) {
            lastEstimate = add(items.counts[s], weight);
            items.increase(s, lastEstimate);
        } else if (items.size < items.capacity) {
            lastEstimate = add(floor, weight);
            items.add(h1, lastEstimate, floor);
        } else {
            long error = Math.max(items.minCount(), floor);
            lastEstimate = add(error, weight);
            items.replaceMin(h1, lastEstimate, error);
        }
    }

    @Override
    public long lastEstimate() {
        return lastEstimate;
    }

    @Override
    public long lastItemHash() {
        return lastItemHash;
    }

    private static long add(long a, long b) {
        long s = a + b;
        return s < a ? Long.MAX_VALUE : s;
    }

    /** The largest weight an unmonitored item can have. */
    public long unmonitoredBound() {
        return items.size < items.capacity ? floor : Math.max(items.minCount(), floor);
    }

    public int capacity() {
        return items.capacity;
    }

    @Override
    public List<HeavyHitter> topK(int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k must be ≥ 0, got " + k);
        }
        int[] slots = items.topSlots(k);
        List<HeavyHitter> out = new ArrayList<>(slots.length);
        for (int s : slots) {
            out.add(report(s));
        }
        return out;
    }

    @Override
    public List<HeavyHitter> heavyHitters(double phi) {
        TrackerArguments.checkPhi(phi);
        long threshold = HeavyHitters.ceilPhiN(phi, totalWeight); // exact: c ≥ threshold ⇔ c ≥ φN
        // upper bound ≥ φN: nothing heavier than c_min is left out
        int[] slots = items.slotsWithCountAtLeast(threshold);
        List<HeavyHitter> out = new ArrayList<>(slots.length);
        for (int s : slots) {
            out.add(report(s));
        }
        return out;
    }

    private HeavyHitter report(int s) {
        long c = items.counts[s];
        return new HeavyHitter(items.kind.decode(items.keys, s * items.width), c, c - items.errors[s], c);
    }

    @Override
    public long totalWeight() {
        return totalWeight;
    }

    /**
     * Mergeable summaries (Agarwal et al. 2012): an item's upper bound in the union is the sum of its upper
     * bounds in both (its counter, or the other side's {@link #unmonitoredBound()}), its lower bound the sum
     * of lower bounds; the m items with the largest upper bounds are kept, and the largest upper bound
     * dropped becomes a bound for every unmonitored item.
     */
    @Override
    public void merge(HeavyHitters other) {
        combineAll(List.of(this, compatible(other)));
    }

    /**
     * A new tracker holding what {@link #merge} would make of this one and {@code other}, both left unchanged:
     * the same answers, image and later updates as {@code copy()} then {@code merge(other)}, without the copy. It
     * allocates for the items it keeps, as a tracker read from an image does, so uniting sparse trackers of a large
     * capacity does not allocate that capacity; it grows as items arrive. No update has reached it yet: its
     * {@link #lastEstimate()} and {@link #lastItemHash()} are 0. A sliding window's report unites its sub-windows
     * this way.
     */
    @Override
    public SpaceSaving union(HeavyHitters other) {
        SpaceSaving o = compatible(other);
        SpaceSaving union = new SpaceSaving(hasher, items.kind, items.capacity);
        union.combineAll(List.of(this, o));
        return union;
    }

    /**
     * A new tracker holding the merge of this one and all of {@code others} at once, all left unchanged. Every item's
     * upper bound is the sum over all the trackers of its count, or of the tracker's {@link #unmonitoredBound()}
     * where it is not monitored; its lower bound the sum of its guaranteed counts; the m largest upper bounds are
     * kept (ties: the item seen first, trackers in order, each in slot order), and the largest dropped, or the sum of
     * the trackers' bounds if larger, bounds every unmonitored item. With one other tracker that is
     * {@link #union(HeavyHitters)}. With more, a chain of pairwise merges truncates to m after each, adding the
     * dropped items' bounds as it goes; at once, the kept items' bounds and the bound of every other item are as
     * tight or tighter (never looser), and the items are ranked once instead of once per tracker: the report of a
     * sliding window of 60 sub-windows at 64 KiB took 2–2.7× less (docs/BENCHMARKS.md). Allocated for the items it
     * keeps, as {@link #union(HeavyHitters)}. Its temporary arrays hold the trackers' items, at most
     * {@link CombinedItems#MAX_ENTRIES} of them: trackers holding more are united in groups that fit, each group's
     * union joining the next group.
     *
     * @throws IllegalArgumentException naming the first tracker of another kind, capacity or seed
     */
    @Override
    public SpaceSaving union(List<? extends HeavyHitters> others) {
        if (Objects.requireNonNull(others, "others").size() == 1) {
            return union(others.get(0));
        }
        List<SpaceSaving> all = new ArrayList<>(others.size() + 1);
        all.add(this);
        for (HeavyHitters other : others) {
            all.add(compatible(other));
        }
        return unionInGroups(all, CombinedItems.MAX_ENTRIES);
    }

    /**
     * The union of {@code all}, at once while their items number at most {@code maxEntries} (the temporary arrays'
     * bound, {@link CombinedItems#MAX_ENTRIES}); beyond that, as many trackers at once as fit (at least two), and the
     * result united with the next ones likewise: a merge tree, whose bounds hold as any merge's do.
     */
    static SpaceSaving unionInGroups(List<SpaceSaving> all, int maxEntries) {
        SpaceSaving first = all.get(0);
        SpaceSaving union = new SpaceSaving(first.hasher, first.items.kind, first.items.capacity);
        int next = 0;
        do {
            List<SpaceSaving> group = new ArrayList<>();
            long entries = 0;
            if (next > 0) { // the union so far joins the next group
                group.add(union);
                entries = union.items.size;
            }
            while (next < all.size()
                    && (group.size() < 2 || entries + all.get(next).items.size <= maxEntries)) {
                entries += all.get(next).items.size;
                group.add(all.get(next++));
            }
            union.combineAll(group);
        } while (next < all.size());
        return union;
    }

    /**
     * Sets this tracker to the merge at once of {@code all} (checked compatible with it; this tracker may be among
     * them: every set is read into the combined items before this one's is refilled). The merge of two is its
     * smallest case: {@link #merge} and {@link #union(HeavyHitters)} come here too.
     */
    void combineAll(List<SpaceSaving> all) {
        int w = items.width;
        int entries = 0;
        long bounds = 0; // saturating: the sum of the trackers' unmonitored bounds
        long total = 0;
        for (SpaceSaving t : all) {
            entries += t.items.size;
            bounds = add(bounds, t.unmonitoredBound());
            total = add(total, t.totalWeight);
        }
        CombinedItems combined = new CombinedItems(w, entries);
        long[] counts = new long[entries]; // saturating sums of the counts where monitored
        long[] monitoredBounds = new long[entries]; // exact sums (each ≤ bounds) of those trackers' bounds
        long[] lower = new long[entries];
        for (SpaceSaving t : all) {
            MonitoredItems set = t.items;
            long bound = t.unmonitoredBound();
            for (int s = 0; s < set.size; s++) {
                int p = combined.addOrFind(set.keys, s * w, set.keyHash(s));
                p = p < 0 ? -p - 1 : p;
                counts[p] = add(counts[p], set.counts[s]);
                monitoredBounds[p] += bound;
                lower[p] = add(lower[p], set.counts[s] - set.errors[s]);
            }
        }
        int n = combined.size;
        long[] upper = new long[n];
        for (int p = 0; p < n; p++) {
            // Σ (count where monitored, else the bound) = counts + (bounds − monitoredBounds), exact while the
            // bounds' sum has not saturated; past that, summed tracker by tracker (weights near 2^63 only)
            upper[p] = bounds < Long.MAX_VALUE ? add(counts[p], bounds - monitoredBounds[p])
                    : upperTrackerByTracker(all, combined, p);
        }
        int[] ranked = Ranking.descending(upper, n);
        int kept = Math.min(n, items.capacity);
        long newFloor = Math.max(bounds, kept < n ? upper[ranked[kept]] : Long.MIN_VALUE);
        items.clearFor(kept);
        for (int r = 0; r < kept; r++) {
            int p = ranked[r];
            MonitoredItems.copyKey(combined.keys, p * w, items.probe, 0, w);
            items.add(combined.hashes[p], upper[p], upper[p] - lower[p]);
        }
        floor = newFloor;
        totalWeight = total;
    }

    private static long upperTrackerByTracker(List<SpaceSaving> all, CombinedItems combined, int p) {
        long[] key = java.util.Arrays.copyOfRange(combined.keys, p * combined.width, (p + 1) * combined.width);
        long upper = 0;
        for (SpaceSaving t : all) {
            int s = t.items.findKey(combined.hashes[p], key);
            upper = add(upper, s >= 0 ? t.items.counts[s] : t.unmonitoredBound());
        }
        return upper;
    }

    private SpaceSaving compatible(HeavyHitters other) {
        if (!(other instanceof SpaceSaving)) {
            throw new IllegalArgumentException("cannot merge a SpaceSaving with "
                    + (other == null ? "null" : "a " + other.getClass().getSimpleName()));
        }
        SpaceSaving o = (SpaceSaving) other;
        if (!o.items.kind.toString().equals(items.kind.toString()) || o.items.capacity != items.capacity
                || o.hasher.seed() != hasher.seed()) {
            throw new IllegalArgumentException("cannot merge SpaceSaving trackers of different kind, capacity or seed: "
                    + items.kind + "/" + items.capacity + "/" + hasher.seed() + " vs " + o.items.kind + "/"
                    + o.items.capacity + "/" + o.hasher.seed());
        }
        return o;
    }

    /**
     * Bytes of the counters' arrays allocated now (exact). For a tracker from {@link #withCapacity} or
     * {@link #withMemory} that is the whole capacity's, fixed; a tracker read by {@link #fromByteArray} starts
     * with only what its image holds and reports more as it grows, never more than a tracker of the same capacity
     * created new (so at most the {@code bytes} given to {@link #withMemory}).
     */
    @Override
    public long memoryBytes() {
        return items.memoryBytes();
    }

    /**
     * An independent copy with the same seed, capacity, counters, errors and heap (so the same image and the same
     * answers to the same updates) and the same allocated memory; no validation, as its content is known good.
     */
    @Override
    public SpaceSaving copy() {
        return new SpaceSaving(this);
    }

    @Override
    public byte[] toByteArray() {
        return image(null);
    }

    /**
     * Writes the image of {@link #toByteArray()} to {@code sink}, through a small buffer instead of an array of
     * the image's size.
     *
     * @throws java.io.UncheckedIOException if the sink fails
     */
    @Override
    public void writeImage(ImageWriter.Sink sink) {
        image(java.util.Objects.requireNonNull(sink, "sink"));
    }

    private byte[] image(ImageWriter.Sink sink) {
        int w = items.width;
        ImageWriter out = new ImageWriter(Family.SPACE_SAVING, IMAGE_VERSION, fieldBytes(w, items.size), sink)
                .putLong(hasher.seed()).putInt(items.kind.id()).putInt(items.kind.maxBytes())
                .putInt(items.capacity).putLong(totalWeight).putLong(floor).putInt(items.size);
        for (int s = 0; s < items.size; s++) {
            out.putLongs(items.keys, s * w, w).putLong(items.counts[s]).putLong(items.errors[s]);
        }
        out.putInts(items.heapOrder(), 0, items.size);
        return out.finish();
    }

    /**
     * Reads an image written by {@link #toByteArray()}, validating every field. The tracker allocates counters
     * for the image's entries and half as many again (at least 64, at most the capacity) and grows to its
     * capacity as new items arrive, because an image holds only the monitored entries while its capacity field may
     * declare up to {@link #MAX_CAPACITY} counters: allocating the declared capacity would let a hostile or corrupt
     * image of a few dozen bytes claim gigabytes. So the memory a read takes is bounded by a fixed amount plus a
     * multiple of the image's length. Growth changes nothing observable except {@link #memoryBytes()}: the tracker
     * answers, updates, merges and writes its image exactly as the tracker that wrote the image would.
     *
     * @throws IllegalArgumentException if the image is truncated, corrupt or of another family or version
     */
    public static SpaceSaving fromByteArray(byte[] image) {
        return read(ImageReader.open(image, Family.SPACE_SAVING, IMAGE_VERSION));
    }

    /**
     * Reads an image of {@code length} bytes from {@code source} through a small buffer, with the validation and
     * messages of {@link #fromByteArray}; takes exactly {@code length} bytes from the source either way.
     *
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static SpaceSaving readImage(ImageReader.Source source, int length) {
        return ImageReader.read(source, length, Family.SPACE_SAVING, IMAGE_VERSION, SpaceSaving::read);
    }

    private static SpaceSaving read(ImageReader in) {
        long seed = in.getLong("seed");
        int kindId = in.getInt("keyKind", 0, 2);
        int maxBytes = in.getInt("maxBytes", 1, KeyKind.MAX_BYTES_LIMIT);
        KeyKind kind = KeyKind.of(kindId, maxBytes);
        int capacity = in.getInt("capacity", 1, MAX_CAPACITY);
        // as withCapacity: a tracker that could not write its image once full is refused now, not at a checkpoint
        checkCapacity(kind, capacity);
        long total = in.getLong("totalWeight", 0, Long.MAX_VALUE);
        long floor = in.getLong("floor", 0, total); // no counter, so no floor, exceeds the weight counted
        int size = in.getInt("size", 0, capacity);
        // every entry needs (width + 2) longs: check the image holds them before allocating the tracker
        long[] entries = in.getLongs("entries", (long) size * (kind.width() + 2));
        int[] heapOrder = in.getInts("heapOrder", size);
        in.finish();
        SpaceSaving ss = new SpaceSaving(kind, capacity, seed, size);
        int w = kind.width();
        for (int e = 0; e < size; e++) {
            int at = e * (w + 2);
            System.arraycopy(entries, at, ss.items.probe, 0, w);
            long count = entries[at + w];
            long error = entries[at + w + 1];
            if (count < 0 || error < 0 || error > count || count > total) {
                throw new IllegalArgumentException("image corrupt: entry " + e + " has count " + count + ", error "
                        + error + " (expected 0 ≤ error ≤ count ≤ totalWeight " + total + ")");
            }
            kind.requireCanonical(entries, at, "entry " + e);
            long h1 = kind.hash(ss.hasher, entries, at, new byte[kind.maxBytes()]);
            if (ss.items.find(h1) >= 0) {
                throw new IllegalArgumentException("image corrupt: entry " + e + " repeats an item");
            }
            ss.items.add(h1, count, error);
        }
        ss.items.restoreHeap(heapOrder);
        ss.totalWeight = total;
        ss.floor = floor;
        return ss;
    }

    @Override
    public String toString() {
        return "SpaceSaving[" + items.kind + ", capacity=" + items.capacity + ", size=" + items.size + ", N="
                + totalWeight + "]";
    }
}
