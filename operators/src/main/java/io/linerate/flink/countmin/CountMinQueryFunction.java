package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.flink.state.WriteBackCache;
import io.linerate.flink.state.WriteBackFunction;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The keyed function of {@link CountMinQueries}: input 1 adds records to their scope's sketch, input 2 answers point
 * queries from it. State: one {@link CountMinSketch} per scope key in a {@code ValueState} serialized by
 * {@link CountMinSketchTypeInfo}. No timers.
 *
 * <p>Per update: one selector call and one hash, d counter updates, {@code state.update}; no allocation on the heap
 * backend except the first sketch of a new scope. Records whose item selector or weight function throws, or whose
 * weight is negative, go to {@link #malformedUpdates()}; queries whose selector throws go to
 * {@link #malformedQueries()}.
 */
public final class CountMinQueryFunction<T, Q, K> extends KeyedCoProcessFunction<K, T, Q, CountMinEstimate<K, Q>>
        implements WriteBackFunction<K> {

    private static final long serialVersionUID = 1L;

    /** Name of the side output of malformed queries (updates use {@link Rejected#OUTPUT_NAME}). */
    public static final String MALFORMED_QUERIES = "malformedQueries";

    private final ItemSelector<T> item;
    private final WeightOf<T> weight;
    private final ItemSelector<Q> queryItem;
    private final CountMinSizing sizing;
    private final OutputTag<Rejected<T>> malformedUpdates;
    private final OutputTag<Rejected<Q>> malformedQueries;

    private final int cachedScopes;

    // the scopes' sketches: straight from the ValueState on a heap backend (or without the operator apply() builds);
    // on RocksDB the sketches of recent scopes stay live between checkpoints (CountMinQueries.Builder#stateCacheBytes)
    private transient WriteBackCache<K, CountMinSketch> sketches;
    private transient WriteBackCache.KeyContext<K> keys;
    private transient ItemHasher hasher;
    private transient Counter itemsProcessed;
    private transient Counter weightProcessed;
    private transient Counter queriesAnswered;
    private transient Counter malformedRecords;
    private transient Counter malformedQueryCount;

    CountMinQueryFunction(ItemSelector<T> item, WeightOf<T> weight, ItemSelector<Q> queryItem, CountMinSizing sizing,
                          int cachedScopes, OutputTag<Rejected<T>> malformedUpdates,
                          OutputTag<Rejected<Q>> malformedQueries) {
        this.cachedScopes = cachedScopes;
        this.item = item;
        this.weight = weight;
        this.queryItem = queryItem;
        this.sizing = sizing;
        this.malformedUpdates = malformedUpdates;
        this.malformedQueries = malformedQueries;
    }

    /** The side output of update records this function rejected. */
    public OutputTag<Rejected<T>> malformedUpdates() {
        return malformedUpdates;
    }

    /** The side output of queries this function rejected. */
    public OutputTag<Rejected<Q>> malformedQueries() {
        return malformedQueries;
    }

    /** The shape every scope's sketch has. */
    public CountMinSizing sizing() {
        return sizing;
    }

    @Override
    public void open(OpenContext openContext) {
        // the expected shape makes a restore into another width, depth, seed, row indexing or update rule fail,
        // naming the field, instead of answering restored scopes with another ε than the configured one
        ValueState<CountMinSketch> state = getRuntimeContext().getState(new ValueStateDescriptor<>("countMin",
                new CountMinSketchTypeInfo(sizing.shape())));
        sketches = new WriteBackCache<>(state, keys, cachedScopes,
                "Count-Min sketches of " + sizing.stateBytesPerKey() + " bytes");
        hasher = ItemHasher.seeded(sizing.seed());
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        itemsProcessed = metrics.counter("itemsProcessed");
        weightProcessed = metrics.counter("weightProcessed", new SaturatingCounter());
        queriesAnswered = metrics.counter("queriesAnswered");
        malformedRecords = metrics.counter("malformedRecords");
        malformedQueryCount = metrics.counter("malformedQueries");
        long bytes = sizing.stateBytesPerKey();
        metrics.gauge("stateBytesPerKey", (Gauge<Long>) () -> bytes);
        double epsilon = sizing.epsilon();
        metrics.gauge("epsilon", (Gauge<Double>) () -> epsilon);
        sketches.registerMetrics(metrics);
    }

    /** The sketches' write-back cache (tests). */
    WriteBackCache<K, CountMinSketch> cache() {
        return sketches;
    }

    @Override
    public void bindKeys(WriteBackCache.KeyContext<K> keys) {
        this.keys = keys;
    }

    @Override
    public void writeBack() throws Exception {
        if (sketches != null) { // null if open() failed (a refused restore): nothing was cached
            sketches.flush();
        }
    }

    @Override
    public void processElement1(T record, Context ctx, Collector<CountMinEstimate<K, Q>> out) throws Exception {
        long w;
        try {
            w = weight.weightOf(record);
        } catch (RuntimeException e) {
            reject(ctx, record, "weight: " + describe(e));
            return;
        }
        if (w < 0) {
            reject(ctx, record, "weight must be ≥ 0, got " + w);
            return;
        }
        CountMinSketch sketch = sketches.value();
        long h1;
        try {
            // the sketch's own hasher: a sketch restored from a job with another seed stays consistent
            h1 = item.hash(sketch != null ? sketch.hasher() : hasher, record);
        } catch (RuntimeException e) {
            reject(ctx, record, "item: " + describe(e));
            return;
        }
        if (sketch == null) {
            sketch = sizing.newSketch(); // seeded like hasher
        }
        sketch.update(h1, ItemHasher.h2(h1), w);
        sketches.update(sketch);
        itemsProcessed.inc();
        weightProcessed.inc(w);
    }

    /** The message of an {@link IllegalArgumentException} (it names the limit), else the exception itself. */
    static String describe(RuntimeException e) {
        return e instanceof IllegalArgumentException && e.getMessage() != null ? e.getMessage() : e.toString();
    }

    private void reject(Context ctx, T record, String reason) {
        malformedRecords.inc();
        ctx.output(malformedUpdates, new Rejected<>(record, reason));
    }

    @Override
    public void processElement2(Q query, Context ctx, Collector<CountMinEstimate<K, Q>> out) throws Exception {
        CountMinSketch sketch = sketches.value();
        long h1;
        try {
            h1 = queryItem.hash(sketch != null ? sketch.hasher() : hasher, query);
        } catch (RuntimeException e) {
            malformedQueryCount.inc();
            ctx.output(malformedQueries, new Rejected<>(query, "queryItem: " + describe(e)));
            return;
        }
        K scope = ctx.getCurrentKey();
        if (sketch == null) {
            out.collect(new CountMinEstimate<>(scope, query, 0, 0, 0));
        } else {
            out.collect(new CountMinEstimate<>(scope, query, sketch.estimate(h1, ItemHasher.h2(h1)),
                    CountMinEstimate.errorBound(sketch), sketch.totalWeight()));
        }
        queriesAnswered.inc();
    }
}
