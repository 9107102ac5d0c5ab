package io.linerate.flink.countmin;

import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.Collector;

/** Attaches key and window bounds to a window's sketch ({@link CountMinAggregate#sketchesOf}). */
final class WindowSketches<K, W extends Window> extends ProcessWindowFunction<CountMinSketch, WindowSketch<K>, K, W> {

    private static final long serialVersionUID = 1L;

    @Override
    public void process(K key, Context context, Iterable<CountMinSketch> sketches, Collector<WindowSketch<K>> out) {
        for (CountMinSketch sketch : sketches) {
            out.collect(new WindowSketch<>(key, start(context.window()), end(context.window()), sketch));
        }
    }

    static long start(Window window) {
        return window instanceof TimeWindow tw ? tw.getStart() : Long.MIN_VALUE;
    }

    static long end(Window window) {
        if (window instanceof TimeWindow tw) {
            return tw.getEnd();
        }
        long max = window.maxTimestamp();
        return max == Long.MAX_VALUE ? Long.MAX_VALUE : max + 1; // a GlobalWindow ends at Long.MAX_VALUE: do not wrap
    }
}
