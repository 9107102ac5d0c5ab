package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.hash.ItemHasher;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The pre-filter of {@link CountMinAggregate}: passes records the aggregate can take, sends the others (item selector
 * or weight function throws, negative weight) to the malformed side output. Metrics: {@code itemsProcessed} (passed),
 * {@code malformedRecords}.
 */
final class RecordScreen<T> extends ProcessFunction<T, T> {

    private static final long serialVersionUID = 1L;

    private final ItemSelector<T> item;
    private final WeightOf<T> weight;
    private final long seed;
    private final OutputTag<Rejected<T>> malformed;

    private transient ItemHasher hasher;
    private transient Counter passed;
    private transient Counter malformedRecords;

    RecordScreen(ItemSelector<T> item, WeightOf<T> weight, long seed, OutputTag<Rejected<T>> malformed) {
        this.item = item;
        this.weight = weight;
        this.seed = seed;
        this.malformed = malformed;
    }

    @Override
    public void open(OpenContext openContext) {
        hasher = ItemHasher.seeded(seed);
        passed = getRuntimeContext().getMetricGroup().counter("itemsProcessed");
        malformedRecords = getRuntimeContext().getMetricGroup().counter("malformedRecords");
    }

    @Override
    public void processElement(T record, Context ctx, Collector<T> out) {
        String reason;
        try {
            long w = weight.weightOf(record);
            reason = w < 0 ? "weight must be ≥ 0, got " + w : null;
        } catch (RuntimeException e) {
            reason = "weight: " + CountMinQueryFunction.describe(e);
        }
        if (reason == null) {
            try {
                item.hash(hasher, record);
            } catch (RuntimeException e) {
                reason = "item: " + CountMinQueryFunction.describe(e);
            }
        }
        if (reason == null) {
            // outside the try: an exception from a chained downstream operator is its failure, not a bad record
            passed.inc();
            out.collect(record);
            return;
        }
        malformedRecords.inc();
        ctx.output(malformed, new Rejected<>(record, reason));
    }
}
