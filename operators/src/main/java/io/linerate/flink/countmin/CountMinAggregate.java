package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.OutputTag;

import java.util.List;

/**
 * A Count-Min sketch per key and window: an {@link AggregateFunction} whose accumulator and result are a
 * {@link CountMinSketch}, serialized by {@link CountMinSketchTypeInfo} (never Kryo). Windows merge (session windows)
 * with {@link CountMinSketch#merge}: counters add, so the merged sketch is exactly the sketch of the union stream
 * (for conservative update, an upper bound that keeps the guarantee but not the conservative sketch of the union).
 *
 * <pre>{@code
 * CountMinAggregate<Packet> cm = CountMinAggregate.<Packet>builder()
 *         .item(ItemSelector.fiveTuples(p -> p.tuple)).weight(p -> p.bytes).errors(0.001, 0.001).seed(42).build();
 * SingleOutputStreamOperator<Packet> clean = cm.screen(packets);       // malformed records to a side output
 * DataStream<CountMinSketch> perWindow = cm.applyTo(clean.keyBy(p -> p.link)
 *         .window(TumblingEventTimeWindows.of(Duration.ofMinutes(1))));
 * }</pre>
 *
 * <p>Use {@link #applyTo} (or pass {@link #accumulatorType()} and {@link #resultType()} to
 * {@code WindowedStream.aggregate}); the plain {@code aggregate(function)} would extract the accumulator type by
 * reflection and fall back to Kryo.
 *
 * <p><b>Malformed records.</b> An aggregate function has no side output and no metrics, so it cannot reject a record
 * itself. {@link #screen} is the pre-filter: it applies the same item selector and weight function, sends failing
 * records to {@link Rejected#tag} and counts them in {@code malformedRecords}. A record that still fails in
 * {@link #add} (the stream was not screened, or a selector is not deterministic) throws: an
 * {@link IllegalArgumentException} naming the reason for a negative weight or a rejected item, the selector's own
 * exception if it throws. The job fails and restarts from its last checkpoint rather than dropping the record
 * silently.
 *
 * <p>The result is the window's accumulator itself. Flink's default event-time trigger fires without purging; the
 * window's state is cleared at its end + allowed lateness, so with allowed lateness 0 nothing touches the result
 * after it is emitted. With allowed lateness &gt; 0 (late records update the same sketch and fire again) or an
 * early-firing trigger, and object reuse on, copy it downstream before keeping it.
 */
public final class CountMinAggregate<T> implements AggregateFunction<T, CountMinSketch, CountMinSketch> {

    private static final long serialVersionUID = 1L;

    private final ItemSelector<T> item;
    private final WeightOf<T> weight;
    private final CountMinSizing sizing;

    private CountMinAggregate(ItemSelector<T> item, WeightOf<T> weight, CountMinSizing sizing) {
        this.item = item;
        this.weight = weight;
        this.sizing = sizing;
    }

    /** A builder; the item and one of errors or memory are required (see {@link Builder}). */
    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** An empty sketch of the configured shape (w·d counters). */
    @Override
    public CountMinSketch createAccumulator() {
        return sizing.newSketch();
    }

    /** Adds the record's weight to its item: one selector call, one hash, d counters. */
    @Override
    public CountMinSketch add(T record, CountMinSketch sketch) {
        long w = weight.weightOf(record);
        if (w < 0) {
            throw new IllegalArgumentException("weight must be ≥ 0, got " + w + " (screen the stream with "
                    + "CountMinAggregate.screen to divert such records to the malformed side output)");
        }
        long h1;
        try {
            h1 = item.hash(sketch.hasher(), record);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("item: " + e.getMessage() + " (screen the stream with "
                    + "CountMinAggregate.screen to divert such records to the malformed side output)", e);
        }
        sketch.update(h1, ItemHasher.h2(h1), w);
        return sketch;
    }

    /** The window's sketch; query it with {@link #estimate}. */
    @Override
    public CountMinSketch getResult(CountMinSketch sketch) {
        return sketch;
    }

