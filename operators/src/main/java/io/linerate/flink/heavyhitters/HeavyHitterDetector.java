package io.linerate.flink.heavyhitters;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.TimestampOf;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * A configured heavy-hitters operator: per scope key and per event-time window (tumbling, or sliding as a ring of
 * sub-window trackers), it reports the top k items and every item whose upper bound is ≥ φ·N, with estimate and
 * deterministic bounds; optionally it alerts as soon as an item's estimate crosses a threshold inside a window.
 * Built by {@link #builder}; every configuration error fails in {@link Builder#build()}, naming the parameter.
 *
 * <p><b>Guarantee (Space-Saving, the default).</b> With m counters per sub-window, every item of true weight
 * > N/m is monitored and every reported item has {@code lowerBound ≤ true ≤ upperBound}, {@code upperBound −
 * lowerBound ≤ N/m} (Metwally et al. 2005). The default m = c · max(k, ⌈1/φ⌉) with c = {@value #CAPACITY_FACTOR}, so
 * no item of weight ≥ φ·N is missed and the bounds are within φ·N/4. A sliding window merges its sub-windows'
 * summaries (Agarwal et al. 2012); its bounds stay valid, and the report states the largest weight an unmonitored
 * item can have ({@link HeavyHitterReport#unmonitoredBound}; an unlisted monitored item is below φ·N) and whether the
 * list is complete.
 *
 * <p>Usage: {@code detector.apply(keyedStream)}; then {@code getSideOutput(detector.lateTag(inputType))},
 * {@code getSideOutput(Rejected.tag(inputType))} and {@code getSideOutput(detector.alertTag(keyType))}. For batch
 * records (several elements of one scope per Flink record):
 * {@code detector.applyToBatches(batches, batchScope, elementsOf, elementType)}, whose side outputs carry elements.
 */
public final class HeavyHitterDetector<T, K> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Default counters per 1/φ or per top-k slot: c in m = c · max(k, ⌈1/φ⌉). */
    public static final int CAPACITY_FACTOR = 4;
    /** Default top-k. */
    public static final int DEFAULT_K = 10;
    /** Default φ. */
    public static final double DEFAULT_PHI = 0.01;
    /** Default window (tumbling). */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(1);
    /** Largest number of sub-windows per window (window / slide). */
    public static final int MAX_SUB_WINDOWS = 1024;
    /**
     * Sub-windows a key may hold open beyond its window's n, by default: max(n, this). The default
     * {@code maxOpenSubWindows} is n + max(n, {@value}).
     */
    public static final int DEFAULT_OPEN_AHEAD = 64;
    /** Largest {@code maxOpenSubWindows}: the most sub-windows a key may hold open (what its index reads back). */
    public static final int MAX_OPEN_SUB_WINDOWS = WindowRingSerializer.MAX_SLOTS;
    /** Default depth of the CM-heap's sketch. */
    public static final int DEFAULT_CM_DEPTH = 4;
    /** Default of {@link Builder#stateCacheBytes}: 64 MiB per parallel instance of the operator. */
    public static final long DEFAULT_STATE_CACHE_BYTES = 64L << 20;
    /** Name of the late-records side output. */
    public static final String LATE_OUTPUT = "late-records";
    /** Name of the alerts side output. */
    public static final String ALERT_OUTPUT = "heavy-hitter-alerts";

    final KeySelector<T, K> scope;
    /** The scope key's type information as given, or null: Flink extracts it from the selector. */
    final TypeInformation<K> scopeType;
    final ItemSelector<T> item;
    final WeightOf<T> weight;
    /** Event time per element, or null: the Flink record's (the batch record's) timestamp. */
    final TimestampOf<T> timestamps;
    final long windowMillis;
    final long slideMillis;
    final int subWindows;
    final int maxOpenSubWindows;
    final int k;
    final double phi;
    final TrackerKind tracker;
    final int capacity;
    final int cmWidth;
    final int cmDepth;
    final long seed;
    final long alertWeight;
    final double alertFraction;
    final long alertMinWeight;
    final long stateCacheBytes;

    private HeavyHitterDetector(Builder<T, K> b, int capacity, int cmWidth, int cmDepth, int maxOpenSubWindows) {
        this.scope = b.scope;
        this.scopeType = b.scopeType;
        this.item = b.item;
        this.weight = b.weight;
        this.timestamps = b.timestamps;
        this.windowMillis = b.window.toMillis();
        this.slideMillis = b.slide.toMillis();
        this.subWindows = (int) (windowMillis / slideMillis);
        this.maxOpenSubWindows = maxOpenSubWindows;
        this.k = b.k;
        this.phi = b.phi;
        this.tracker = b.tracker;
        this.capacity = capacity;
        this.cmWidth = cmWidth;
        this.cmDepth = cmDepth;
        this.seed = b.seed;
        this.alertWeight = b.alertWeight;
        this.alertFraction = b.alertFraction;
        this.alertMinWeight = b.alertMinWeight;
        this.stateCacheBytes = b.stateCacheBytes;
    }

    /**
     * A builder for records of type {@code T} scoped by {@code scope} (one state per scope key) counting the items
     * {@code item} selects.
     */
    public static <T, K> Builder<T, K> builder(KeySelector<T, K> scope, ItemSelector<T> item) {
        return new Builder<>(Objects.requireNonNull(scope, "scope"), null, Objects.requireNonNull(item, "item"));
    }

    /**
     * As {@link #builder(KeySelector, ItemSelector)}, with the scope key's type given: for a selector whose key type
     * Flink cannot extract (a lambda returning a {@code Tuple2} or another generic type fails Flink's {@code keyBy}
     * with "The generic type parameters of 'Tuple2' are missing"). {@link #apply(DataStream)} and
     * {@link #applyToBatches} then key by {@code scope} (or the batch scope) with {@code scopeType}, as the dedup and
     * Count-Min builders' {@code scope(selector, scopeType)} do.
     */
    public static <T, K> Builder<T, K> builder(KeySelector<T, K> scope, TypeInformation<K> scopeType,
            ItemSelector<T> item) {
        return new Builder<>(Objects.requireNonNull(scope, "scope"), Objects.requireNonNull(scopeType, "scopeType"),
                Objects.requireNonNull(item, "item"));
    }

    /** Applies the operator to {@code input} keyed by the scope selector (with the scope type, if given). */
    public SingleOutputStreamOperator<HeavyHitterReport<K>> apply(DataStream<T> input) {
        return apply(scopeType == null ? input.keyBy(scope) : input.keyBy(scope, scopeType));
    }

    /** Applies the operator to an already keyed stream (its key must be the scope key). */
    public SingleOutputStreamOperator<HeavyHitterReport<K>> apply(KeyedStream<T, K> keyed) {
        return keyed.transform("heavy-hitters", HeavyHitterReport.typeInfo(keyed.getKeyType()),
                operator(keyed.getType(), keyed.getKeyType()));
    }

    /** The operator itself (for test harnesses or {@code transform}). */
    public HeavyHittersOperator<T, K> operator(TypeInformation<T> inputType, TypeInformation<K> keyType) {
        return new HeavyHittersOperator<>(this, inputType, keyType);
    }

    /**
     * Applies the operator to a stream of batch records, each holding several elements of ONE scope (as the packet
     * format carries a batch of packets of one observation point per Kafka record), keyed by {@code batchScope}.
     * Every element of a batch is counted under the batch's scope (the detector's own scope selector is not applied
     * to elements and not checked); a scope type given to the builder is the batch scope's type too. The item, weight and timestamps selectors apply to each element; without
     * {@link Builder#timestamps} every element has the batch record's timestamp.
     *
     * <p>Flink's per-record costs (network serialization, {@code keyBy}, state lookup) are paid once per batch: one
     * state read and at most one state write per batch, then per element the same logic as {@link #apply}. Late
     * elements go to {@link #lateTag lateTag(elementType)}, malformed ones to {@code Rejected.tag(elementType)}. A
     * batch record whose {@code elements} throws goes to {@code Rejected.batchTag(batches.getType())}, counted in
     * {@code malformedBatches}; the elements it handed over before failing stay counted.
     */
    public <B> SingleOutputStreamOperator<HeavyHitterReport<K>> applyToBatches(DataStream<B> batches,
            KeySelector<B, K> batchScope, ElementsOf<B, T> elements, TypeInformation<T> elementType) {
        Objects.requireNonNull(batchScope, "batchScope");
        Objects.requireNonNull(elements, "elements");
        Objects.requireNonNull(elementType, "elementType");
        KeyedStream<B, K> keyed = scopeType == null ? batches.keyBy(batchScope) : batches.keyBy(batchScope, scopeType);
        return keyed.transform("heavy-hitters-batches", HeavyHitterReport.typeInfo(keyed.getKeyType()),
                batchOperator(keyed.getType(), elementType, keyed.getKeyType(), elements));
    }

    /** The batch operator itself (for test harnesses or {@code transform} on a stream keyed by the batch scope). */
    public <B> HeavyHittersBatchOperator<B, T, K> batchOperator(TypeInformation<B> batchType,
            TypeInformation<T> elementType, TypeInformation<K> keyType, ElementsOf<B, T> elements) {
        Objects.requireNonNull(batchType, "batchType");
        return new HeavyHittersBatchOperator<>(this, Objects.requireNonNull(elements, "elements"), batchType,
                Objects.requireNonNull(elementType, "elementType"), keyType);
    }

    /**
     * Side output of records (for batches: elements) whose window was already reported (timestamp's window end ≤
     * watermark + 1).
     */
    public static <T> OutputTag<T> lateTag(TypeInformation<T> inputType) {
        return new OutputTag<>(LATE_OUTPUT, inputType);
    }

    /** Side output of immediate alerts. */
    public static <K> OutputTag<HeavyHitterAlert<K>> alertTag(TypeInformation<K> keyType) {
        return new OutputTag<>(ALERT_OUTPUT, HeavyHitterAlert.typeInfo(keyType));
    }

    /**
     * Side output of malformed records (the one every linerate operator shares), and of records that would open a
     * sub-window beyond {@link Builder#maxOpenSubWindows}.
     */
    public static <T> OutputTag<Rejected<T>> malformedTag(TypeInformation<T> inputType) {
        return Rejected.tag(inputType);
    }

    /** A fresh, empty tracker as configured (one per sub-window). */
    HeavyHitters newTracker() {
        return tracker == TrackerKind.SPACE_SAVING
                ? SpaceSaving.withCapacity(item.keyKind(), capacity, seed)
                // FULL_WIDTH, not the library's default MIXED_32: a window merges the trackers of its sub-windows,
                // and those restored from state written before MIXED_32 existed use FULL_WIDTH; sketches of two
                // indexings cannot be merged
                : CountMinHeap.over(item.keyKind(), capacity,
                        CountMinSketch.withShape(cmWidth, cmDepth, seed, RowIndexing.FULL_WIDTH, true));
    }

    boolean alerts() {
        return alertWeight > 0 || alertFraction > 0;
    }

    /** What restored state must agree on with this configuration (recorded in the state's serializer snapshot). */
    WindowShape shape() {
        boolean cm = tracker == TrackerKind.COUNT_MIN_HEAP;
        return new WindowShape(slideMillis, subWindows, tracker.name(), capacity, cm ? cmWidth : 0, cm ? cmDepth : 0,
                item.keyKind().toString(), seed);
    }

    /** Counters (Space-Saving) or candidates (CM-heap) per sub-window tracker, as given or derived in {@code build()}. */
    public int capacity() {
        return capacity;
    }

    /** The window's length (the slide when tumbling). */
    public Duration windowSize() {
        return Duration.ofMillis(windowMillis);
    }

    /** The slide between window starts, and so the length of a sub-window (the window size when tumbling). */
    public Duration slide() {
        return Duration.ofMillis(slideMillis);
    }

    /** n = windowSize / slide: the sub-windows a window is made of (1 when tumbling). */
    public int subWindows() {
        return subWindows;
    }

    /** Heap per instance for the sub-windows of recent keys on RocksDB; see {@link Builder#stateCacheBytes}. */
    public long stateCacheBytes() {
        return stateCacheBytes;
    }

    /** The most sub-windows a key holds open at once; see {@link Builder#maxOpenSubWindows}. */
    public int maxOpenSubWindows() {
        return maxOpenSubWindows;
    }

    /** k: how many top items a report ranks. */
    public int k() {
        return k;
    }

    /** φ: a report lists every item that may weigh at least φ·N. */
    public double phi() {
        return phi;
    }

    /** The tracker kept per sub-window: Space-Saving (the default) or CM-heap. */
    public TrackerKind trackerKind() {
        return tracker;
    }

    /**
     * Bytes of one sub-window's tracker; a key holds {@code subWindows} of them while records keep within a window
     * of the watermark, at most {@code maxOpenSubWindows}.
     */
    public long trackerBytes() {
        return tracker == TrackerKind.SPACE_SAVING ? SpaceSaving.memoryBytesFor(item.keyKind(), capacity)
                : CountMinHeap.memoryBytesFor(item.keyKind(), capacity, new CountMinSketch.Size(cmWidth, cmDepth));
    }

    /** What {@link #newTracker()} would check of the sizes, without allocating a tracker. */
    private void checkTracker() {
        if (tracker == TrackerKind.SPACE_SAVING) {
            SpaceSaving.checkCapacity(item.keyKind(), capacity);
        } else {
            CountMinHeap.checkShape(item.keyKind(), capacity, new CountMinSketch.Size(cmWidth, cmDepth));
        }
    }

    @Override
    public String toString() {
        return "HeavyHitterDetector[window=" + windowSize() + ", slide=" + slide() + ", k=" + k + ", phi=" + phi
                + ", " + tracker + " capacity=" + capacity + (tracker == TrackerKind.COUNT_MIN_HEAP
                ? " width=" + cmWidth + " depth=" + cmDepth : "") + "]";
    }

    /** Builder of a {@link HeavyHitterDetector}; {@link #build()} validates everything. */
    public static final class Builder<T, K> {
        private final KeySelector<T, K> scope;
        private final TypeInformation<K> scopeType;
        private final ItemSelector<T> item;
        private WeightOf<T> weight = WeightOf.one();
        private TimestampOf<T> timestamps;
        private Duration window = DEFAULT_WINDOW;
        private Duration slide = DEFAULT_WINDOW;
        /** The last window call ({@code tumbling(..)} or {@code sliding(..)}), and the first of the other kind. */
        private String windowChoice;
        private String windowConflict;
        private int k = DEFAULT_K;
        private double phi = DEFAULT_PHI;
        private TrackerKind tracker = TrackerKind.SPACE_SAVING;
        /** The first tracker call ({@code spaceSaving()}, {@code countMinHeap(..)}) and a later different one. */
        private String trackerChoice;
        private String trackerConflict;
        private Integer capacity;
        private Long memoryBudget;
        private Integer cmWidth;
        private int cmDepth = DEFAULT_CM_DEPTH;
        private long seed = 0x5EED_4EA7_1L;
        private long alertWeight;
        private double alertFraction;
        private boolean alertFractionSet; // alertAtFraction was called: its fraction must be in (0, 1], 0 included
        private long alertMinWeight;
        private Integer maxOpenSubWindows;
        private long stateCacheBytes = DEFAULT_STATE_CACHE_BYTES;

        private Builder(KeySelector<T, K> scope, TypeInformation<K> scopeType, ItemSelector<T> item) {
            this.scope = scope;
            this.scopeType = scopeType;
            this.item = item;
        }

        /** The weight of a record (default {@link WeightOf#one()}: count records; use the length to count bytes). */
        public Builder<T, K> weight(WeightOf<T> weight) {
            this.weight = Objects.requireNonNull(weight, "weight");
            return this;
        }

        /**
         * The event time of each record or batch element, in epoch ms (default: none, the Flink record's timestamp;
         * for batches, the batch record's). A selector that throws sends the element to the malformed output.
         */
        public Builder<T, K> timestamps(TimestampOf<T> timestamps) {
            this.timestamps = Objects.requireNonNull(timestamps, "timestamps");
            return this;
        }

        /**
         * Tumbling event-time windows of {@code size} (default 1 minute), aligned to the epoch. Not with
         * {@link #sliding}: {@link #build()} fails naming both.
         */
        public Builder<T, K> tumbling(Duration size) {
            chooseWindow("tumbling(" + size + ")");
            this.window = size;
            this.slide = size;
            return this;
        }

        /**
         * Sliding windows of {@code size} every {@code slide}; {@code size} must be a multiple of {@code slide}. Not
         * with {@link #tumbling}: {@link #build()} fails naming both.
         */
        public Builder<T, K> sliding(Duration size, Duration slide) {
            chooseWindow("sliding(" + size + ", " + slide + ")");
            this.window = size;
            this.slide = slide;
            return this;
        }

        /**
         * Notes a window call; one of the other kind (tumbling after sliding or the reverse) is remembered for
         * {@link #build()} to refuse, where the last call would silently replace the first. The same kind again
         * replaces the window, as any setter called twice.
         */
        private void chooseWindow(String choice) {
            if (windowChoice != null && windowConflict == null
                    && windowChoice.startsWith("tumbling") != choice.startsWith("tumbling")) {
                windowConflict = "set either tumbling(size) or sliding(size, slide), not both (got " + windowChoice
                        + " and " + choice + ")";
            }
            windowChoice = choice;
        }

        /** Report the top {@code k} items of each window (default {@value #DEFAULT_K}). */
        public Builder<T, K> topK(int k) {
            this.k = k;
            return this;
        }

        /** Report every item whose upper bound is ≥ φ·N (default 0.01); φ in (0, 1). */
        public Builder<T, K> phi(double phi) {
            this.phi = phi;
            return this;
        }

        /**
         * Counters (Space-Saving) or candidates (CM-heap) per sub-window; ≥ max(k, ⌊1/φ⌋ + 1). Not with a
         * {@link #memoryBudget}, which chooses the capacity: {@link #build()} fails naming both.
         */
        public Builder<T, K> capacity(int capacity) {
            this.capacity = capacity;
            return this;
        }

        /**
         * Bytes per sub-window tracker instead of a capacity: the largest tracker that fits. Not with a
         * {@link #capacity}: {@link #build()} fails naming both.
         */
        public Builder<T, K> memoryBudget(long bytes) {
            this.memoryBudget = bytes;
            return this;
        }

        /** Space-Saving per sub-window (the default). Not with a {@code countMinHeap}: {@link #build()} fails. */
        public Builder<T, K> spaceSaving() {
            choose("spaceSaving()");
            this.tracker = TrackerKind.SPACE_SAVING;
            return this;
        }

        /**
         * A CM-heap per sub-window: a conservative Count-Min of width w = ⌈2e/φ⌉ (so its error e/w ≤ φ/2) and depth
         * {@value #DEFAULT_CM_DEPTH}, plus the capacity's candidates; with a {@link #memoryBudget}, the shape the
         * budget affords.
         */
        public Builder<T, K> countMinHeap() {
            choose("countMinHeap()");
            this.tracker = TrackerKind.COUNT_MIN_HEAP;
            this.cmWidth = null;
            this.cmDepth = DEFAULT_CM_DEPTH;
            return this;
        }

        /**
         * A CM-heap per sub-window with a sketch of {@code width} × {@code depth} (not with a {@link #memoryBudget},
         * which chooses the shape).
         */
        public Builder<T, K> countMinHeap(int width, int depth) {
            choose("countMinHeap(" + width + ", " + depth + ")");
            this.tracker = TrackerKind.COUNT_MIN_HEAP;
            this.cmWidth = width;
            this.cmDepth = depth;
            return this;
        }

        /**
         * Notes a tracker choice; a second, different one is remembered for {@link #build()} to refuse: the last call
         * would otherwise silently undo the first (countMinHeap() after countMinHeap(w, d) resets the shape).
         */
        private void choose(String choice) {
            if (trackerChoice != null && !trackerChoice.equals(choice) && trackerConflict == null) {
                trackerConflict = "set one tracker, once: got " + trackerChoice + " and " + choice;
            }
            trackerChoice = choice;
        }

        /** Hash seed of the trackers (every sub-window uses the same, so they merge). */
        public Builder<T, K> seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Alert once per item per sub-window (the window when tumbling, each slide interval when sliding) when its
         * estimate reaches {@code weight} (> 0).
         */
        public Builder<T, K> alertAtWeight(long weight) {
            this.alertWeight = weight;
            return this;
        }

        /**
         * Alert once per item per sub-window (the window when tumbling, each slide interval when sliding) when its
         * estimate reaches {@code fraction} (in (0, 1]) of the sub-window's weight so far, once that weight is at
         * least {@code minWindowWeight} (≥ 0; avoids alerting on the first records of a window, where every item is
         * a large fraction). A sub-window of weight 0 never alerts.
         */
        public Builder<T, K> alertAtFraction(double fraction, long minWindowWeight) {
            this.alertFraction = fraction;
            this.alertFractionSet = true;
            this.alertMinWeight = minWindowWeight;
            return this;
        }

        /**
         * The most sub-windows a key may hold open at once, in [n, {@value #MAX_OPEN_SUB_WINDOWS}] where n =
         * windowSize / slide; default n + max(n, {@value #DEFAULT_OPEN_AHEAD}). A key holds n while its records keep
         * within a window of the watermark; a record running further ahead opens one more, each with its tracker and
         * timer. A record that would open one beyond this limit goes to the malformed output
         * ({@link Rejected#tag}) with the reason, counted in {@code subWindowLimitRecords}: it bounds the state and
         * timers of a key whose timestamps run far ahead of the watermark (another time unit, a stalled watermark).
         */
        public Builder<T, K> maxOpenSubWindows(int maxOpenSubWindows) {
            this.maxOpenSubWindows = maxOpenSubWindows;
            return this;
        }

        /**
         * Heap each parallel instance of the operator may spend keeping the sub-windows of its most recently used
         * scope keys live between checkpoints when the state backend stores values serialized (RocksDB): there a record
         * (or batch) otherwise costs a read of its key's open sub-window index and a deserialize and a serialize of the
         * sub-window it counts into (one entry per sub-window in the state). A key is weighed by the bytes of what it
         * has read (8 per open sub-window, and at most {@link HeavyHitterDetector#trackerBytes()} plus the alerted set
         * per sub-window read: its records read one, its reports the window's) when it enters the cache and at each
         * change; the changed sub-windows are written back when the cache needs the key's place and before every
         * checkpoint or savepoint; a key heavier than the whole cache is not held. Default
         * {@value #DEFAULT_STATE_CACHE_BYTES} bytes; 0 turns it off. Backends that keep values on the heap (also under
         * the changelog backend) and batch execution ignore it.
         */
        public Builder<T, K> stateCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("stateCacheBytes must be >= 0, got " + bytes);
            }
            this.stateCacheBytes = bytes;
            return this;
        }

        /** Validates the configuration; throws {@link IllegalArgumentException} naming the parameter and limit. */
        public HeavyHitterDetector<T, K> build() {
            if (windowConflict != null) {
                throw new IllegalArgumentException(windowConflict);
            }
            long windowMs = millisOf(window, "windowSize");
            long slideMs = millisOf(slide, "slide");
            if (windowMs % slideMs != 0) {
                throw new IllegalArgumentException("windowSize must be a multiple of slide, got windowSize " + window
                        + " and slide " + slide);
            }
            if (windowMs / slideMs > MAX_SUB_WINDOWS) {
                throw new IllegalArgumentException("windowSize / slide must be ≤ " + MAX_SUB_WINDOWS + ", got "
                        + windowMs / slideMs);
            }
            int n = (int) (windowMs / slideMs);
            int maxOpen = maxOpenSubWindows != null ? maxOpenSubWindows
                    : Math.min(MAX_OPEN_SUB_WINDOWS, n + Math.max(n, DEFAULT_OPEN_AHEAD));
            if (maxOpen < n || maxOpen > MAX_OPEN_SUB_WINDOWS) {
                throw new IllegalArgumentException("maxOpenSubWindows must be in [windowSize / slide, "
                        + MAX_OPEN_SUB_WINDOWS + "] = [" + n + ", " + MAX_OPEN_SUB_WINDOWS + "], got " + maxOpen);
            }
            if (k <= 0) {
                throw new IllegalArgumentException("k must be > 0, got " + k);
            }
            if (!(phi > 0 && phi < 1)) {
                throw new IllegalArgumentException("phi must be in (0, 1), got " + phi);
            }
            long needed = Math.max(k, (long) Math.floor(1 / phi) + 1);
            if (needed > SpaceSaving.MAX_CAPACITY) {
                throw new IllegalArgumentException("phi must be > 1/" + SpaceSaving.MAX_CAPACITY + " and k ≤ "
                        + SpaceSaving.MAX_CAPACITY + " (the largest capacity), got phi " + phi + ", k " + k);
            }
            if (trackerConflict != null) {
                throw new IllegalArgumentException(trackerConflict);
            }
            if (capacity != null && memoryBudget != null) {
                throw new IllegalArgumentException("set either capacity(m) or memoryBudget(bytes), not both: the"
                        + " budget chooses the capacity (got capacity " + capacity + " and memoryBudget "
                        + memoryBudget + ")");
            }
            int width = cmWidth != null ? cmWidth : (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(2 * Math.E / phi));
            int depth = cmDepth;
            if (tracker == TrackerKind.COUNT_MIN_HEAP) {
                if (memoryBudget != null && cmWidth != null) {
                    throw new IllegalArgumentException("set either countMinHeap(width, depth) or memoryBudget, not"
                            + " both: the budget chooses the sketch's shape (got width " + cmWidth + ", depth "
                            + cmDepth + " and memoryBudget " + memoryBudget + ")");
                }
                if (width < 1) {
                    throw new IllegalArgumentException("countMinHeap width must be ≥ 1, got " + width);
                }
                if (cmDepth < 1 || cmDepth > 64) {
                    throw new IllegalArgumentException("countMinHeap depth must be in [1, 64], got " + cmDepth);
                }
            }
            int m;
            if (memoryBudget != null) {
                Sized sized = capacityFor(memoryBudget, needed);
                m = sized.capacity;
                if (tracker == TrackerKind.COUNT_MIN_HEAP) {
                    width = sized.width; // the budget chose the sketch's shape
                    depth = sized.depth;
                }
            } else if (capacity != null) {
                if (capacity < needed || capacity > SpaceSaving.MAX_CAPACITY) {
                    throw new IllegalArgumentException("capacity must be in [max(k, ⌊1/phi⌋ + 1), "
                            + SpaceSaving.MAX_CAPACITY + "] = [" + needed + ", " + SpaceSaving.MAX_CAPACITY
                            + "] for k " + k + " and phi " + phi + ", got " + capacity);
                }
                m = capacity;
            } else {
                m = (int) Math.min(SpaceSaving.MAX_CAPACITY, CAPACITY_FACTOR * Math.max(k, (long) Math.ceil(1 / phi)));
            }
            if (alertWeight < 0) {
                throw new IllegalArgumentException("alertAtWeight must be > 0 (or 0: off), got " + alertWeight);
            }
            if ((alertFractionSet || alertFraction != 0) && !(alertFraction > 0 && alertFraction <= 1)) {
                throw new IllegalArgumentException("alertAtFraction fraction must be in (0, 1], got " + alertFraction);
            }
            if (alertMinWeight < 0) {
                throw new IllegalArgumentException("alertAtFraction minWindowWeight must be ≥ 0, got "
                        + alertMinWeight);
            }
            HeavyHitterDetector<T, K> built = new HeavyHitterDetector<>(this, m, width, depth, maxOpen);
            built.checkTracker(); // the tracker's own limits (width × depth, its image) fail here, at build time
            return built;
        }

        /** What a budget affords: the capacity, and for a CM-heap its sketch's shape (the builder is left as set). */
        private record Sized(int capacity, int width, int depth) {
        }

        /** The shape a per-sub-window budget of {@code bytes} affords; fails if its capacity is below {@code needed}. */
        private Sized capacityFor(long bytes, long needed) {
            // sizes only: a tracker of the budget (up to GBs) is not built where the job is built
            int m;
            int width = 0;
            int depth = 0;
            try {
                if (tracker == TrackerKind.SPACE_SAVING) {
                    m = SpaceSaving.capacityForMemory(item.keyKind(), bytes);
                } else {
                    CountMinHeap.Size size = CountMinHeap.sizeForMemory(item.keyKind(), bytes);
                    m = size.capacity();
                    width = size.sketch().width();
                    depth = size.sketch().depth();
                }
            } catch (IllegalArgumentException e) {
                m = 0;
            }
            if (m < needed) {
                long least = SpaceSaving.memoryBytesFor(item.keyKind(), (int) needed);
                throw new IllegalArgumentException("memoryBudget of " + bytes + " bytes holds " + m + " "
                        + tracker + " counters, fewer than max(k, ⌊1/phi⌋ + 1) = " + needed + " for k " + k
                        + " and phi " + phi + "; it needs at least " + (tracker == TrackerKind.SPACE_SAVING
                        ? least + " bytes" : 3 * least + " bytes (a third for candidates)"));
            }
            return new Sized(m, width, depth);
        }

        /** A window or slide in whole milliseconds, > 0; fails naming {@code name} otherwise. */
        private static long millisOf(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be > 0 ms, got " + d);
            }
            if (d.getNano() % 1_000_000 != 0) {
                throw new IllegalArgumentException(name + " must be a whole number of milliseconds (event time is in"
                        + " ms), got " + d);
            }
            try {
                return d.toMillis();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(name + " must be at most " + Long.MAX_VALUE + " ms, got " + d);
            }
        }
    }
}
