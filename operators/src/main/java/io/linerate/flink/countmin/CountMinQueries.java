package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackCoOperator;
import io.linerate.sketches.frequency.RowIndexing;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * Continuous Count-Min point queries over connected streams: input 1 carries records of {@code T} (updates), input
 * 2 point queries of {@code Q}; both are keyed by the same scope {@code K} (a link, tenant, observation point). Each
 * scope key holds one Count-Min sketch in keyed state; each query is answered at once from its scope's sketch as it
 * stands (a {@link CountMinEstimate}: estimate, error bound ε·N and total weight N).
 *
 * <pre>{@code
 * CountMinQueries<Packet, Lookup, String> cm = CountMinQueries.<Packet, Lookup, String>builder()
 *         .scope(p -> p.link, Types.STRING).item(ItemSelector.fiveTuples(p -> p.tuple)).weight(p -> p.bytes)
 *         .queryScope(q -> q.link).queryItem(ItemSelector.fiveTuples(q -> q.tuple))
 *         .errors(0.001, 0.001).seed(42).build();
 * SingleOutputStreamOperator<CountMinEstimate<String, Lookup>> answers = cm.apply(packets, lookups);
 * DataStream<Rejected<Packet>> bad = answers.getSideOutput(cm.malformedUpdates(packets.getType()));
 * }</pre>
 *
 * <p>The two streams are connected with no ordering between them: a query sees the updates of its scope that
 * reached the operator before it. Guarantee per answer (see {@link CountMinSizing}): true ≤ estimate always,
 * estimate ≤ true + errorBound with probability ≥ 1 − e<sup>−d</sup> ≥ 1 − δ.
 */
public final class CountMinQueries<T, Q, K> {

    private final KeySelector<T, K> scope;
    private final TypeInformation<K> scopeType;
    private final KeySelector<Q, K> queryScope;
    private final ItemSelector<T> item;
    private final WeightOf<T> weight;
    private final ItemSelector<Q> queryItem;
    private final CountMinSizing sizing;
    private final long stateCacheBytes;

    private CountMinQueries(Builder<T, Q, K> b, CountMinSizing sizing) {
        this.scope = b.scope;
        this.scopeType = b.scopeType;
        this.queryScope = b.queryScope;
        this.item = b.item;
        this.weight = b.weight;
        this.queryItem = b.queryItem;
        this.sizing = sizing;
        this.stateCacheBytes = b.stateCacheBytes;
    }

    /** Default of {@link Builder#stateCacheBytes}: 64 MiB per parallel instance of the operator. */
    public static final long DEFAULT_STATE_CACHE_BYTES = 64L << 20;

    /**
     * A builder; scope (with its type), item, queryScope, queryItem and one of errors or memory are required
     * (see {@link Builder}).
     */
    public static <T, Q, K> Builder<T, Q, K> builder() {
        return new Builder<>();
    }

    /**
     * Connects {@code updates} and {@code queries}, keys both by scope and answers every query. The malformed
     * side outputs are {@link #malformedUpdates} and {@link #malformedQueries} of the inputs' types.
     */
    public SingleOutputStreamOperator<CountMinEstimate<K, Q>> apply(DataStream<T> updates, DataStream<Q> queries) {
        return updates.connect(queries)
                .keyBy(scope, queryScope, scopeType)
                .transform("Count-Min point queries", outputType(queries.getType()), new WriteBackCoOperator<>(
                        updates.getExecutionEnvironment().clean(function(updates.getType(), queries.getType()))));
    }

    /** The keyed function {@link #apply} runs, for a test harness or a hand-built topology. */
    public CountMinQueryFunction<T, Q, K> function(TypeInformation<T> updateType, TypeInformation<Q> queryType) {
        return new CountMinQueryFunction<>(item, weight, queryItem, sizing, cachedScopes(),
                malformedUpdates(updateType), malformedQueries(queryType));
    }

    /** Type information of the answers. */
    public TypeInformation<CountMinEstimate<K, Q>> outputType(TypeInformation<Q> queryType) {
        return CountMinEstimate.typeInfo(scopeType, queryType);
    }

    /** Side output of rejected updates: {@link Rejected#tag} ("malformed"). */
    public OutputTag<Rejected<T>> malformedUpdates(TypeInformation<T> updateType) {
        return Rejected.tag(updateType);
    }

    /** Side output of rejected queries, named {@value CountMinQueryFunction#MALFORMED_QUERIES}. */
    public OutputTag<Rejected<Q>> malformedQueries(TypeInformation<Q> queryType) {
        return new OutputTag<>(CountMinQueryFunction.MALFORMED_QUERIES, Rejected.typeInfo(queryType));
    }

    /** The scope (Flink key) of an update. */
    public KeySelector<T, K> scope() {
        return scope;
    }

    /** The scope (Flink key) of a query: the same key space as {@link #scope()}. */
    public KeySelector<Q, K> queryScope() {
        return queryScope;
    }

    /** Type information of the scope key. */
    public TypeInformation<K> scopeType() {
        return scopeType;
    }

    /** The sketch's shape (width, depth, seed, indexing, conservative) and its ε, δ and bytes per key. */
    public CountMinSizing sizing() {
        return sizing;
    }

