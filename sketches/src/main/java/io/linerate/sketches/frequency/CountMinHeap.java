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
 * The "CM-heap" of network measurement (Cormode &amp; Muthukrishnan; research notes part 2 §2.7): a
 * {@link CountMinSketch} (conservative update by default) plus a bounded set of C candidate items kept in
 * a min-heap on their estimates. Each update adds to the sketch and reads the item's new estimate in the
 * same pass; a candidate's stored estimate is refreshed, a new item displaces the lightest candidate if its
 * estimate is larger.
 *
 * <p><b>Why no item of weight ≥ φN is missed.</b> A candidate's stored count never falls below the true
 * weight it has when stored (sketch estimates never underestimate, and later weight is counted exactly).
 * An item not in the set at the end was either displaced, with a stored count ≥ its true weight then, or
 * turned away at its last update, with an estimate ≥ its true weight then — and in both cases it has had
 * no weight since. So {@link #unmonitoredBound()}, the largest count ever displaced or estimate ever
 * turned away, bounds the weight of every item outside the set, and {@link #heavyHitters(double)} misses
 * nothing whenever φN &gt; {@link #unmonitoredBound()} ({@link #isComplete(double)}), deterministically. With
 * C ≥ 1/(φ − ε) candidates and estimates within εN (probability ≥ 1 − δ each, Theorem 3.8.1), that holds.
 */
public final class CountMinHeap implements HeavyHitters {

    static final int IMAGE_VERSION = 1;

    private final CountMinSketch sketch;
    private final MonitoredItems candidates;
    private long unmonitoredBound;
    /** Estimate and h1 of the latest update's item (not state: not in the image). */
    private long lastEstimate;
    private long lastItemHash;

    /**
     * @param entries the candidates to allocate now: {@code capacity} for a new tracker (fixed memory), the
     *                image's candidate count for one read from an image (grows up to the capacity as items arrive)
     */
    private CountMinHeap(KeyKind kind, int capacity, CountMinSketch sketch, int entries) {
        if (capacity < 1 || capacity > SpaceSaving.MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + SpaceSaving.MAX_CAPACITY + "], got "
                    + capacity);
        }
        this.sketch = sketch;
        this.candidates = MonitoredItems.forEntries(kind, capacity, true, sketch.hasher(), entries);
    }

    private CountMinHeap(CountMinHeap other) {
        this.sketch = other.sketch.copy();
        this.candidates = other.candidates.copy();
        this.unmonitoredBound = other.unmonitoredBound;
        this.lastEstimate = other.lastEstimate;
        this.lastItemHash = other.lastItemHash;
    }

    /**
     * A tracker whose C candidates are all allocated now: its memory ({@link #memoryBytes()}) is fixed, and
     * updates never allocate.
     *
     * @param capacity C, candidates kept
     */
    public static CountMinHeap create(KeyKind kind, int capacity, int width, int depth, boolean conservative,
                                      long seed) {
        checkShape(kind, capacity, new CountMinSketch.Size(width, depth));
        return new CountMinHeap(kind, capacity,
                CountMinSketch.withShape(width, depth, seed, RowIndexing.MIXED_32, conservative), capacity);
    }

    /**
     * Checks what {@link #create} checks of the sizes, allocating nothing: capacity in [1,
     * {@link SpaceSaving#MAX_CAPACITY}], the sketch's size (by constructing {@code sketch}), and the image of a
     * full tracker within {@link ImageWriter#MAX_IMAGE_BYTES} (one checkpointed value): a larger one would run,
     * then fail to be written once it held enough candidates.
     *
     * @throws IllegalArgumentException naming the value and the limit
     */
    public static void checkShape(KeyKind kind, int capacity, CountMinSketch.Size sketch) {
        if (capacity < 1 || capacity > SpaceSaving.MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + SpaceSaving.MAX_CAPACITY + "], got "
                    + capacity);
        }
        long image = fullImageBytes(kind, capacity, sketch);
        if (image > ImageWriter.MAX_IMAGE_BYTES) {
            throw new IllegalArgumentException("capacity " + capacity + " with a " + sketch.width() + " x "
                    + sketch.depth() + " sketch is too large for " + kind + " keys: a full tracker's image would have "
                    + image + " bytes, above the " + ImageWriter.MAX_IMAGE_BYTES + " one image (one checkpointed "
                    + "value) may have");
        }
    }

    /** Bytes of the image of a tracker holding {@code capacity} candidates: the most it can take. */
    public static long fullImageBytes(KeyKind kind, int capacity, CountMinSketch.Size sketch) {
        return ImageWriter.imageBytes(fieldBytes(sketch.imageBytes(), kind.width(), capacity));
    }

    private static long fieldBytes(long sketchImageBytes, int width, long candidates) {
        long padded = (sketchImageBytes + 7) / 8 * 8;
        return 4 + 4 + 4 + 8 + 4 + padded + 4 + candidates * (8L * (width + 2) + 4);
    }

    /** {@link #memoryBytes()} of a tracker built by {@link #create} with these sizes, without building it. */
    public static long memoryBytesFor(KeyKind kind, int capacity, CountMinSketch.Size sketch) {
        return sketch.memoryBytes() + SpaceSaving.memoryBytesFor(kind, capacity);
    }

    /** The candidates and sketch of a CM-heap ({@link #sizeForMemory}). */
    public record Size(int capacity, CountMinSketch.Size sketch) {
    }

    /**
     * A tracker of C candidates (all allocated now, as by {@link #create}) over {@code sketch}, an empty sketch
     * of any shape, row indexing and update rule, which the tracker owns from now on.
     *
     * @throws IllegalArgumentException if the sketch has already counted weight
     */
    public static CountMinHeap over(KeyKind kind, int capacity, CountMinSketch sketch) {
        if (sketch.totalWeight() != 0) {
            throw new IllegalArgumentException("sketch must be empty, has total weight " + sketch.totalWeight());
        }
        checkShape(kind, capacity, new CountMinSketch.Size(sketch.width(), sketch.depth()));
        return new CountMinHeap(kind, capacity, sketch, capacity);
    }

    /**
     * Fits in {@code bytes} ({@link #memoryBytes()} ≤ bytes): a third of it for candidates, all allocated now as
     * by {@link #create}, the rest for a conservative-update sketch of depth 4 and prime width.
     */
    public static CountMinHeap withMemory(KeyKind kind, long bytes, long seed) {
        Size size = sizeForMemory(kind, bytes);
        CountMinSketch cu = CountMinSketch.withShape(size.sketch().width(), size.sketch().depth(), seed,
                RowIndexing.MIXED_32, true);
        return new CountMinHeap(kind, size.capacity(), cu, size.capacity());
    }

    /**
     * The sizes {@link #withMemory} gives, allocating nothing. The budget is first capped just below one image's
     * limit (a tracker's image is never larger than its memory plus a 92-byte header), so the tracker can always be
     * written.
     *
     * @throws IllegalArgumentException if {@code bytes} cannot hold the smallest sketch after the candidates
     */
    public static Size sizeForMemory(KeyKind kind, long bytes) {
        long budget = Math.min(bytes, ImageWriter.MAX_IMAGE_BYTES - 1024);
        int capacity = SpaceSaving.MAX_CAPACITY;
        while (capacity > 1 && SpaceSaving.bytesFor(kind, capacity) > budget / 3) {
            capacity = SpaceSaving.bytesFor(kind, capacity / 2) > budget / 3 ? capacity / 2 : capacity - 1;
        }
        long rest = budget - SpaceSaving.bytesFor(kind, capacity);
        long smallestSketch = 2L * Long.BYTES * 4; // 2 counters per row, depth 4
        if (rest < smallestSketch) {
            // named by the caller's bytes: the sketch's own message would name what is left after the candidates
            throw new IllegalArgumentException("bytes=" + bytes + " cannot hold one " + kind + " candidate ("
                    + SpaceSaving.bytesFor(kind, 1) + " bytes) and the smallest sketch (2 x 4 counters, "
                    + smallestSketch + " bytes): needs at least " + (SpaceSaving.bytesFor(kind, 1) + smallestSketch));
        }
        CountMinSketch.Size sketch = CountMinSketch.sizeForMemory(rest, 4);
        checkShape(kind, capacity, sketch); // holds by the cap: a broken assumption fails here, not at a checkpoint
        return new Size(capacity, sketch);
    }

    @Override
    public void update(long item, long weight) {
        candidates.kind.require(KeyKind.Type.LONG);
        candidates.probe[0] = item;
        updateHashed(sketch.hasher().hash(item), weight);
    }

    @Override
    public void update(FiveTuple item, long weight) {
        candidates.kind.require(KeyKind.Type.FIVE_TUPLE);
        KeyKind.encode(item, candidates.probe, 0);
        updateHashed(sketch.hasher().hash(item), weight);
    }

    /** As {@link HeavyHitters#update(CharSequence, long)}: its UTF-8 bytes; fails for a tracker not of byte strings. */
    @Override
    public void update(CharSequence item, long weight) {
        candidates.kind.requireBytesForText();
        HeavyHitters.super.update(item, weight);
    }

    @Override
    public void update(byte[] bytes, int offset, int length, long weight) {
        candidates.kind.require(KeyKind.Type.BYTES);
        candidates.kind.encode(bytes, offset, length, candidates.probe, 0);
        updateHashed(sketch.hasher().hash(bytes, offset, length), weight);
    }

    private void updateHashed(long h1, long weight) {
        TrackerArguments.checkWeight(weight);
        long estimate = sketch.updateAndEstimate(h1, ItemHasher.h2(h1), weight);
        lastItemHash = h1;
        lastEstimate = estimate;
        int s = candidates.find(h1);
        if (s >= 0) {
            // counted exactly since admission: upper bound = admission estimate + weight since, or the
            // sketch's estimate if smaller; lower bound = weight since admission
            long upper = Math.min(add(candidates.counts[s], weight), estimate);
            // saturating, as the sketch is: past Long.MAX_VALUE a plain add wrapped the lower bound negative
            long lower = Math.min(add(candidates.counts[s] - candidates.errors[s], weight), upper);
            candidates.errors[s] = upper - lower;
            candidates.increase(s, upper);
            lastEstimate = upper;
        } else if (candidates.size < candidates.capacity) {
            candidates.add(h1, estimate, estimate - weight);
        } else {
            long lightest = candidates.minCount();
            if (estimate > lightest) {
                unmonitoredBound = Math.max(unmonitoredBound, lightest);
                candidates.replaceMin(h1, estimate, estimate - weight);
            } else {
                unmonitoredBound = Math.max(unmonitoredBound, estimate);
            }
        }
    }

    private static long add(long a, long b) {
        long s = a + b;
        return s < a ? Long.MAX_VALUE : s;
    }

    @Override
    public long lastEstimate() {
        return lastEstimate;
    }

    @Override
    public long lastItemHash() {
        return lastItemHash;
    }

    /** The largest weight any item outside the candidate set can have (see class comment). */
    public long unmonitoredBound() {
        return unmonitoredBound;
    }

    /**
     * Whether {@link #heavyHitters(double)} is certain to contain every item of weight ≥ φN.
     *
     * @throws IllegalArgumentException if φ is not in (0, 1), as {@link #heavyHitters(double)} would
     */
    public boolean isComplete(double phi) {
        TrackerArguments.checkPhi(phi);
        // φN > bound compared exactly: in doubles, φN rounded above a bound equal to it once N passed 2^53
        return java.math.BigDecimal.valueOf(phi).multiply(java.math.BigDecimal.valueOf(sketch.totalWeight()))
                .compareTo(java.math.BigDecimal.valueOf(unmonitoredBound)) > 0;
    }

    public CountMinSketch sketch() {
        return sketch;
    }

    public int capacity() {
        return candidates.capacity;
    }

    @Override
    public List<HeavyHitter> topK(int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k must be ≥ 0, got " + k);
        }
        return refreshed(candidates.topSlots(k), 0);
    }

    @Override
    public List<HeavyHitter> heavyHitters(double phi) {
        TrackerArguments.checkPhi(phi);
        long threshold = HeavyHitters.ceilPhiN(phi, sketch.totalWeight()); // exact, as SpaceSaving's
        // upper bound = min(count, estimate) ≥ threshold needs count ≥ threshold: only those are looked at
        return refreshed(candidates.slotsWithCountAtLeast(threshold), threshold);
    }

    /**
     * Candidates ranked by guaranteed weight, heaviest first, with deterministic bounds: the upper bound is
     * the smaller of the sketch's current estimate and the admission estimate plus the weight counted since;
     * the lower bound is the weight counted since admission. Of {@code slots} (in rank order), those whose
     * upper bound is below {@code threshold} are left out.
     */
    private List<HeavyHitter> refreshed(int[] slots, long threshold) {
        List<HeavyHitter> out = new ArrayList<>(slots.length);
        for (int s : slots) {
            long h1 = candidates.keyHash(s);
            long upper = Math.min(candidates.counts[s], sketch.estimate(h1, ItemHasher.h2(h1)));
            long lower = candidates.counts[s] - candidates.errors[s];
            if (upper >= threshold) {
                out.add(new HeavyHitter(candidates.kind.decode(candidates.keys, s * candidates.width), upper,
                        lower, upper));
            }
        }
        return out;
    }

    @Override
    public long totalWeight() {
        return sketch.totalWeight();
    }

    /** Merges the sketches, then keeps the C heaviest of both candidate sets by merged estimate. */
    @Override
    public void merge(HeavyHitters other) {
        CountMinHeap o = compatible(other);
        sketch.merge(o.sketch); // checks shape and seed
        combineAllCandidates(List.of(this, o), CombinedItems.MAX_ENTRIES);
    }

    /**
     * A new tracker holding what {@link #merge} would make of this one and {@code other}, both left unchanged:
     * the same answers, image and later updates as {@code copy()} then {@code merge(other)}, without copying the
     * candidates first (the sketch is copied: the union needs its own). Its candidates are allocated for the items
     * it keeps, as a tracker read from an image does, and grow as items arrive. No update has reached it yet: its
     * {@link #lastEstimate()} and {@link #lastItemHash()} are 0.
     */
    @Override
    public CountMinHeap union(HeavyHitters other) {
        CountMinHeap o = compatible(other);
        CountMinSketch merged = sketch.copy();
        merged.merge(o.sketch); // checks shape and seed
        CountMinHeap union = new CountMinHeap(candidates.kind, candidates.capacity, merged, 0);
        union.combineAllCandidates(List.of(this, o), CombinedItems.MAX_ENTRIES);
        return union;
    }

    /**
     * A new tracker holding the merge of this one and all of {@code others} at once, all left unchanged: the sum
     * of the sketches, and the C candidates of all the sets with the largest estimates in that sum (ties: the item
     * seen first, trackers in order, each in slot order); the largest dropped estimate, or the sum of the trackers'
     * {@link #unmonitoredBound()}s if larger, bounds every other item. With one other tracker that is
     * {@link #union(HeavyHitters)}. With more, a chain of pairwise merges keeps after each the C heaviest by the
     * partial sum, and may drop an item that the whole sum would keep; at once, candidates are ranked once, by the
     * whole sum. Its candidates are allocated for the items it keeps; its temporary arrays hold at most
     * {@link CombinedItems#MAX_ENTRIES} candidates (more are taken in groups: the same items kept, but for ties at
     * the cut).
     *
     * @throws IllegalArgumentException naming the first tracker of another key kind, capacity, shape or seed
     */
    @Override
    public CountMinHeap union(List<? extends HeavyHitters> others) {
        if (Objects.requireNonNull(others, "others").size() == 1) {
            return union(others.get(0));
        }
        List<CountMinHeap> all = new ArrayList<>(others.size() + 1);
        all.add(this);
        for (HeavyHitters other : others) {
            all.add(compatible(other));
        }
        return unionInGroups(all, CombinedItems.MAX_ENTRIES);
    }

    /** The union of {@code all} (checked compatible), their candidates taken at most {@code maxEntries} at once. */
    static CountMinHeap unionInGroups(List<CountMinHeap> all, int maxEntries) {
        CountMinHeap first = all.get(0);
        CountMinSketch merged = first.sketch.copy();
        for (int i = 1; i < all.size(); i++) {
            merged.merge(all.get(i).sketch); // checks shape and seed
        }
        CountMinHeap union = new CountMinHeap(first.candidates.kind, first.candidates.capacity, merged, 0);
        union.combineAllCandidates(all, maxEntries);
        return union;
    }

    /**
     * Sets this tracker's candidates from {@code all}'s (this tracker may be among them) by its sketch, which holds
     * the sum of theirs; {@link #merge} and {@link #union(HeavyHitters)} come here with two trackers. At once
     * while they number at most {@code maxEntries} ({@link CombinedItems#MAX_ENTRIES}), else in groups that fit, each
     * joined by the candidates kept so far. Ranked by the same (whole) sum every time, the groups keep the same items
     * (but for ties at the cut, ranked in another order).
     */
    void combineAllCandidates(List<CountMinHeap> all, int maxEntries) {
        long bounds = 0;
        for (CountMinHeap t : all) {
            bounds = add(bounds, t.unmonitoredBound);
        }
        long dropped = Long.MIN_VALUE;
        int next = 0;
        boolean first = true;
        while (next < all.size()) {
            List<MonitoredItems> group = new ArrayList<>();
            long entries = 0;
            if (!first) {
                group.add(candidates);
                entries = candidates.size;
            }
            while (next < all.size() && (group.size() < 2 || entries + all.get(next).candidates.size <= maxEntries)) {
                entries += all.get(next).candidates.size;
                group.add(all.get(next++).candidates);
            }
            dropped = Math.max(dropped, keepHeaviest(group, (int) entries));
            first = false;
        }
        unmonitoredBound = Math.max(dropped, bounds);
    }

    /**
     * Refills the candidates with the C heaviest by the sketch of the items of {@code sets} (this tracker's own
     * among them, read before the refill); returns the largest estimate left out, or Long.MIN_VALUE.
     */
    private long keepHeaviest(List<MonitoredItems> sets, int entries) {
        int w = candidates.width;
        CombinedItems combined = new CombinedItems(w, entries);
        for (MonitoredItems set : sets) {
            for (int s = 0; s < set.size; s++) {
                combined.addOrFind(set.keys, s * w, set.keyHash(s));
            }
        }
        int n = combined.size;
        long[] estimates = new long[n];
        for (int p = 0; p < n; p++) {
            long h1 = combined.hashes[p];
            estimates[p] = sketch.estimate(h1, ItemHasher.h2(h1));
        }
        int[] ranked = Ranking.descending(estimates, n);
        int kept = Math.min(n, candidates.capacity);
        long dropped = kept < n ? estimates[ranked[kept]] : Long.MIN_VALUE;
        candidates.clearFor(kept);
        for (int r = 0; r < kept; r++) {
            int p = ranked[r];
            MonitoredItems.copyKey(combined.keys, p * w, candidates.probe, 0, w);
            candidates.add(combined.hashes[p], estimates[p], estimates[p]); // only the sketch's bound is known
        }
        return dropped;
    }

    private CountMinHeap compatible(HeavyHitters other) {
        if (!(other instanceof CountMinHeap)) {
            throw new IllegalArgumentException("cannot merge a CountMinHeap with "
                    + (other == null ? "null" : "a " + other.getClass().getSimpleName()));
        }
        CountMinHeap o = (CountMinHeap) other;
        if (!o.candidates.kind.toString().equals(candidates.kind.toString()) || o.candidates.capacity != candidates.capacity) {
            throw new IllegalArgumentException("cannot merge CountMinHeaps of different key kind or capacity: "
                    + candidates.kind + "/" + candidates.capacity + " vs " + o.candidates.kind + "/"
                    + o.candidates.capacity);
        }
        return o;
    }

    /**
     * Bytes of the sketch's and the candidates' arrays allocated now (exact). For a tracker from {@link #create}
     * or {@link #withMemory} that is fixed; a tracker read by {@link #fromByteArray} starts with candidate arrays
     * for what its image holds and reports more as they grow, never more than a tracker of the same shape created
     * new (so at most the {@code bytes} given to {@link #withMemory}).
     */
    @Override
    public long memoryBytes() {
        return sketch.memoryBytes() + candidates.memoryBytes();
    }

    /**
     * An independent copy: its own copy of the sketch and of the candidates (same content, heap and allocated
     * memory), so the same image and the same answers to the same later updates; no validation.
     */
    @Override
    public CountMinHeap copy() {
        return new CountMinHeap(this);
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
        int cmLength = Math.toIntExact(sketch.imageBytes());
        int padded = (cmLength + 7) / 8 * 8;
        int w = candidates.width;
        ImageWriter out = new ImageWriter(Family.COUNT_MIN_HEAP, IMAGE_VERSION,
                fieldBytes(cmLength, w, candidates.size), sink)
                .putInt(candidates.kind.id()).putInt(candidates.kind.maxBytes()).putInt(candidates.capacity)
                .putLong(unmonitoredBound).putInt(cmLength);
        // the sketch's image, zero-padded to whole longs, streamed into this one (no array of its size)
        sketch.writeImage(new ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                out.putBytes(bytes, offset, length);
            }
        });
        out.putBytes(new byte[padded - cmLength], 0, padded - cmLength).putInt(candidates.size);
        for (int s = 0; s < candidates.size; s++) {
            out.putLongs(candidates.keys, s * w, w).putLong(candidates.counts[s]).putLong(candidates.errors[s]);
        }
        out.putInts(candidates.heapOrder(), 0, candidates.size);
        return out.finish();
    }

    /**
     * Reads an image written by {@link #toByteArray()}, validating every field. The candidate set allocates for
     * the image's candidates and half as many again (at least 64, at most the capacity) and grows to its capacity
     * as new items arrive, because an image holds only the candidates while its capacity field may declare up to
     * {@link SpaceSaving#MAX_CAPACITY} of them: allocating the declared capacity would let a hostile or corrupt
     * image of a few dozen bytes claim gigabytes. So the memory a read takes is bounded by a fixed amount plus a
     * multiple of the image's length (the sketch's arrays are in the image). Growth changes nothing observable
     * except {@link #memoryBytes()}: the tracker answers, updates, merges and writes its image exactly as the tracker
     * that wrote the image would.
     *
     * @throws IllegalArgumentException if the image is truncated, corrupt or of another family or version
     */
    public static CountMinHeap fromByteArray(byte[] image) {
        return read(ImageReader.open(image, Family.COUNT_MIN_HEAP, IMAGE_VERSION));
    }

    /**
     * Reads an image of {@code length} bytes from {@code source} through a small buffer, with the validation and
     * messages of {@link #fromByteArray}; takes exactly {@code length} bytes from the source either way.
     *
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static CountMinHeap readImage(ImageReader.Source source, int length) {
        return ImageReader.read(source, length, Family.COUNT_MIN_HEAP, IMAGE_VERSION, CountMinHeap::read);
    }

    private static CountMinHeap read(ImageReader in) {
        KeyKind kind = KeyKind.of(in.getInt("keyKind", 0, 2), in.getInt("maxBytes", 1, KeyKind.MAX_BYTES_LIMIT));
        int capacity = in.getInt("capacity", 1, SpaceSaving.MAX_CAPACITY);
        long bound = in.getLong("unmonitoredBound", 0, Long.MAX_VALUE);
        int cmLength = in.getInt("sketchBytes", 0, Integer.MAX_VALUE - 16);
        // the embedded Count-Min image, padded to whole longs, is read in place (no copy of it)
        long padded = (cmLength + 7L) / 8 * 8;
        in.require("sketch", padded);
        CountMinSketch sketch = CountMinSketch.readImage(in.embedded("sketch"), cmLength);
        in.skip("sketch", padded - cmLength);
        // as create and over: a tracker that could not write its image once full is refused now, not at a checkpoint
        checkShape(kind, capacity, new CountMinSketch.Size(sketch.width(), sketch.depth()));
        int size = in.getInt("size", 0, capacity);
        int w = kind.width();
        long[] entries = in.getLongs("candidates", (long) size * (w + 2));
        int[] heapOrder = in.getInts("heapOrder", size);
        in.finish();
        CountMinHeap heap = new CountMinHeap(kind, capacity, sketch, size);
        for (int s = 0; s < size; s++) {
            int at = s * (w + 2);
            System.arraycopy(entries, at, heap.candidates.probe, 0, w);
            long count = entries[at + w];
            long error = entries[at + w + 1];
            if (count < 0 || error < 0 || error > count) {
                throw new IllegalArgumentException("image corrupt: candidate " + s + " has count " + count
                        + ", error " + error);
            }
            kind.requireCanonical(entries, at, "candidate " + s);
            long h1 = kind.hash(sketch.hasher(), entries, at, new byte[kind.maxBytes()]);
            if (heap.candidates.find(h1) >= 0) {
                throw new IllegalArgumentException("image corrupt: candidate " + s + " repeats an item");
            }
            // a stored count is at most the sketch's estimate of the item, which never decreases: above it, the
            // reported lower bound could exceed the upper bound, and the next update would lower the count
            long estimate = sketch.estimate(h1, ItemHasher.h2(h1));
            if (count > estimate) {
                throw new IllegalArgumentException("image corrupt: candidate " + s + " has count " + count
                        + ", above the sketch's estimate " + estimate + " of its item");
            }
            heap.candidates.add(h1, count, error);
        }
        heap.candidates.restoreHeap(heapOrder);
        // the bound is a count displaced or an estimate turned away (or, after a merge, a sum of two bounds),
        // each at most the total weight at the time, which never decreases
        if (bound > sketch.totalWeight()) {
            throw new IllegalArgumentException("image corrupt: unmonitoredBound " + bound
                    + " is above the sketch's total weight " + sketch.totalWeight());
        }
        heap.unmonitoredBound = bound;
        return heap;
    }

    @Override
    public String toString() {
        return "CountMinHeap[" + sketch + ", candidates=" + candidates.size + "/" + candidates.capacity + "]";
    }
}