    /**
     * Adds {@code b}'s counters into {@code a} ({@link CountMinSketch#merge}): same shape and seed by construction
     * (a restore of state of another shape is refused), except for state written before the accumulator's
     * snapshot recorded the shape, whose row indexing, width, depth or seed may differ from this job's if the
     * settings changed since. Such a mismatch fails with the sketch's message naming the field, followed by this
     * job's settings and the way out.
     */
    @Override
    public CountMinSketch merge(CountMinSketch a, CountMinSketch b) {
        try {
            a.merge(b);
        } catch (IllegalArgumentException mismatch) {
            throw new IllegalStateException("cannot merge window sketches: " + mismatch.getMessage()
                    + ". This job's sizing, seed, rowIndexing and conservative settings give " + sizing.shape()
                    + "; window state written before the "
                    + "accumulator recorded its shape may hold sketches of another configuration. Restore from a "
                    + "checkpoint or savepoint taken before the settings changed, with the settings it had then",
                    mismatch);
        }
        return a;
    }

    /**
     * Type information of the accumulator: {@link CountMinSketchTypeInfo} expecting this aggregate's
     * {@link CountMinSizing#shape()}, so that window state restored into an aggregate of another shape is refused
     * at the restore, naming the field, instead of failing the first merge of an old and a new sketch.
     */
    public TypeInformation<CountMinSketch> accumulatorType() {
        return new CountMinSketchTypeInfo(sizing.shape());
    }

    /** Type information of the result: {@link CountMinSketchTypeInfo}. */
    public TypeInformation<CountMinSketch> resultType() {
        return new CountMinSketchTypeInfo();
    }

    /** {@code windowed.aggregate(this)} with explicit accumulator and result types. */
    public <K, W extends Window> SingleOutputStreamOperator<CountMinSketch> applyTo(WindowedStream<T, K, W> windowed) {
        return windowed.aggregate(this, accumulatorType(), resultType()).name("Count-Min per window");
    }

    /** Per window and key, the window's sketch with its key and bounds. {@code keyType}: {@code KeyedStream.getKeyType()}. */
    public <K, W extends Window> SingleOutputStreamOperator<WindowSketch<K>> sketchesOf(
            WindowedStream<T, K, W> windowed, TypeInformation<K> keyType) {
        return windowed.aggregate(this, new WindowSketches<K, W>(), accumulatorType(), resultType(),
                WindowSketch.typeInfo(keyType)).name("Count-Min sketch per key and window");
    }

