package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;

/** Emits the estimate of each watched item from a window's sketch ({@link CountMinAggregate#estimatesOf}). */
final class WindowEstimates<K, Q, W extends Window>
        extends ProcessWindowFunction<CountMinSketch, WindowEstimate<K, Q>, K, W> {

    private static final long serialVersionUID = 1L;

    private final ItemSelector<Q> queryItem;
    private final ArrayList<Q> items;

    WindowEstimates(ItemSelector<Q> queryItem, List<Q> items) {
        this.queryItem = queryItem;
        this.items = new ArrayList<>(items);
    }

    @Override
    public void process(K key, Context context, Iterable<CountMinSketch> sketches, Collector<WindowEstimate<K, Q>> out) {
        long start = WindowSketches.start(context.window());
        long end = WindowSketches.end(context.window());
        for (CountMinSketch sketch : sketches) {
            for (Q item : items) {
                out.collect(new WindowEstimate<>(key, start, end, item,
                        CountMinAggregate.estimate(sketch, queryItem, item), CountMinEstimate.errorBound(sketch),
                        sketch.totalWeight()));
            }
        }
    }
}
