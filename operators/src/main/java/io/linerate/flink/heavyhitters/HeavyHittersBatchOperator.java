package io.linerate.flink.heavyhitters;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackCache;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitter;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed heavy-hitters operator configured by a {@link HeavyHitterDetector}, over a stream of batch records
 * {@code B} of one scope each, whose elements {@code T} ({@link ElementsOf}) are counted; {@link HeavyHittersOperator}
 * is its single-record form (every record a batch of one). Its state per scope key is one entry per open sub-window
 * (layout 2): a map state from the sub-window index to a {@link SubWindow} ({@link SubWindowSerializer}) and a value
 * state of the open indexes ({@link OpenSubWindowsSerializer}), worked on as one {@link WindowRing}
 * ({@link RingState});
 * a restore of layout 1 (one {@link WindowRing} per key, {@link WindowRingSerializer}) moves it in {@code open()}. It
 * registers one event-time timer per key per window end, when a sub-window's first element arrives, and chains the
 * next window end at each report while older sub-windows remain.
 *
 * <p>Per batch: at most one read of the key's index and one of each sub-window it counts into (only if an element is
 * counted), and at most one write of each sub-window it changed (the index only if a sub-window opened); on a backend
 * that stores values serialized (RocksDB) the sub-windows of the keys used last stay live between checkpoints instead
 * ({@link HeavyHitterDetector.Builder#stateCacheBytes}), written back before every snapshot.
 * Per element: its event time (the detector's {@code timestamps} or the batch record's timestamp), the
 * late check, one tracker update (the selector hashes the item once); no allocation beyond the user's selectors.
 * Elements whose first window has been reported go to the late side output; elements without a timestamp, with a
 * negative weight or an item the selector rejects go to the malformed output, and so do elements that would open a
 * sub-window beyond {@code maxOpenSubWindows} (counted in {@code subWindowLimitRecords}). A batch record whose
 * {@link ElementsOf} itself throws goes to {@link Rejected#batchTag} (counted in {@code malformedBatches}); the
 * elements it handed over before failing stay counted.
 *
 * <p>Restored into alert thresholds other than the checkpoint's (kept in operator union state), it walks every key's
 * open sub-windows once, before its first record or watermark, and alerts the items already at or over a new
 * threshold ({@link #alertItemsPastNewThresholds}); otherwise a record pays one boolean check for it.
 *
 * <p>Written against {@link AbstractStreamOperator} rather than a {@code KeyedProcessFunction} so that the record's
 * timestamp is read as a primitive (the function context boxes it).
 */
public class HeavyHittersBatchOperator<B, T, K> extends AbstractStreamOperator<HeavyHitterReport<K>>
        implements OneInputStreamOperator<B, HeavyHitterReport<K>>, Triggerable<K, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    /** The value state of state layout 1: one {@link WindowRing} per scope key, moved to layout 2 at a restore. */
    static final String LAYOUT_1_STATE = "heavy-hitter-windows";
    /** Layout 2: the map state of a key's sub-windows, sub-window index → {@link SubWindow}. */
    static final String SUB_WINDOWS_STATE = "heavy-hitter-sub-windows";
    /** Layout 2: the value state of a key's open sub-window indexes, ascending. */
    static final String OPEN_SUB_WINDOWS_STATE = "heavy-hitter-open-sub-windows";
    private static final Logger LOG = LoggerFactory.getLogger(HeavyHittersBatchOperator.class);

    private final HeavyHitterDetector<T, K> spec;
    private final ElementsOf<B, T> elements;
    private final TypeInformation<T> elementType;
    private final TypeInformation<K> keyType;
    private final TypeInformation<B> batchType; // null for single records: they cannot fail to list

    // the key's ring, through a cache that on RocksDB keeps the rings of recent keys live between checkpoints
    // (HeavyHitterDetector.Builder#stateCacheBytes); every call goes to the state on the heap backend
    private transient WriteBackCache<K, WindowRing> state;
    /** The key's sub-windows in the state, seen as a ring (layout 2); behind {@link #state}. */
    private transient RingState rings;
    /** Whether this instance was restored: a restore may bring state of layout 1, moved in open(). */
    private transient boolean restored;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient OutputTag<T> lateTag;
    private transient OutputTag<Rejected<T>> malformedTag;
    private transient OutputTag<Rejected<B>> malformedBatchesTag;
    private transient OutputTag<HeavyHitterAlert<K>> alertTag;
    private transient Counter itemsProcessed;
    private transient Counter malformedRecords;
    private transient Counter malformedBatches;
    private transient Counter lateRecords;
    private transient Counter subWindowLimitRecords;
    private transient Counter reportsEmitted;
    private transient Counter alertsEmitted;
    private transient Counter alertsSuppressed;
    /**
     * State bytes of the key last opened or reported, or first counted after a restart ({@code stateBytesPerKey}): a
     * sub-window not read from the state yet counts as {@link #trackerBytes}, its tracker's size when full.
     */
    private transient volatile long stateBytes; // read by metric reporters on their own threads
    private transient long trackerBytes;

    /** The per-element path, created once in open(): no capturing lambda per batch. */
    private transient Consumer<T> each;
    /** Reused to emit late elements (Flink copies or serializes the value on the way out). */
    private transient StreamRecord<T> lateRecord;
    // The current batch, set before elements.forEach(..) and read by the per-element path.
    private transient boolean batchHasTimestamp;
    private transient long batchTimestamp;
    private transient long watermark;
    /** The key's ring, read at the batch's first counted element; null until then. */
    private transient WindowRing batchRing;
    private transient boolean ringChanged;
    private transient boolean inElement; // an exception escaping forEach came from the element path, not ElementsOf
    private transient int elementsSeen;
    /**
     * The sub-windows whose windows all have representable bounds: the earliest window holding {@code sub} starts at
     * {@code (sub − n + 1)·slide}, the latest ends at {@code (sub + n)·slide} (n sub-windows per window).
     */
    private transient long minSub;
    private transient long maxSub;
    /**
     * The smallest watermark any instance had at the checkpoint this one was restored from (Long.MIN_VALUE if none):
     * after a restore Flink's watermark starts again at Long.MIN_VALUE, and until the first watermark arrives a
     * record of a window reported before the checkpoint would open that window again. Every instance had passed
     * this one, so a record late for it was late wherever its key was (union state: it survives rescaling).
     */
    private transient long restoredWatermark = Long.MIN_VALUE;
    private transient ListState<Long> watermarkState;
    /**
     * The alert thresholds of the checkpoint restored from ({@link #thresholds()} of each instance that wrote it;
     * union state), held while the walk over every key they call for has not run yet, so that a snapshot taken before
     * it keeps them and a later restore still walks; null when no walk is pending.
     */
    private transient List<long[]> restoredThresholds;
    /**
     * Set at a restore whose thresholds differ from this operator's: before the first record or watermark, every key's
     * open sub-windows are walked once and each item at or over a new threshold not alerted yet alerts
     * ({@link #alertItemsPastNewThresholds}). The only cost on the per-record path is this check.
     */
    private transient boolean thresholdWalkPending;
    private transient ListState<long[]> thresholdState;
    /** The descriptor of the open sub-window indexes: one entry per key, what the walk lists keys by. */
    private transient ValueStateDescriptor<long[]> openDescriptor;
    /** Hashes tracker items as the trackers do (their seed), for the alerted sets. */
    private transient io.linerate.sketches.hash.ItemHasher itemHasher;

    HeavyHittersBatchOperator(HeavyHitterDetector<T, K> spec, ElementsOf<B, T> elements, TypeInformation<B> batchType,
                              TypeInformation<T> elementType, TypeInformation<K> keyType) {
        this.spec = spec;
        this.elements = elements;
        this.batchType = batchType;
        this.elementType = elementType;
        this.keyType = keyType;
    }

    @Override
    public void open() throws Exception {
        super.open();
        // the index first: its serializer snapshot is the first to check a restore's window shape
        openDescriptor = new ValueStateDescriptor<>(OPEN_SUB_WINDOWS_STATE, new OpenSubWindowsTypeInfo(spec.shape()));
        ValueState<long[]> open = getKeyedStateStore().getState(openDescriptor);
        MapState<Long, SubWindow> windows = getKeyedStateStore().getMapState(new MapStateDescriptor<>(
                SUB_WINDOWS_STATE, Types.LONG, new SubWindowTypeInfo(spec.shape())));
        rings = new RingState(windows, open, WriteBackCache.storesSerialized(getKeyedStateBackend()));
        if (restored) {
            moveLayout1State();
        }
        state = WriteBackCache.weighed(rings, WriteBackCache.keysOf(this), spec.stateCacheBytes,
                WindowRing::memoryBytes, "heavy-hitter sub-windows");
        timers = getInternalTimerService("heavy-hitter-window-ends", VoidNamespaceSerializer.INSTANCE, this);
        lateTag = HeavyHitterDetector.lateTag(elementType);
        malformedTag = HeavyHitterDetector.malformedTag(elementType);
        malformedBatchesTag = batchType == null ? null : Rejected.batchTag(batchType);
        alertTag = HeavyHitterDetector.alertTag(keyType);
        itemsProcessed = getMetricGroup().counter("itemsProcessed");
        malformedRecords = getMetricGroup().counter("malformedRecords");
        malformedBatches = getMetricGroup().counter("malformedBatches");
        lateRecords = getMetricGroup().counter("lateRecords");
        subWindowLimitRecords = getMetricGroup().counter("subWindowLimitRecords");
        reportsEmitted = getMetricGroup().counter("reportsEmitted");
        alertsEmitted = getMetricGroup().counter("alertsEmitted");
        alertsSuppressed = getMetricGroup().counter("alertsSuppressed");
        getMetricGroup().gauge("stateBytesPerKey", () -> stateBytes);
        state.registerMetrics(getMetricGroup());
        each = this::element;
        lateRecord = new StreamRecord<>(null);
        itemHasher = io.linerate.sketches.hash.ItemHasher.seeded(spec.seed);
        trackerBytes = spec.trackerBytes();
        minSub = Long.MIN_VALUE / spec.slideMillis + spec.subWindows; // ⌈MIN/slide⌉ + n − 1, one more: never FREE
        maxSub = Long.MAX_VALUE / spec.slideMillis - spec.subWindows;
    }

    /** Reads the watermark the instances had at the checkpoint restored from (see {@code restoredWatermark}). */
    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        watermarkState = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>("heavy-hitters-watermark", Types.LONG));
        restoredWatermark = Long.MIN_VALUE;
        restored = context.isRestored();
        if (context.isRestored()) {
            long min = Long.MAX_VALUE;
            boolean any = false;
            for (Long w : watermarkState.get()) {
                if (w != Long.MAX_VALUE) { // the end of input (a drained savepoint): not a bound for new input
                    min = Math.min(min, w);
                    any = true;
                }
            }
            restoredWatermark = any ? min : Long.MIN_VALUE;
        }
        restoreThresholds(context);
    }

    /**
     * Moves the state of layout 1 (one {@link WindowRing} per key in {@value #LAYOUT_1_STATE}), if the restored
     * checkpoint holds any, to layout 2: every open sub-window to its own map entry, the index written, the old value
     * cleared. Runs once, in open(), before any record, timer or walk; the timers are the checkpoint's (a sub-window's
     * window ends are the same in both layouts). The old state is registered only when the checkpoint has it (its
     * serializer snapshot then checks the window shape as it always did).
     */
    private void moveLayout1State() throws Exception {
        List<Object> keys;
        try (Stream<Object> listed = getKeyedStateBackend().getKeys(LAYOUT_1_STATE, VoidNamespace.INSTANCE)) {
            keys = listed.toList();
        }
        if (keys.isEmpty()) {
            return;
        }
        ValueState<WindowRing> layout1 = getKeyedStateStore().getState(
                new ValueStateDescriptor<>(LAYOUT_1_STATE, new WindowRingTypeInfo(spec.shape())));
        int subWindows = 0;
        for (Object key : keys) {
            setCurrentKey(key);
            WindowRing ring = layout1.value();
            if (ring != null) {
                ring.touchAll();
                subWindows += ring.openCount();
                rings.update(ring);
            }
            layout1.clear();
        }
        LOG.info("Moved the heavy-hitters state of {} keys ({} open sub-windows) from layout 1 (one ring per key) to"
                + " layout 2 (one entry per sub-window)", keys.size(), subWindows);
    }

    /**
     * Reads the alert thresholds of the checkpoint restored from, a union list of {@link #thresholds()}: if any
     * instance's differ from this operator's (alerts on), the keys' open sub-windows are walked before the first record
     * or watermark. A checkpoint without them (written before they were recorded, as the v1 savepoints) tells
     * nothing: no walk.
     */
    private void restoreThresholds(StateInitializationContext context) throws Exception {
        thresholdState = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(
                "heavy-hitters-alert-thresholds", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        restoredThresholds = null;
        thresholdWalkPending = false;
        if (!context.isRestored() || !spec.alerts()) {
            return;
        }
        long[] mine = thresholds();
        List<long[]> distinct = new ArrayList<>();
        boolean differ = false;
        for (long[] t : thresholdState.get()) {
            if (distinct.stream().noneMatch(d -> Arrays.equals(d, t))) {
                distinct.add(t);
            }
            differ |= !Arrays.equals(t, mine);
        }
        if (differ) {
            restoredThresholds = distinct;
            thresholdWalkPending = true;
        }
    }

    /**
     * This operator's alert thresholds as recorded in the operator state: {@code alertAtWeight} (0: off), the bits of
     * {@code alertAtFraction}'s fraction (0: off) and its {@code minWindowWeight} (0 while the fraction is off: it
     * means nothing then, and changing it alone calls for no walk).
     */
    private long[] thresholds() {
        boolean fraction = spec.alertFraction > 0;
        return new long[] {spec.alertWeight, fraction ? Double.doubleToLongBits(spec.alertFraction) : 0,
                fraction ? spec.alertMinWeight : 0};
    }

    /**
     * Writes the cached rings back before the state is snapshotted: Flink calls this, in the task's thread, before it
     * snapshots the keyed state backend, for checkpoints and savepoints alike. Records this instance's watermark.
     */
    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        if (state != null) { // null if open() failed
            state.flush();
        }
        super.snapshotState(context);
        long current = timers != null ? timers.currentWatermark() : Long.MIN_VALUE; // null if open() failed
        long kept = Math.max(current, restoredWatermark);
        // the end-of-input watermark (a drained savepoint, a finished bounded job) is not kept: a job restored from
        // it reads new input, which would all be late against Long.MAX_VALUE
        watermarkState.update(List.of(kept == Long.MAX_VALUE ? Long.MIN_VALUE : kept));
        // until the walk has run, the keys are as the old thresholds left them: a restore from this snapshot must
        // still walk (every instance's list reaches every instance of the next run)
        thresholdState.update(thresholdWalkPending ? restoredThresholds : List.of(thresholds()));
    }

    /** Before the watermark fires any timer, the walk a restore into new alert thresholds calls for. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (thresholdWalkPending) {
            alertItemsPastNewThresholds();
        }
        super.processWatermark(mark);
    }

    /**
     * The walk after a restore into alert thresholds that differ from the checkpoint's: in every key's open
     * sub-windows, each item at or over a threshold now ({@code alertAtWeight}, or {@code alertAtFraction} of a
     * sub-window of at least {@code minWindowWeight}) and not alerted there yet alerts once, timestamped with the
     * current watermark limited to the sub-window. Items alerted before the restore do not alert again. Runs once, in
     * the task's thread, before the first record or watermark after the restore; the key context is restored after.
     */
    private void alertItemsPastNewThresholds() throws Exception {
        state.flush(); // the walk lists the keys in the backend (nothing is cached before the first record, anyway)
        Object key = getCurrentKey();
        long now = Math.max(timers.currentWatermark(), restoredWatermark);
        try {
            getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                    openDescriptor, (k, open) -> {
                        WindowRing ring = state.value();
                        if (ring != null && alertOpenSubWindows(ring, now)) {
                            state.update(ring);
                        }
                    });
        } finally {
            if (key != null) {
                setCurrentKey(key);
            }
        }
        thresholdWalkPending = false;
        restoredThresholds = null;
    }

    /** {@link #alertItemsPastNewThresholds} for one key's ring; true if an item was added to an alerted set. */
    private boolean alertOpenSubWindows(WindowRing ring, long now) {
        boolean changed = false;
        long slide = spec.slideMillis;
        for (int slot : openSlotsInTimeOrder(ring)) { // the alerts' order does not depend on the slots' order
            long sub = ring.subWindow(slot);
            HeavyHitters tracker = ring.tracker(slot);
            long n = tracker.totalWeight();
            boolean byFraction = spec.alertFraction > 0 && n >= spec.alertMinWeight;
            if (n == 0 || (spec.alertWeight == 0 && !byFraction)) {
                continue;
            }
            long fractionAt = byFraction ? fractionThreshold(n) : Long.MAX_VALUE;
            long start = sub * slide;
            long ts = Math.min(Math.max(now, start), start + slide - 1);
            for (HeavyHitter h : tracker.topK(Integer.MAX_VALUE)) { // every item the tracker holds
                long estimate = h.estimate();
                long threshold;
                String kind;
                if (estimate == 0) {
                    continue;
                } else if (spec.alertWeight > 0 && estimate >= spec.alertWeight) {
                    threshold = spec.alertWeight;
                    kind = HeavyHitterAlert.ABSOLUTE;
                } else if (estimate >= fractionAt) {
                    threshold = fractionAt;
                    kind = HeavyHitterAlert.FRACTION;
                } else {
                    continue;
                }
                if (markAlerted(ring, slot, tracker, hashOf(h.item()))) {
                    alert(ring, slot, spec.item.present(h.item()), estimate, n, threshold, kind, ts);
                    changed = true;
                }
            }
        }
        return changed;
    }

    /** Writes back at the end of the input too (a snapshot after {@code finish()} holds what is written). */
    @Override
    public void finish() throws Exception {
        super.finish();
        if (state != null) {
            state.flush();
        }
    }

    @Override
    public void processElement(StreamRecord<B> batch) throws Exception {
        if (thresholdWalkPending) {
            alertItemsPastNewThresholds();
        }
        batchHasTimestamp = batch.hasTimestamp();
        batchTimestamp = batchHasTimestamp ? batch.getTimestamp() : Long.MIN_VALUE;
        watermark = Math.max(timers.currentWatermark(), restoredWatermark);
        batchRing = null;
        ringChanged = false;
        inElement = false;
        elementsSeen = 0;
        try {
            try {
                elements.forEach(batch.getValue(), each);
            } catch (RuntimeException e) {
                if (inElement || malformedBatchesTag == null) {
                    throw e; // the operator's own failure (or downstream's, through the output)
                }
                malformedBatches.inc();
                Rejected<B> rejected = new Rejected<>(batch.getValue(), "elements of the batch failed after "
                        + elementsSeen + " elements: " + e);
                output.collect(malformedBatchesTag, batchHasTimestamp ? new StreamRecord<>(rejected, batchTimestamp)
                        : new StreamRecord<>(rejected));
            }
            if (ringChanged) {
                state.update(batchRing);
            }
        } finally {
            batchRing = null;
            lateRecord.replace(null);
        }
    }

    private void element(T element) {
        inElement = true;
        elementsSeen++;
        processOne(element);
        inElement = false;
    }

    /** One element of the current batch: the same logic for a single record (a batch of one) and a batch. */
    private void processOne(T element) {
        long ts;
        if (spec.timestamps != null) {
            try {
                ts = spec.timestamps.timestampOf(element);
            } catch (RuntimeException e) {
                reject(element, batchHasTimestamp, batchTimestamp, "timestamp: " + e);
                return;
            }
        } else if (batchHasTimestamp) {
            ts = batchTimestamp;
        } else {
            reject(element, false, 0, "timestamp: the record has none; heavy hitters need event time");
            return;
        }
        long slide = spec.slideMillis;
        long sub = Math.floorDiv(ts, slide);
        if (sub < minSub || sub > maxSub) {
            reject(element, true, ts, "timestamp: event time " + ts + " ms is outside [" + minSub * slide + ", "
                    + (maxSub * slide + slide - 1) + "], where every window holding it has a start and an end that"
                    + " 64-bit milliseconds can hold");
            return;
        }
        long firstEnd = sub * slide + slide; // end of the first (earliest-ending) window holding the element
        if (firstEnd - 1 <= watermark) {
            lateRecords.inc();
            output.collect(lateTag, lateRecord.replace(element, ts));
            return;
        }
        long weight;
        try {
            weight = spec.weight.weightOf(element);
        } catch (RuntimeException e) {
            reject(element, true, ts, "weight: " + e);
            return;
        }
        if (weight < 0) {
            reject(element, true, ts, "weight must be ≥ 0, got " + weight);
            return;
        }
        WindowRing ring = ring();
        int slot = ring.find(sub);
        boolean opened = slot < 0;
        if (opened) {
            if (!ring.canOpen(spec.maxOpenSubWindows)) {
                rejectOverLimit(element, ts, sub, ring.openCount()); // not slots(): a restored ring may have more
                return;
            }
            slot = ring.open(sub, spec.newTracker());
        }
        HeavyHitters tracker = ring.tracker(slot);
        long weightBefore = tracker.totalWeight();
        try {
            spec.item.addTo(tracker, element, weight);
        } catch (RuntimeException e) {
            if (opened) {
                ring.free(slot); // nothing was counted: leave the state as it was
            }
            reject(element, true, ts, "item: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return;
        }
        itemsProcessed.inc();
        ring.touch(slot);
        ringChanged = true;
        if (opened) {
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, firstEnd - 1);
        }
        if (opened || stateBytes == 0) {
            // also the first record after a restart, counted into a sub-window the restored ring already had open:
            // else the gauge read 0 until some key opened a sub-window or a window was reported (O(slots), so not
            // on every record)
            stateBytes = ring.stateBytes(trackerBytes);
        }
        if (spec.alerts()) {
            boolean ownSuppressed = checkAlert(ring, slot, tracker, element, ts);
            // the weight before this record, not n − weight: a total saturated at Long.MAX_VALUE has n − weight
            // below the minimum at every record of positive weight (all of them with minWindowWeight
            // Long.MAX_VALUE), which re-ran the pass at each one and counted the full set's refusals again
            if (spec.alertFraction > 0 && tracker.totalWeight() >= spec.alertMinWeight
                    && weightBefore < spec.alertMinWeight) {
                alertFractionsHeldAlready(ring, slot, tracker, ts, ownSuppressed);
            }
        }
    }

    /**
     * The sub-window's weight has just reached {@code minWindowWeight}: every item that already holds the fraction
     * alerts now (an item is otherwise tested at its own records only, and one with no record after this moment
     * would never alert). The item's hash is computed as the tracker computed it: its seed, its key bytes. The record's
     * own item, if {@link #checkAlert} has just counted its alert as suppressed, is skipped: it counts once.
     */
    private void alertFractionsHeldAlready(WindowRing ring, int slot, HeavyHitters tracker, long ts,
                                           boolean ownSuppressed) {
        long n = tracker.totalWeight();
        // the trackers take φ in (0, 1); a fraction of 1 (allowed: an item that is the whole sub-window) asks for a
        // φ just below it, which lists every item at the fraction and more: the test below keeps those at it
        double phi = Math.min(spec.alertFraction, Math.nextDown(1.0));
        long threshold = fractionThreshold(n);
        for (HeavyHitter h : tracker.heavyHitters(phi)) {
            if (h.estimate() == 0 || h.estimate() < threshold) {
                continue;
            }
            Object item = h.item();
            long hash = hashOf(item);
            if (ownSuppressed && hash == tracker.lastItemHash()) {
                continue; // the record's own item: its suppressed alert is counted already
            }
            if (markAlerted(ring, slot, tracker, hash)) {
                alert(ring, slot, spec.item.present(item), h.estimate(), n, threshold,
                        HeavyHitterAlert.FRACTION, ts);
            }
        }
    }

    /** The hash of an item a tracker reports, as the tracker computed it: its seed, its key bytes. */
    private long hashOf(Object item) {
        return item instanceof Long l ? itemHasher.hash(l.longValue())
                : item instanceof io.linerate.sketches.hash.FiveTuple t ? itemHasher.hash(t)
                : itemHasher.hash((byte[]) item, 0, ((byte[]) item).length);
    }

    /**
     * ⌈fraction·n⌉ at the decimal fraction the caller wrote, as the reports' φ·N ({@link HeavyHitters#ceilPhiN}): in
     * doubles 0.07 · 100 = 7.000000000000001, and an item of exactly 7% would not alert (n itself at fraction 1).
     */
    private long fractionThreshold(long n) {
        return HeavyHitters.ceilPhiN(spec.alertFraction, n);
    }

    /**
     * estimate ≥ {@link #fractionThreshold}, on the per-record path: decided in doubles unless {@code estimate} is
     * within the double product's error (relative 2<sup>−50</sup>, plus 2) of fraction·n, exactly (BigDecimal) then.
     */
    private boolean holdsFraction(long estimate, long n) {
        double t = spec.alertFraction * n;
        double margin = t * 0x1p-50 + 2;
        if (estimate < t - margin) {
            return false;
        }
        return estimate > t + margin || estimate >= fractionThreshold(n);
    }

    /** The current key's ring: one state read per batch, at its first element that needs it. */
    private WindowRing ring() {
        if (batchRing == null) {
            try {
                batchRing = state.value();
            } catch (IOException e) {
                throw new UncheckedIOException("reading the heavy-hitter state", e);
            }
            if (batchRing == null) {
                batchRing = new WindowRing(spec.subWindows);
                batchRing.loader = rings; // reads back what a held ring drops once written (unloadUnchanged)
            }
        }
        return batchRing;
    }

    /**
     * Alerts once per item per sub-window when the item's estimate right after this record crosses a threshold;
     * never while the sub-window or the item weighs 0 (a fraction of nothing is not a heavy hitter: with
     * {@code minWindowWeight} 0, {@code 0 ≥ fraction · 0} would hold and use up the item's one alert).
     *
     * @return whether the item was due an alert that the full alerted set suppressed (counted in alertsSuppressed)
     */
    private boolean checkAlert(WindowRing ring, int slot, HeavyHitters tracker, T element, long ts) {
        long estimate = tracker.lastEstimate();
        long n = tracker.totalWeight();
        if (n == 0 || estimate == 0) {
            return false;
        }
        long threshold;
        String kind;
        if (spec.alertWeight > 0 && estimate >= spec.alertWeight) {
            threshold = spec.alertWeight;
            kind = HeavyHitterAlert.ABSOLUTE;
        } else if (spec.alertFraction > 0 && n >= spec.alertMinWeight && holdsFraction(estimate, n)) {
            threshold = -1; // ⌈fraction·n⌉, computed only for an alert that is emitted
            kind = HeavyHitterAlert.FRACTION;
        } else {
            return false;
        }
        // the item is built (boxed, copied, rendered) only for an alert that is emitted: an item that has alerted in
        // this sub-window crosses the threshold again at every one of its records, the heaviest items' most of all
        WindowRing.Mark mark = mark(ring, slot, tracker, tracker.lastItemHash());
        if (mark == WindowRing.Mark.ADDED) {
            alert(ring, slot, spec.item.itemOf(element), estimate, n, threshold < 0 ? fractionThreshold(n) : threshold,
                    kind, ts); // renders as present()
        }
        return mark == WindowRing.Mark.SET_FULL;
    }

    /**
     * Adds the item of {@code hash} to the sub-window's alerted set; true if it was not there, so the caller emits
     * its one alert ({@link #alert}). False if the set already holds it, or is full (counted in
     * {@code alertsSuppressed}). The slot's own tracker bounds its alerted set (the serializer's limit), even for a
     * ring restored from a configuration of another capacity.
     */
    private boolean markAlerted(WindowRing ring, int slot, HeavyHitters tracker, long hash) {
        return mark(ring, slot, tracker, hash) == WindowRing.Mark.ADDED;
    }

    /** {@link #markAlerted}, returning what it did. */
    private WindowRing.Mark mark(WindowRing ring, int slot, HeavyHitters tracker, long hash) {
        WindowRing.Mark mark = ring.markAlerted(slot, hash, SubWindowSerializer.capacityOf(tracker));
        if (mark == WindowRing.Mark.SET_FULL) {
            alertsSuppressed.inc();
        }
        return mark;
    }

    /** Emits the alert of an item just added to the alerted set ({@link #markAlerted}). */
    private void alert(WindowRing ring, int slot, Object item, long estimate, long n, long threshold, String kind,
                       long ts) {
        HeavyHitterAlert<K> alert = new HeavyHitterAlert<>();
        alert.key = currentKey();
        alert.windowStart = ring.subWindow(slot) * spec.slideMillis;
        alert.windowEnd = alert.windowStart + spec.slideMillis;
        alert.timestamp = ts;
        alert.item = String.valueOf(item);
        alert.estimate = estimate;
        alert.windowWeight = n;
        alert.threshold = threshold;
        alert.kind = kind;
        alertsEmitted.inc();
        output.collect(alertTag, new StreamRecord<>(alert, ts));
    }

    @SuppressWarnings("unchecked")
    private K currentKey() {
        return (K) getCurrentKey();
    }

    /** Sends {@code element}, which would open one sub-window too many, to the malformed output. */
    private void rejectOverLimit(T element, long ts, long sub, int open) {
        subWindowLimitRecords.inc();
        long start = sub * spec.slideMillis;
        String reason = "sub-window [" + start + ", " + (start + spec.slideMillis) + ") of event time " + ts
                + " would be open sub-window " + (open + 1) + " of this key, over maxOpenSubWindows "
                + spec.maxOpenSubWindows + " (watermark " + watermark + ")";
        output.collect(malformedTag, new StreamRecord<>(new Rejected<>(element, reason), ts));
    }

    /** Sends {@code element} to the malformed output (a rare path: it allocates the {@code Rejected}). */
    private void reject(T element, boolean hasTimestamp, long ts, String reason) {
        malformedRecords.inc();
        Rejected<T> rejected = new Rejected<>(element, reason);
        output.collect(malformedTag, hasTimestamp ? new StreamRecord<>(rejected, ts) : new StreamRecord<>(rejected));
    }

    /** Window end − 1 reached: report the window, free its oldest sub-window, chain the next window end if needed. */
    @Override
    public void onEventTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        WindowRing ring = state.value();
        if (ring == null) {
            return;
        }
        long slide = spec.slideMillis;
        long end = timer.getTimestamp() + 1;
        long last = Math.floorDiv(end, slide) - 1;
        long first = last - spec.subWindows + 1;
        emitReport(ring, first, last, timer.getTimestamp());
        boolean more = false;
        for (int i = 0; i < ring.slots(); i++) {
            long s = ring.subWindow(i);
            if (s == WindowRing.FREE) {
                continue;
            }
            if (s <= first) {
                ring.free(i); // no later window holds it
            } else if (s <= last) {
                more = true; // the next window still holds it
            }
        }
        if (more) {
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, timer.getTimestamp() + slide);
        }
        stateBytes = ring.stateBytes(trackerBytes);
        ring.unloadUnchanged(last); // after the gauge, which counts a sub-window not read as a full tracker
        if (ring.isEmpty()) {
            state.clear();
        } else {
            state.update(ring);
        }
    }

    private void emitReport(WindowRing ring, long first, long last, long timestamp) {
        List<Integer> slots = new ArrayList<>();
        for (int i : openSlotsInTimeOrder(ring)) { // merge in time order: same result after a restore
            long s = ring.subWindow(i);
            if (s >= first && s <= last) {
                slots.add(i);
            }
        }
        if (slots.isEmpty()) {
            return;
        }
        HeavyHitters window = ring.tracker(slots.get(0));
        if (slots.size() > 1) {
            // all at once into a new tracker sized for the items it keeps, the sub-windows left as they are: one
            // ranking, not one per sub-window, and bounds no looser than a chain of merges (HeavyHitters.union)
            List<HeavyHitters> others = new ArrayList<>(slots.size() - 1);
            for (int j = 1; j < slots.size(); j++) {
                others.add(ring.tracker(slots.get(j)));
            }
            window = window.union(others);
        }
        long n = window.totalWeight();
        HeavyHitterReport<K> report = new HeavyHitterReport<>();
        report.key = currentKey();
        report.windowStart = first * spec.slideMillis;
        report.windowEnd = (last + 1) * spec.slideMillis;
        report.totalWeight = n;
        report.phi = spec.phi;
        report.unmonitoredBound = unmonitoredBound(window);
        // ⌈φN⌉ exactly: in doubles φ·N is off by a few units beyond N = 2^53, and an item at φN could be misjudged
        long threshold = HeavyHitters.ceilPhiN(spec.phi, n);
        report.complete = report.unmonitoredBound < threshold;
        Set<String> seen = new HashSet<>();
        for (HeavyHitter h : window.heavyHitters(spec.phi)) {
            add(report, seen, h, threshold);
        }
        for (HeavyHitter h : window.topK(spec.k)) {
            add(report, seen, h, threshold);
        }
        report.items.sort(Comparator.comparingLong((ReportedItem r) -> r.estimate).reversed()
                .thenComparing(Comparator.comparingLong((ReportedItem r) -> r.lowerBound).reversed())
                .thenComparing(r -> r.item));
        reportsEmitted.inc();
        output.collect(new StreamRecord<>(report, timestamp));
    }

    private void add(HeavyHitterReport<K> report, Set<String> seen, HeavyHitter h, long threshold) {
        String item = String.valueOf(spec.item.present(h.item()));
        if (seen.add(item)) {
            report.items.add(new ReportedItem(item, h.estimate(), h.lowerBound(), h.upperBound(),
                    h.upperBound() >= threshold));
        }
    }

    /** The ring's open slots, ordered by their sub-window. */
    private static List<Integer> openSlotsInTimeOrder(WindowRing ring) {
        List<Integer> slots = new ArrayList<>(ring.slots());
        for (int i = 0; i < ring.slots(); i++) {
            if (ring.subWindow(i) != WindowRing.FREE) {
                slots.add(i);
            }
        }
        slots.sort(Comparator.comparingLong(ring::subWindow));
        return slots;
    }

    private static long unmonitoredBound(HeavyHitters tracker) {
        return tracker instanceof SpaceSaving ss ? ss.unmonitoredBound() : ((CountMinHeap) tracker).unmonitoredBound();
    }

    @Override
    public void onProcessingTime(InternalTimer<K, VoidNamespace> timer) {
        // event time only
    }

    long itemsProcessed() {
        return itemsProcessed.getCount();
    }

    long malformedRecords() {
        return malformedRecords.getCount();
    }

    long malformedBatches() {
        return malformedBatches.getCount();
    }

    long lateRecords() {
        return lateRecords.getCount();
    }

    long reportsEmitted() {
        return reportsEmitted.getCount();
    }

    long alertsEmitted() {
        return alertsEmitted.getCount();
    }

    long subWindowLimitRecords() {
        return subWindowLimitRecords.getCount();
    }

    long alertsSuppressed() {
        return alertsSuppressed.getCount();
    }

    long stateBytesPerKey() {
        return stateBytes;
    }
}