    /**
     * Scopes whose sketches a subtask keeps live between checkpoints on a state backend that stores values
     * serialized: {@link Builder#stateCacheBytes} over {@link CountMinSizing#stateBytesPerKey()}, rounded down.
     */
    public int cachedScopes() {
        return (int) Math.min(Integer.MAX_VALUE, stateCacheBytes / sizing.stateBytesPerKey());
    }

    /**
     * Builder. Required: {@link #scope}, {@link #item}, {@link #queryScope}, {@link #queryItem} and one of
     * {@link #errors} or {@link #memory}. Defaults: weight 1 per record, seed {@link CountMinSizing#defaultSeed()},
     * conservative update off.
     */
    public static final class Builder<T, Q, K> {
        private KeySelector<T, K> scope;
        private TypeInformation<K> scopeType;
        private KeySelector<Q, K> queryScope;
        private ItemSelector<T> item;
        private WeightOf<T> weight = WeightOf.one();
        private ItemSelector<Q> queryItem;
        private final SizingOptions sizing = new SizingOptions();
        private long stateCacheBytes = DEFAULT_STATE_CACHE_BYTES;

        private Builder() {
        }

        /**
         * Heap each parallel instance of the operator may spend keeping the sketches of its most recently used scopes
         * live between checkpoints when the state backend stores values serialized (RocksDB), where an update
         * otherwise deserializes and serializes its scope's whole sketch: sketches are written back when the cache
         * needs their place and whenever the state is snapshotted ({@link WriteBackCoOperator}). Holds {@code bytes /
         * stateBytesPerKey} sketches; default {@value #DEFAULT_STATE_CACHE_BYTES} bytes, 0 turns it off; backends that
         * keep values on the heap (also under the changelog backend) and batch execution ignore it.
         */
        public Builder<T, Q, K> stateCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("stateCacheBytes must be >= 0, got " + bytes);
            }
            this.stateCacheBytes = bytes;
            return this;
        }

        /** The scope key of an update record, and its type. */
        public Builder<T, Q, K> scope(KeySelector<T, K> scope, TypeInformation<K> scopeType) {
            this.scope = scope;
            this.scopeType = scopeType;
            return this;
        }

        /** The item an update record adds weight to. */
        public Builder<T, Q, K> item(ItemSelector<T> item) {
            this.item = item;
            return this;
        }

        /** The weight (≥ 0) an update adds; default 1. */
        public Builder<T, Q, K> weight(WeightOf<T> weight) {
            this.weight = weight;
            return this;
        }

        /** The scope key of a query: the same key space as {@link #scope}. */
        public Builder<T, Q, K> queryScope(KeySelector<Q, K> queryScope) {
            this.queryScope = queryScope;
            return this;
        }

        /** The item a query asks about; must select items of the same kind as {@link #item}, or they never match. */
        public Builder<T, Q, K> queryItem(ItemSelector<Q> queryItem) {
            this.queryItem = queryItem;
            return this;
        }

        /** Size each sketch for error ε·N with failure probability δ: w = nextPrime(⌈2e/ε⌉), e<sup>−d</sup> ≤ δ. */
        public Builder<T, Q, K> errors(double epsilon, double delta) {
            sizing.errors(epsilon, delta);
            return this;
        }

        /** Size each sketch to {@code bytes} of counters at {@code depth} rows: w = largest prime ≤ bytes/(8d). */
        public Builder<T, Q, K> memory(long bytes, int depth) {
            sizing.memory(bytes, depth);
            return this;
        }

        /** The hash seed (kept in each sketch's image); default {@link CountMinSizing#defaultSeed()}. */
        public Builder<T, Q, K> seed(long seed) {
            sizing.seed(seed);
            return this;
        }

        /** Conservative update (Estan &amp; Varghese): same guarantee, never more error; default off. */
        public Builder<T, Q, K> conservative(boolean conservative) {
            sizing.conservative(conservative);
            return this;
        }

        /**
         * How each sketch derives its row indexes from the item's hash: {@link RowIndexing#FULL_WIDTH} (default) or
         * {@link RowIndexing#MIXED_32} (faster), both with the same guarantee. What a change means for a job with
         * state: {@link CountMinSizing#withRowIndexing}.
         */
        public Builder<T, Q, K> rowIndexing(RowIndexing rowIndexing) {
            sizing.indexing(rowIndexing);
            return this;
        }

        /** Validates every parameter; throws {@link IllegalArgumentException} naming the first bad one. */
        public CountMinQueries<T, Q, K> build() {
            require(scope, "scope");
            require(scopeType, "scope type");
            require(item, "item");
            require(weight, "weight");
            require(queryScope, "queryScope");
            require(queryItem, "queryItem");
            // strings hash over their chars, bytes over their bytes: only the same kind of selector can match
            if (item.getClass() != queryItem.getClass()) {
                throw new IllegalArgumentException("queryItem must select the same kind of item (longs, strings, bytes"
                        + " or 5-tuples) as item, got queryItem " + queryItem + " and item " + item);
            }
            return new CountMinQueries<>(this, sizing.toSizing());
        }

        private static void require(Object value, String name) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must be set");
            }
        }
    }
}
