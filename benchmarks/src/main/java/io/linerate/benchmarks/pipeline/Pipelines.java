package io.linerate.benchmarks.pipeline;

import io.linerate.benchmarks.pipeline.linerate.LinerateDedup;
import io.linerate.benchmarks.pipeline.linerate.LinerateFlowMeter;
import io.linerate.benchmarks.pipeline.linerate.LinerateHeavyHitters;

import io.linerate.benchmarks.pipeline.plain.DiscardPipeline;
import io.linerate.benchmarks.pipeline.plain.FlinkDedup;
import io.linerate.benchmarks.pipeline.plain.FlinkFlowMeter;
import io.linerate.benchmarks.pipeline.plain.FlinkHeavyHitters;
import io.linerate.benchmarks.pipeline.plain.KeyedDiscardPipeline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The pipelines the benchmark knows, by name, in the order it runs them by default. */
public final class Pipelines {

    /**
     * Every pipeline. The baselines come first: the discard ceilings (chained, and through one keyBy on the link),
     * then plain Flink. The linerate operators'
     * pipelines ({@code linerate-heavy-hitters}, {@code linerate-flow-meter}, {@code linerate-dedup}) go after them,
     * each naming its plain counterpart in {@link Pipeline#comparedWith()}.
     */
    public static final List<Pipeline> ALL = List.of(
            new DiscardPipeline(),
            new KeyedDiscardPipeline(),
            new FlinkHeavyHitters(),
            new FlinkDedup(),
            new FlinkFlowMeter(),
            new LinerateHeavyHitters(),
            new LinerateDedup(),
            new LinerateFlowMeter());

    private Pipelines() {
    }

    /** Every pipeline by name. */
    public static Map<String, Pipeline> byName() {
        Map<String, Pipeline> map = new LinkedHashMap<>();
        for (Pipeline p : ALL) {
            if (map.put(p.name(), p) != null) {
                throw new IllegalStateException("two pipelines are named " + p.name());
            }
        }
        return map;
    }

    /** The pipelines named, in the order given; fails naming an unknown one and listing the known. */
    public static List<Pipeline> select(List<String> names) {
        Map<String, Pipeline> known = byName();
        List<Pipeline> out = new ArrayList<>();
        for (String name : names) {
            Pipeline p = known.get(name);
            if (p == null) {
                throw new IllegalArgumentException("--pipelines: unknown pipeline '" + name + "', known: "
                        + String.join(", ", known.keySet()));
            }
            out.add(p);
        }
        return out;
    }
}