    /**
     * Per window and key, the estimates of a fixed list of items (a watch list): one {@link WindowEstimate} per
     * item of {@code items}, selected by {@code queryItem} (the same kind of selector as the item selector).
     * {@code items} are shipped with the job, so they must be serializable. {@code keyType} is the key type of the
     * keyed stream ({@code KeyedStream.getKeyType()}), {@code itemType} the type of the listed items.
     *
     * @throws IllegalArgumentException when the job is built, if an item is null or {@code queryItem} rejects it
     *     (each item is hashed once here, as each window firing will), naming the item's index
     */
    public <K, Q, W extends Window> SingleOutputStreamOperator<WindowEstimate<K, Q>> estimatesOf(
            WindowedStream<T, K, W> windowed, TypeInformation<K> keyType, ItemSelector<Q> queryItem, List<Q> items,
            TypeInformation<Q> itemType) {
        if (queryItem == null || item.getClass() != queryItem.getClass()) {
            throw new IllegalArgumentException("queryItem must select the same kind of item (longs, strings, bytes or"
                    + " 5-tuples) as item, got queryItem " + queryItem + " and item " + item);
        }
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("items must list at least one item, got " + items);
        }
        checkWatchList(queryItem, items);
        return windowed.aggregate(this, new WindowEstimates<K, Q, W>(queryItem, items), accumulatorType(),
                resultType(), WindowEstimate.typeInfo(keyType, itemType)).name("Count-Min watch list per window");
    }

    /** Hashes every watched item once, so that one the selector rejects fails now, not at a window firing. */
    private <Q> void checkWatchList(ItemSelector<Q> queryItem, List<Q> items) {
        ItemHasher hasher = ItemHasher.seeded(sizing.seed());
        for (int i = 0; i < items.size(); i++) {
            Q watched = items.get(i);
            if (watched == null) {
                throw new IllegalArgumentException("items[" + i + "] is null");
            }
            try {
                queryItem.hash(hasher, watched);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("items[" + i + "] (" + watched + ") is rejected by queryItem: "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * The estimate of {@code query}'s item in {@code sketch} (a result of this function), hashed with the
     * sketch's own seed.
     */
    public static <Q> long estimate(CountMinSketch sketch, ItemSelector<Q> queryItem, Q query) {
        long h1 = queryItem.hash(sketch.hasher(), query);
        return sketch.estimate(h1, ItemHasher.h2(h1));
    }

    /**
     * Diverts records whose item selector or weight function throws, or whose weight is negative, to the side
     * output {@link #malformed}, counting them in the metric {@code malformedRecords}. Costs one extra selector
     * call and hash per record.
     */
    public SingleOutputStreamOperator<T> screen(DataStream<T> records) {
        return records.process(new RecordScreen<>(item, weight, sizing.seed(), malformed(records.getType())),
                records.getType()).name("Count-Min record screen");
    }

    /** The side output of {@link #screen}: {@link Rejected#tag}. */
    public OutputTag<Rejected<T>> malformed(TypeInformation<T> recordType) {
        return Rejected.tag(recordType);
    }

    /** The sketch's shape (width, depth, seed, indexing, conservative) and its ε, δ and bytes per window. */
    public CountMinSizing sizing() {
        return sizing;
    }

    /**
     * Builder. Required: {@link #item} and one of {@link #errors} or {@link #memory}. Defaults: weight 1 per record,
     * seed {@link CountMinSizing#defaultSeed()}, conservative update off.
     */
    public static final class Builder<T> {
        private ItemSelector<T> item;
        private WeightOf<T> weight = WeightOf.one();
        private final SizingOptions sizing = new SizingOptions();

        private Builder() {
        }

        /** What is counted: the item of each record (required). */
        public Builder<T> item(ItemSelector<T> item) {
            this.item = item;
            return this;
        }

        /** The weight (≥ 0) a record adds; default 1. */
        public Builder<T> weight(WeightOf<T> weight) {
            this.weight = weight;
            return this;
        }

        /** Size for error ε·N with failure probability δ: w = nextPrime(⌈2e/ε⌉), e<sup>−d</sup> ≤ δ. */
        public Builder<T> errors(double epsilon, double delta) {
            sizing.errors(epsilon, delta);
            return this;
        }

        /** Size to {@code bytes} of counters at {@code depth} rows: w = largest prime ≤ bytes/(8d). */
        public Builder<T> memory(long bytes, int depth) {
            sizing.memory(bytes, depth);
            return this;
        }

        /** The hash seed (kept in each sketch's image; merges need equal seeds); default {@link CountMinSizing#defaultSeed()}. */
        public Builder<T> seed(long seed) {
            sizing.seed(seed);
            return this;
        }

        /** Conservative update (Estan &amp; Varghese); default off. */
        public Builder<T> conservative(boolean conservative) {
            sizing.conservative(conservative);
            return this;
        }

        /**
         * How each sketch derives its row indexes from the item's hash: {@link RowIndexing#FULL_WIDTH} (default) or
         * {@link RowIndexing#MIXED_32} (faster), both with the same guarantee. What a change means for a job with
         * state: {@link CountMinSizing#withRowIndexing}.
         */
        public Builder<T> rowIndexing(RowIndexing rowIndexing) {
            sizing.indexing(rowIndexing);
            return this;
        }

        /** Validates every parameter; throws {@link IllegalArgumentException} naming the first bad one. */
        public CountMinAggregate<T> build() {
            if (item == null) {
                throw new IllegalArgumentException("item must be set");
            }
            if (weight == null) {
                throw new IllegalArgumentException("weight must be set");
            }
            return new CountMinAggregate<>(item, weight, sizing.toSizing());
        }
    }
}
