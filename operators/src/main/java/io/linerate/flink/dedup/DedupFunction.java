package io.linerate.flink.dedup;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.TimestampOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackCache;
import io.linerate.flink.state.WriteBackFunction;
import io.linerate.sketches.hash.ItemHasher;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The deduplication operator's function, one {@link GenerationRing} per scope key. Build it with
 * {@link Deduplicator}; the {@link Deduplicator} Javadoc states the guarantees.
 *
 * <p>Its input records are batches {@code B} of elements {@code T} of one scope ({@link ElementsOf}); a plain
 * stream of records is the special case of batches of one ({@code B = T}, {@link #single()}), so records and
 * batch elements share one per-element code path. Per batch: one {@code state.value()}, at most one
 * {@code state.update()} (only if the ring changed), one rotation-timer check. Per element: one hash h1 of the
 * item (h2 = {@link ItemHasher#h2}), one cache line for a repeat already in the current generation and at most one
 * per kept generation otherwise, no allocation (a generation's filter is allocated when it receives its first
 * item, once per key per span). First-occurrence elements go to the main output, probable duplicates to
 * {@link Deduplicator#duplicatesTag}, elements whose item or timestamp is unusable to {@link Rejected#tag}.
 * A batch whose {@link ElementsOf} itself throws goes to {@link Rejected#batchTag} (counted in
 * {@code malformedBatches}); the elements it handed over before failing stay processed and emitted.
 * One rotation timer per key per span S.
 */
public final class DedupFunction<K, B, T> extends KeyedProcessFunction<K, B, T> implements WriteBackFunction<K> {

    private static final long serialVersionUID = 1L;

    private final ItemSelector<T> item;
    private final DedupSizing sizing;
    private final int cachedScopes;
    private final boolean eventTime;
    private final TimestampOf<T> timestamps; // null: the (batch) record's Flink timestamp
    private final ElementsOf<B, T> elements;
    private final OutputTag<T> duplicates;
    private final OutputTag<Rejected<T>> malformed;
    private final OutputTag<Rejected<B>> malformedBatches; // null for plain records: they cannot fail to list

    // the keys' rings: straight from the ValueState on a heap backend (or without the dedup operator); on
    // RocksDB the rings of recent keys stay live between checkpoints (Deduplicator.Builder#stateCacheBytes)
    private transient WriteBackCache<K, GenerationRing> state;
    private transient WriteBackCache.KeyContext<K> keys;
    private transient ValueStateDescriptor<GenerationRing> ringsDescriptor;
    private transient ItemHasher hasher;
    private transient Counter itemsProcessed;
    private transient Counter duplicatesFlagged;
    private transient Counter malformedRecords;
    private transient Counter malformedBatchRecords;
    private transient Counter lateRecords;
    private transient Counter overCapacityGenerations;
    /** Latest epoch a rotation was filed under; {@link #fppAtEpoch} and {@link #fppAtEpochBefore} are its maxima. */
    private transient long fppEpoch;
    private transient double fppAtEpoch;       // largest estimate filed under fppEpoch
    private transient double fppAtEpochBefore; // largest estimate filed under fppEpoch - 1
    private transient volatile double fppOfLatestRotation; // read by metric reporters

    // the batch being processed: set before elements.forEach, read by each (no capturing lambda per batch)
    private transient Consumer<T> each;
    private transient Context ctx;
    private transient Collector<T> out;
    private transient GenerationRing ring;
    private transient boolean dirty;
    private transient boolean hasBatchTime;
    private transient long batchTime;
    private transient long watermark;
    private transient long processingTime;
    private transient boolean inElement; // an exception escaping forEach came from the element path, not ElementsOf
    private transient int elementsSeen;

    DedupFunction(ItemSelector<T> item, DedupSizing sizing, int cachedScopes, boolean eventTime,
                  TimestampOf<T> timestamps, ElementsOf<B, T> elements, TypeInformation<B> batchType,
                  TypeInformation<T> elementType) {
        this.item = item;
        this.sizing = sizing;
        this.cachedScopes = cachedScopes;
        this.eventTime = eventTime;
        this.timestamps = timestamps;
        this.elements = Objects.requireNonNull(elements, "elements");
        this.duplicates = Deduplicator.duplicatesTag(elementType);
        this.malformed = Rejected.tag(elementType);
        this.malformedBatches = batchType == null ? null : Rejected.batchTag(batchType);
    }

    /** The elements of a plain record: the record itself (batches of one). */
    @SuppressWarnings("unchecked")
    static <T> ElementsOf<T, T> single() {
        return (ElementsOf<T, T>) Single.INSTANCE;
    }

    private enum Single implements ElementsOf<Object, Object> {
        INSTANCE;

        @Override
        public void forEach(Object record, Consumer<? super Object> each) {
            each.accept(record);
        }
    }

    @Override
    public void open(OpenContext context) {
        ringsDescriptor = new ValueStateDescriptor<>("generations",
                new GenerationRingTypeInfo(sizing.shape(eventTime)));
        ValueState<GenerationRing> rings = getRuntimeContext().getState(ringsDescriptor);
        // weighed by their bytes, not counted: a ring restored from a configuration of larger filters keeps them
        // until its generations rotate out, and would take the cache over its budget if counted as one of this size
        long ringHeap = Deduplicator.ringHeapBytes(sizing);
        state = WriteBackCache.weighed(rings, keys, cachedScopes * ringHeap, GenerationRing::heapBytes,
                "dedup rings (" + cachedScopes + " of " + ringHeap + " bytes at this configuration's size)");
        hasher = ItemHasher.seeded(sizing.seed());
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        itemsProcessed = metrics.counter("itemsProcessed");
        duplicatesFlagged = metrics.counter("duplicatesFlagged");
        malformedRecords = metrics.counter("malformedRecords");
        malformedBatchRecords = metrics.counter("malformedBatches");
        lateRecords = metrics.counter("lateRecords");
        overCapacityGenerations = metrics.counter("overCapacityGenerations");
        long stateBytes = sizing.stateBytesPerKey();
        metrics.gauge("stateBytesPerKey", (Gauge<Long>) () -> stateBytes);
        metrics.gauge("estimatedFpp", (Gauge<Double>) () -> fppOfLatestRotation);
        state.registerMetrics(metrics);
        fppEpoch = Long.MIN_VALUE;
        each = this::element; // allocated once, not per batch
    }

    @Override
    public void processElement(B batch, Context ctx, Collector<T> out) throws Exception {
        TimerService timers = ctx.timerService();
        this.ctx = ctx;
        this.out = out;
        if (eventTime) {
            watermark = timers.currentWatermark();
            if (timestamps == null) {
                Long ts = ctx.timestamp(); // once per batch
                hasBatchTime = ts != null;
                batchTime = hasBatchTime ? ts : 0;
            }
        } else {
            processingTime = timers.currentProcessingTime();
        }
        ring = state.value();
        dirty = false;
        inElement = false;
        elementsSeen = 0;
        try {
            try {
                elements.forEach(batch, each);
            } catch (RuntimeException e) {
                if (inElement || malformedBatches == null) {
                    throw e; // the operator's own failure (or downstream's, through the collector)
                }
                malformedBatchRecords.inc();
                ctx.output(malformedBatches, new Rejected<>(batch, "elements of the batch failed after "
                        + elementsSeen + " elements: " + e));
            }
            if (ring != null) {
                dirty |= scheduleRotation(ring, timers);
                if (dirty) {
                    state.update(ring);
                }
            }
        } finally {
            this.ctx = null;
            this.out = null;
            this.ring = null;
        }
    }

    private void element(T element) {
        inElement = true;
        elementsSeen++;
        processElementOfBatch(element);
        inElement = false;
    }

    /** The per-element path, shared by plain records and batch elements; reads the batch context fields. */
    private void processElementOfBatch(T element) {
        long time;
        long clock;
        if (eventTime) {
            if (timestamps != null) {
                try {
                    time = timestamps.timestampOf(element);
                } catch (RuntimeException e) {
                    reject(element, "timestamp: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
                    return;
                }
            } else if (hasBatchTime) {
                time = batchTime;
            } else {
                reject(element, "timestamp: missing; event-time deduplication needs record timestamps");
                return;
            }
            clock = Math.max(time, watermark);
        } else {
            time = processingTime;
            clock = time;
        }
        long h1;
        try {
            h1 = item.hash(hasher, element);
        } catch (RuntimeException e) { // the selector's IllegalArgumentException, or a user lambda's own failure
            reject(element, "item: " + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()));
            return;
        }
        itemsProcessed.inc();
        GenerationRing ring = this.ring;
        if (ring == null) {
            ring = new GenerationRing(sizing.generations(), sizing.seed(), sizing.epochOf(clock), clock);
            this.ring = ring;
            dirty = true;
        } else if (clock > ring.clock()) {
            ring.clock(clock);
            dirty = true;
        } else {
            clock = ring.clock();
        }
        if (eventTime && isLate(time, clock)) {
            lateRecords.inc();
        }
        dirty |= rotate(ring, sizing.epochOf(clock), eventTime ? watermark : processingTime);
        // into the generation of the record's own time: a straggler of a closed span loads that span's generation,
        // not the current one, so each generation holds the distinct items of its span (guarantee 2 at the rate)
        int result = ring.testAndPut(h1, ItemHasher.h2(h1), sizing, eventTime ? sizing.epochOf(time) : ring.epoch());
        if ((result & GenerationRing.SEEN) != 0) {
            duplicatesFlagged.inc();
            ctx.output(duplicates, element);
        } else {
            out.collect(element);
        }
        dirty |= (result & GenerationRing.CHANGED) != 0;
        if ((result & GenerationRing.OVER_CAPACITY) != 0) {
            overCapacityGenerations.inc();
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<T> out) throws Exception {
        GenerationRing ring = state.value();
        if (ring == null) {
            return;
        }
        if (ring.timerAt() == timestamp) {
            ring.timerAt(GenerationRing.NO_TIMER);
        }
        TimerService timers = ctx.timerService();
        long now = eventTime ? timers.currentWatermark() : timers.currentProcessingTime();
        long clock = Math.max(ring.clock(), Math.max(timestamp, now));
        ring.clock(clock);
        rotate(ring, sizing.epochOf(clock), now);
        if (ring.isEmpty()) {
            if (ring.timerAt() != GenerationRing.NO_TIMER) {
                deleteTimer(timers, ring.timerAt());
            }
            state.clear(); // every generation expired: the key costs nothing until it is seen again
            return;
        }
        scheduleRotation(ring, timers);
        state.update(ring);
    }

    /** Older than the horizon behind the key's clock (clock − H computed without wrapping below Long.MIN_VALUE). */
    private boolean isLate(long time, long clock) {
        long h = sizing.horizonMillis();
        return clock >= Long.MIN_VALUE + h && time < clock - h;
    }

    /**
     * Advances the ring to {@code epoch}, publishing the closing estimate and over-capacity count. {@code now} (the
     * watermark or processing time) caps the epoch the gauge files the estimate under: one key whose records run
     * far ahead would otherwise close a far epoch and hide every other key's rotations until time caught up.
     */
    private boolean rotate(GenerationRing ring, long epoch, long now) {
        if (epoch <= ring.epoch()) {
            return false;
        }
        double fpp = ring.estimatedFpp(); // before dropping: the peak a unique item faced in the closing span
        if (now == Long.MIN_VALUE) {
            // no watermark yet (event time without one, or after a restore): no common clock to file rotations
            // under, so the gauge shows the latest (filed under the epoch of Long.MIN_VALUE and merged by max, it
            // stayed at its maximum since open())
            fppOfLatestRotation = fpp;
        } else {
            // A key running ahead of the watermark closes the epoch the watermark is in, while the keys on time
            // close the one before it (their rotation timers fire as the watermark leaves it): the gauge keeps the
            // largest of the latest two epochs, so the key ahead does not hide the others for half of every span.
            long closing = Math.min(ring.epoch(), sizing.epochOf(now));
            if (closing > fppEpoch) {
                fppAtEpochBefore = closing - 1 == fppEpoch ? fppAtEpoch : 0.0;
                fppEpoch = closing;
                fppAtEpoch = fpp;
            } else if (closing == fppEpoch) {
                fppAtEpoch = Math.max(fppAtEpoch, fpp);
            } else if (closing == fppEpoch - 1) {
                fppAtEpochBefore = Math.max(fppAtEpochBefore, fpp);
            } else {
                return advance(ring, epoch);
            }
            fppOfLatestRotation = Math.max(fppAtEpoch, fppAtEpochBefore);
        }
        return advance(ring, epoch);
    }

    private boolean advance(GenerationRing ring, long epoch) {
        overCapacityGenerations.inc(ring.advanceTo(epoch,
                ring.currentCapacity(sizing.itemsPerGeneration(), sizing.bitsPerGeneration())));
        return true;
    }

    /** Keeps exactly one timer per key, at the start of the next epoch; true if the ring changed. */
    private boolean scheduleRotation(GenerationRing ring, TimerService timers) {
        if (sizing.isLastEpoch(ring.epoch())) {
            // A clock at the end of time (a record stamped near Long.MAX_VALUE): no rotation can follow, so no timer.
            // One at Long.MAX_VALUE would fire again at every end-of-input watermark and never let the task finish.
            if (ring.timerAt() == GenerationRing.NO_TIMER) {
                return false;
            }
            deleteTimer(timers, ring.timerAt());
            ring.timerAt(GenerationRing.NO_TIMER);
            return true;
        }
        long due = sizing.rotationAfter(ring.epoch());
        if (ring.timerAt() == due) {
            return false;
        }
        if (ring.timerAt() != GenerationRing.NO_TIMER) {
            deleteTimer(timers, ring.timerAt());
        }
        if (eventTime) {
            timers.registerEventTimeTimer(due);
        } else {
            timers.registerProcessingTimeTimer(due);
        }
        ring.timerAt(due);
        return true;
    }

    private void deleteTimer(TimerService timers, long at) {
        if (eventTime) {
            timers.deleteEventTimeTimer(at);
        } else {
            timers.deleteProcessingTimeTimer(at);
        }
    }

    private void reject(T element, String reason) {
        malformedRecords.inc();
        ctx.output(malformed, new Rejected<>(element, reason));
    }

    @Override
    public void bindKeys(WriteBackCache.KeyContext<K> keys) {
        this.keys = keys;
    }

    @Override
    public void writeBack() throws Exception {
        if (state != null) { // null if open() failed (a refused restore): nothing was cached
            state.flush();
        }
    }

    /**
     * The input has ended: every key's current generation, which no rotation will close now, is judged as a
     * rotation would judge it ({@code overCapacityGenerations}). In processing time nothing else would: Flink drops
     * the pending processing-time timers at the end of the input, so an overload of the last span went uncounted.
     * In event time the final watermark has rotated every ring past its last generation (the current one is then
     * empty), except a ring whose clock reached the last epoch (no rotation timer): it is judged here too. The
     * current generation is never counted before it closes (out-of-order inserts count only older ones), so no
     * generation counts twice. Runs under {@link io.linerate.flink.state.WriteBackOperator} (every
     * {@link Deduplicator} stream); a bare {@code KeyedProcessOperator} has no such pass.
     */
    @Override
    public void atEndOfInput(EveryKey every) throws Exception {
        every.forEach(ringsDescriptor, () -> {
            GenerationRing ring = state.value();
            if (ring != null) {
                overCapacityGenerations.inc(ring.currentOverCapacity(
                        ring.currentCapacity(sizing.itemsPerGeneration(), sizing.bitsPerGeneration())));
            }
        });
    }

    /** The rings' write-back cache (tests). */
    WriteBackCache<K, GenerationRing> cache() {
        return state;
    }

    /** The ring of the harness's current key (tests). */
    GenerationRing currentRing() throws IOException {
        return state.value();
    }

    /** Serialized bytes of a ring as the state backend would store it (tests). */
    byte[] image(GenerationRing ring) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        new GenerationRingSerializer(sizing.shape(eventTime)).serialize(ring, out);
        return out.getCopyOfBuffer();
    }

    long itemsProcessed() {
        return itemsProcessed.getCount();
    }

    long duplicatesFlagged() {
        return duplicatesFlagged.getCount();
    }

    long malformedRecords() {
        return malformedRecords.getCount();
    }

    long malformedBatches() {
        return malformedBatchRecords.getCount();
    }

    long lateRecords() {
        return lateRecords.getCount();
    }

    long overCapacityGenerations() {
        return overCapacityGenerations.getCount();
    }

    double estimatedFpp() {
        return fppOfLatestRotation;
    }
}
