package io.linerate.benchmarks.frequency;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitter;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;

/**
 * The heavy-hitter trackers under comparison, by name:
 * <ul>
 *   <li>{@code spacesaving}, {@code cmheap}: linerate {@code SpaceSaving.withMemory} and
 *       {@code CountMinHeap.withMemory}, {@code KeyKind.longs()}, 64 KiB;</li>
 *   <li>{@code longs-M}: DataSketches 6.2.0 {@code frequencies.LongsSketch(M)}, M a power of two, 18 bytes per
 *       map slot (M = 2048 is the largest that fits 64 KiB);</li>
 *   <li>{@code streamsummary-C}: stream-lib {@code StreamSummary<Long>(C)} (objects per counter: its memory is
 *       measured on the heap);</li>
 *   <li>{@code purge-S}, not in {@link #ALL}: {@link PurgeTrackerPrototype} with S slots (16 bytes each; S = 4096
 *       is 64 KiB), a feasibility prototype measured on request ({@code -p impl=purge-4096,...}).</li>
 * </ul>
 */
public final class HeavyHitterTrackers {

    /** The memory the linerate trackers are given: 64 KiB. */
    public static final long MEMORY = 64 * 1024;
    public static final long SEED = 0x6C696E6572617465L;

    /** Every configuration the benchmark and the report measure, in report order. */
    public static final List<String> ALL = List.of("spacesaving", "cmheap", "longs-2048", "longs-4096",
            "streamsummary-460", "streamsummary-4096");

    private HeavyHitterTrackers() {
    }

    public static HeavyHitterAdapter create(String impl) {
        if (impl.equals("spacesaving")) {
            return new Linerate(impl, SpaceSaving.withMemory(KeyKind.longs(), MEMORY, SEED));
        }
        if (impl.equals("cmheap")) {
            return new Linerate(impl, CountMinHeap.withMemory(KeyKind.longs(), MEMORY, SEED));
        }
        if (impl.startsWith("longs-")) {
            return new DataSketchesLongs(impl, Integer.parseInt(impl.substring("longs-".length())));
        }
        if (impl.startsWith("purge-")) {
            return new PurgePrototype(impl, Integer.parseInt(impl.substring("purge-".length())));
        }
        if (impl.startsWith("streamsummary-")) {
            return new StreamLibSummary(impl, Integer.parseInt(impl.substring("streamsummary-".length())));
        }
        throw new IllegalArgumentException("unknown tracker '" + impl + "', expected spacesaving, cmheap, longs-M or "
                + "streamsummary-C, e.g. " + ALL);
    }

    /** linerate {@link SpaceSaving} or {@link CountMinHeap}. */
    static final class Linerate implements HeavyHitterAdapter {
        private final String name;
        private final HeavyHitters tracker;

        Linerate(String name, HeavyHitters tracker) {
            this.name = name;
            this.tracker = tracker;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            tracker.update(key, 1);
        }

        @Override
        public List<long[]> top(int k) {
            List<long[]> out = new ArrayList<>();
            for (HeavyHitter h : tracker.topK(k)) {
                out.add(new long[] {(Long) h.item(), h.estimate()});
            }
            return out;
        }

        @Override
        public long reportedBytes() {
            return tracker.memoryBytes();
        }

        @Override
        public String memoryBasis() {
            return "memoryBytes() (primitive arrays), " + tracker;
        }

        @Override
        public Object unwrap() {
            return tracker;
        }

        /**
         * {@code union(others)}, a new tracker of all at once, as the heavy-hitter operator builds a sliding window
         * (for one other, {@code union(other)}, which gives what {@code copy()} then {@code merge(other)} gives).
         */
        @Override
        public Object union(List<HeavyHitterAdapter> others) {
            List<HeavyHitters> trackers = new ArrayList<>(others.size());
            for (HeavyHitterAdapter other : others) {
                trackers.add(((Linerate) other).tracker);
            }
            return tracker.union(trackers);
        }
    }

    /** The purge-based prototype, {@code update(key, 1)}, top-k by upper-bound estimate. */
    static final class PurgePrototype implements HeavyHitterAdapter {
        private final String name;
        private final PurgeTrackerPrototype tracker;

        PurgePrototype(String name, int slots) {
            this.name = name;
            this.tracker = new PurgeTrackerPrototype(slots, SEED);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            tracker.update(key, 1);
        }

        @Override
        public List<long[]> top(int k) {
            return tracker.top(k);
        }

        @Override
        public long reportedBytes() {
            return tracker.memoryBytes();
        }

        @Override
        public String memoryBasis() {
            return "16 B per slot (keys long[], counts long[])";
        }

        @Override
        public Object unwrap() {
            return tracker;
        }
    }

    /** DataSketches {@code LongsSketch(maxMapSize)}, {@code update(long)}, top-k by estimate. */
    static final class DataSketchesLongs implements HeavyHitterAdapter {
        private final String name;
        private final int maxMapSize;
        private final LongsSketch sketch;

        DataSketchesLongs(String name, int maxMapSize) {
            this.name = name;
            this.maxMapSize = maxMapSize;
            this.sketch = new LongsSketch(maxMapSize);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            sketch.update(key);
        }

        @Override
        public List<long[]> top(int k) {
            LongsSketch.Row[] rows = sketch.getFrequentItems(0, ErrorType.NO_FALSE_NEGATIVES);
            Arrays.sort(rows, (a, b) -> Long.compare(b.getEstimate(), a.getEstimate()));
            List<long[]> out = new ArrayList<>();
            for (int i = 0; i < Math.min(k, rows.length); i++) {
                out.add(new long[] {rows[i].getItem(), rows[i].getEstimate()});
            }
            return out;
        }

        @Override
        public long reportedBytes() {
            return 18L * maxMapSize; // long keys, long values, short states per slot of the full-size map
        }

        @Override
        public String memoryBasis() {
            return "18 B x " + maxMapSize + " map slots (keys long[], values long[], states short[])";
        }

        @Override
        public Object unwrap() {
            return sketch;
        }

        /** A new {@code LongsSketch(maxMapSize)} that merges this one and each other in turn (it has no copy). */
        @Override
        public Object union(List<HeavyHitterAdapter> others) {
            LongsSketch union = new LongsSketch(maxMapSize);
            union.merge(sketch);
            for (HeavyHitterAdapter other : others) {
                union.merge(((DataSketchesLongs) other).sketch);
            }
            return union;
        }
    }

    /** stream-lib {@code StreamSummary<Long>(capacity)}: {@code offer(Long)}, {@code topK}. */
    static final class StreamLibSummary implements HeavyHitterAdapter {
        private final String name;
        private final StreamSummary<Long> summary;

        StreamLibSummary(String name, int capacity) {
            this.name = name;
            this.summary = new StreamSummary<>(capacity);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(long key) {
            summary.offer(key); // StreamSummary takes objects: the boxing is stream-lib's
        }

        @Override
        public List<long[]> top(int k) {
            List<long[]> out = new ArrayList<>();
            for (Counter<Long> c : summary.topK(k)) {
                out.add(new long[] {c.getItem(), c.getCount()});
            }
            return out;
        }

        @Override
        public long reportedBytes() {
            return -1;
        }

        @Override
        public String memoryBasis() {
            return "none reported (objects per counter); see the heap size";
        }

        @Override
        public Object unwrap() {
            return summary;
        }
    }
}
