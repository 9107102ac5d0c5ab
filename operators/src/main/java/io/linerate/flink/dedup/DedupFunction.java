package io.linerate.flink.dedup;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.hash.ItemHasher;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
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
 * <p>Per record: one hash h1 of the item (h2 = {@link ItemHasher#h2}), one cache line per kept generation, no
 * allocation (a generation's filter is allocated when it receives its first item, once per key per span). First
 * occurrences go to the main output, probable duplicates to {@link Deduplicator#duplicatesTag}, records whose item
 * or timestamp is unusable to {@link Rejected#tag}. One rotation timer per key per span S.
 */
public final class DedupFunction<K, T> extends KeyedProcessFunction<K, T, T> {

    private static final long serialVersionUID = 1L;

    private final ItemSelector<T> item;
    private final DedupSizing sizing;
    private final boolean eventTime;
    private final OutputTag<T> duplicates;
    private final OutputTag<Rejected<T>> malformed;

    private transient ValueState<GenerationRing> state;
    private transient ItemHasher hasher;
    private transient Counter itemsProcessed;
    private transient Counter duplicatesFlagged;
    private transient Counter malformedRecords;
    private transient Counter lateRecords;
    private transient Counter overCapacityGenerations;
    /** Epoch whose rotations {@link #fppOfLatestRotation} covers. */
    private transient long fppEpoch;
    private transient volatile double fppOfLatestRotation; // read by metric reporters

    DedupFunction(ItemSelector<T> item, DedupSizing sizing, boolean eventTime, TypeInformation<T> inputType) {
        this.item = item;
        this.sizing = sizing;
        this.eventTime = eventTime;
        this.duplicates = Deduplicator.duplicatesTag(inputType);
        this.malformed = Rejected.tag(inputType);
    }

    @Override
    public void open(OpenContext context) {
        state = getRuntimeContext().getState(
                new ValueStateDescriptor<>("generations", new GenerationRingTypeInfo(sizing.shape())));
        hasher = ItemHasher.seeded(sizing.seed());
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        itemsProcessed = metrics.counter("itemsProcessed");
        duplicatesFlagged = metrics.counter("duplicatesFlagged");
        malformedRecords = metrics.counter("malformedRecords");
        lateRecords = metrics.counter("lateRecords");
        overCapacityGenerations = metrics.counter("overCapacityGenerations");
        long stateBytes = sizing.stateBytesPerKey();
        metrics.gauge("stateBytesPerKey", (Gauge<Long>) () -> stateBytes);
        metrics.gauge("estimatedFpp", (Gauge<Double>) () -> fppOfLatestRotation);
        fppEpoch = Long.MIN_VALUE;
    }

    @Override
    public void processElement(T record, Context ctx, Collector<T> out) throws Exception {
        TimerService timers = ctx.timerService();
        long time;
        long clock;
        if (eventTime) {
            Long ts = ctx.timestamp();
            if (ts == null) {
                reject(ctx, record, "timestamp: missing; event-time deduplication needs record timestamps");
                return;
            }
            time = ts;
            clock = Math.max(time, timers.currentWatermark());
        } else {
            time = timers.currentProcessingTime();
            clock = time;
        }
        long h1;
        try {
            h1 = item.hash(hasher, record);
        } catch (RuntimeException e) { // the selector's IllegalArgumentException, or a user lambda's own failure
            reject(ctx, record, "item: " + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()));
            return;
        }
        itemsProcessed.inc();
        GenerationRing ring = state.value();
        boolean dirty = false;
        if (ring == null) {
            ring = new GenerationRing(sizing.generations(), sizing.seed(), sizing.epochOf(clock), clock);
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
        dirty |= rotate(ring, sizing.epochOf(clock));
        int result = ring.testAndPut(h1, ItemHasher.h2(h1), sizing);
        if ((result & GenerationRing.SEEN) != 0) {
            duplicatesFlagged.inc();
            ctx.output(duplicates, record);
        } else {
            out.collect(record);
        }
        dirty |= (result & GenerationRing.CHANGED) != 0;
        dirty |= scheduleRotation(ring, timers);
        if (dirty) {
            state.update(ring);
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
        rotate(ring, sizing.epochOf(clock));
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

    /** Advances the ring to {@code epoch}, publishing the closing estimate and over-capacity count. */
    private boolean rotate(GenerationRing ring, long epoch) {
        if (epoch <= ring.epoch()) {
            return false;
        }
        long closing = ring.epoch();
        double fpp = ring.estimatedFpp(); // before dropping: the peak a unique item faced in the closing span
        if (closing > fppEpoch) {
            fppEpoch = closing;
            fppOfLatestRotation = fpp;
        } else if (closing == fppEpoch) {
            fppOfLatestRotation = Math.max(fppOfLatestRotation, fpp);
        }
        overCapacityGenerations.inc(ring.advanceTo(epoch, sizing.itemsPerGeneration()));
        return true;
    }

    /** Keeps exactly one timer per key, at the start of the next epoch; true if the ring changed. */
    private boolean scheduleRotation(GenerationRing ring, TimerService timers) {
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

    private void reject(Context ctx, T record, String reason) {
        malformedRecords.inc();
        ctx.output(malformed, new Rejected<>(record, reason));
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
