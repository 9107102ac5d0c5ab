package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.hash.ItemHasher;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.junit.jupiter.api.Test;

/** Build-time validation naming the parameter, and the sizing formulas. */
class DeduplicatorBuilderTest {

    private static Deduplicator.Builder<Tuple3<String, Long, Long>, String> valid() {
        return DedupHarnesses.builder(Duration.ofMinutes(10), 4).eventTime().expectedRate(100).fpp(0.001);
    }

    private static void rejects(UnaryOperator<Deduplicator.Builder<Tuple3<String, Long, Long>, String>> change,
                                String message) {
        assertThatThrownBy(() -> change.apply(valid()).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void everyBadParameterFailsAtBuildNamingItAndTheLimit() {
        rejects(b -> b.horizon(Duration.ZERO), "horizon must be > 0, got PT0S");
        rejects(b -> b.horizon(Duration.ofMillis(-5)), "horizon must be > 0, got PT-0.005S");
        rejects(b -> b.horizon(null), "horizon must be set");
        rejects(b -> b.horizon(Duration.ofMillis(2)), "horizon must be at least generations - 1 = 3 ms");
        rejects(b -> b.fpp(0), "fpp must be in (0, 1), got 0.0");
        rejects(b -> b.fpp(1), "fpp must be in (0, 1), got 1.0");
        rejects(b -> b.fpp(Double.NaN), "fpp must be in (0, 1), got NaN");
        rejects(b -> b.expectedRate(0), "expectedRate must be > 0 items per second and finite, got 0.0");
        rejects(b -> b.expectedRate(Double.POSITIVE_INFINITY), "expectedRate must be > 0");
        rejects(b -> b.generations(1), "generations must be in [2, 64], got 1");
        rejects(b -> b.generations(65), "generations must be in [2, 64], got 65");
        rejects(b -> b.memoryBudget(0), "memoryBudget must be > 0 bytes, got 0");
        rejects(b -> b.memoryBudget(10_000), "memoryBudget of 10000 bytes per key is too small: horizon=PT10M, "
                + "generations=4, expectedRate=100.0, fpp=0.001 need");
        rejects(b -> b.expectedRate(1e9), "items per generation, above the limit");
        rejects(b -> b.expectedRate(3e6), "the state limit of");
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofMinutes(10), 4).processingTime().expectedRate(100)
                .fpp(0.001).timestamps(r -> r.f2).build())
                .hasMessage("timestamps(..) needs eventTime(), got processingTime()");
        assertThatThrownBy(() -> Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .item(ItemSelector.longs(r -> r.f1)).horizon(Duration.ofSeconds(1)).processingTime()
                .expectedRate(1).fpp(0.1).build()).hasMessage("scope must be set");
        assertThatThrownBy(() -> Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING).horizon(Duration.ofSeconds(1)).processingTime()
                .expectedRate(1).fpp(0.1).build()).hasMessage("item must be set");
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofSeconds(1), 4).expectedRate(1).fpp(0.1).build())
                .hasMessage("time must be chosen: call eventTime() or processingTime()");
    }

    /**
     * Event and processing time are two choices, not one refining the other: choosing both failed naming both,
     * whichever came last (before, the later call silently won). The same choice twice is no conflict.
     */
    @Test
    void eventTimeAndProcessingTimeTogetherFailNamingBoth() {
        String both = "set either eventTime() or processingTime(), not both";
        assertThatThrownBy(() -> valid().processingTime().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(both);
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofMinutes(10), 4).processingTime().eventTime()
                .expectedRate(100).fpp(0.001).build()).isInstanceOf(IllegalArgumentException.class).hasMessage(both);
        assertThat(valid().eventTime().build().isEventTime()).isTrue();
        assertThat(DedupHarnesses.builder(Duration.ofMinutes(10), 4).processingTime().processingTime()
                .expectedRate(100).fpp(0.001).build().isEventTime()).isFalse();
    }

    /** An option never set is named as unset, not reported as the builder's placeholder ("got NaN"). */
    @Test
    void anUnsetRateOrFppSaysItMustBeSet() {
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofSeconds(1), 4).eventTime().fpp(0.1).build())
                .hasMessage("expectedRate must be set: expectedRate(distinct items per second per key)");
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofSeconds(1), 4).eventTime().expectedRate(1).build())
                .hasMessage("fpp must be set: fpp(p), p in (0, 1)");
    }

    @Test
    void sizingFollowsTheFormulas() {
        DedupSizing s = valid().build().sizing();
        assertThat(s.spanMillis()).as("S = ceil(H / (g - 1))").isEqualTo(200_000);
        assertThat(s.itemsPerGeneration()).as("n = ceil(rate * S)").isEqualTo(20_000);
        double pg = s.fppPerGeneration();
        assertThat(1 - Math.pow(1 - pg, 4)).as("1 - (1 - p_g)^g = p").isCloseTo(0.001, org.assertj.core.data.Offset.offset(1e-15));
        BlockedBloomFilter reference = BlockedBloomFilter.create(20_000, pg, 42);
        assertThat(s.bitsPerGeneration()).isEqualTo(reference.bitSize());
        assertThat(s.hashCount()).isEqualTo(reference.hashCount());
        assertThat(s.seed()).isEqualTo(42);
        // a horizon not divisible by g - 1 rounds the span up, so that (g - 1)·S ≥ H still holds
        DedupSizing odd = valid().horizon(Duration.ofMillis(1001)).build().sizing();
        assertThat(odd.spanMillis()).isEqualTo(334);
        assertThat(3 * odd.spanMillis()).isGreaterThanOrEqualTo(1001);
        // the default seed is the documented fixed one
        var byDefault = Deduplicator.<Tuple3<String, Long, Long>, String>builder().scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.longs(r -> r.f1)).horizon(Duration.ofSeconds(3)).processingTime().expectedRate(1)
                .fpp(0.01).build();
        assertThat(byDefault.sizing().seed()).isEqualTo(ItemHasher.DEFAULT_SEED);
        assertThat(byDefault.sizing().generations()).isEqualTo(Deduplicator.Builder.DEFAULT_GENERATIONS);
    }

    @Test
    void aBudgetThatFitsIsAccepted() {
        long need = valid().build().sizing().stateBytesPerKey();
        assertThat(valid().memoryBudget(need).build().sizing().stateBytesPerKey()).isEqualTo(need);
        assertThatThrownBy(() -> valid().memoryBudget(need - 1).build()).hasMessageContaining("memoryBudget of "
                + (need - 1) + " bytes per key is too small").hasMessageContaining("need " + need + " bytes per key");
    }

    /**
     * A tiny fpp passes the standard filter's lower bound but needs a blocked filter (k ≤ 32 bits in a block) beyond
     * any state value: the error names the builder's parameters and limit, not the filter's per-generation figures.
     */
    @Test
    void aTinyFppFailsNamingTheBuildersParametersAndLimit() {
        var b = DedupHarnesses.builder(java.time.Duration.ofSeconds(3), 4).processingTime().expectedRate(1)
                .fpp(1e-100);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.memoryBudget(1_000_000).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("memoryBudget of 1000000 bytes per key is too small: horizon=PT3S, "
                        + "generations=4, expectedRate=1.0, fpp=1.0E-100 need a filter larger than any");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DedupHarnesses.builder(java.time.Duration.ofSeconds(3),
                4).processingTime().expectedRate(1).fpp(1e-100).build())
                .hasMessageStartingWith("the state limit of 2147483639 bytes per key (one state value) is too small");
    }
}
