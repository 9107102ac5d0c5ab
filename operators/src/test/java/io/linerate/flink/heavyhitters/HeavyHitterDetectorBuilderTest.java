package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.SpaceSaving;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every configuration error fails in build(), naming the parameter and the limit. */
class HeavyHitterDetectorBuilderTest {

    @Test
    void windowAndSlideMustBePositiveAndDivide() {
        assertThatThrownBy(() -> Fixtures.builder().tumbling(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("windowSize must be > 0 ms, got PT0S");
        assertThatThrownBy(() -> Fixtures.builder().tumbling(Duration.ofSeconds(-1)).build())
                .hasMessageStartingWith("windowSize must be > 0");
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofSeconds(10), Duration.ZERO).build())
                .hasMessage("slide must be > 0 ms, got PT0S");
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofSeconds(10), Duration.ofSeconds(3)).build())
                .hasMessage("windowSize must be a multiple of slide, got windowSize PT10S and slide PT3S");
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofSeconds(10), Duration.ofMillis(1)).build())
                .hasMessage("windowSize / slide must be ≤ 1024, got 10000");
        // event time is in ms: a fraction of one would be cut off silently
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofMillis(3).plusNanos(500_000),
                Duration.ofMillis(1)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("windowSize must be a whole number of milliseconds (event time is in ms), got PT0.0035S");
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofSeconds(1), Duration.ofNanos(1)).build())
                .hasMessageStartingWith("slide must be a whole number of milliseconds");
        assertThatThrownBy(() -> Fixtures.builder().tumbling(Duration.ofSeconds(Long.MAX_VALUE)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("windowSize must be at most 9223372036854775807 ms, got PT");
    }

    /**
     * tumbling(..) after sliding(..), or the reverse, silently replaced the first window: build() fails naming both;
     * the same kind twice replaces the window, as any setter called twice.
     */
    @Test
    void tumblingAndSlidingTogetherFailNamingBoth() {
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofMinutes(5), Duration.ofMinutes(1))
                .tumbling(Duration.ofMinutes(1)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set either tumbling(size) or sliding(size, slide), not both (got sliding(PT5M, PT1M) and"
                        + " tumbling(PT1M))");
        assertThatThrownBy(() -> Fixtures.builder().tumbling(Duration.ofMinutes(1))
                .sliding(Duration.ofMinutes(5), Duration.ofMinutes(1)).tumbling(Duration.ofMinutes(2)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set either tumbling(size) or sliding(size, slide), not both (got tumbling(PT1M) and"
                        + " sliding(PT5M, PT1M))");
        assertThat(Fixtures.builder().tumbling(Duration.ofMinutes(1)).tumbling(Duration.ofMinutes(2)).build()
                .windowSize()).isEqualTo(Duration.ofMinutes(2));
        var twice = Fixtures.builder().sliding(Duration.ofMinutes(5), Duration.ofMinutes(1))
                .sliding(Duration.ofMinutes(4), Duration.ofMinutes(2)).build();
        assertThat(twice.windowSize()).isEqualTo(Duration.ofMinutes(4));
        assertThat(twice.slide()).isEqualTo(Duration.ofMinutes(2));
    }

    /** A budget chooses the CM-heap's shape: an explicit shape as well is an error, and building twice is the same. */
    @Test
    void aMemoryBudgetAndAnExplicitSketchShapeDoNotMix() {
        assertThatThrownBy(() -> Fixtures.builder().phi(0.01).countMinHeap(1000, 5).memoryBudget(1 << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set either countMinHeap(width, depth) or memoryBudget, not both: the budget chooses the"
                        + " sketch's shape (got width 1000, depth 5 and memoryBudget 1048576)");
        var reused = Fixtures.builder().phi(0.01).countMinHeap().memoryBudget(1 << 16);
        HeavyHitterDetector<?, ?> first = reused.build();
        HeavyHitterDetector<?, ?> again = reused.build(); // the budget's shape is not written back into the builder
        HeavyHitterDetector<?, ?> byCapacity = Fixtures.builder().phi(0.01).countMinHeap().capacity(400).build();
        assertThat(again.cmWidth).isEqualTo(first.cmWidth).isNotEqualTo(byCapacity.cmWidth);
        assertThat(again.cmDepth).isEqualTo(first.cmDepth);
        assertThat(again.capacity()).isEqualTo(first.capacity());
    }

    /**
     * A second, different tracker call would silently undo the first (countMinHeap() after countMinHeap(w, d) reset
     * the shape, spaceSaving() after either dropped the CM-heap): build() fails naming both; the same call twice builds.
     */
    @Test
    void twoDifferentTrackerChoicesFailNamingBoth() {
        assertThatThrownBy(() -> Fixtures.builder().phi(0.01).countMinHeap(1000, 5).countMinHeap().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set one tracker, once: got countMinHeap(1000, 5) and countMinHeap()");
        assertThatThrownBy(() -> Fixtures.builder().phi(0.01).countMinHeap().spaceSaving().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("set one tracker, once: got countMinHeap() and spaceSaving()");
        assertThat(Fixtures.builder().phi(0.01).countMinHeap(1000, 5).countMinHeap(1000, 5).build().cmWidth)
                .isEqualTo(1000);
        assertThat(Fixtures.builder().phi(0.01).spaceSaving().spaceSaving().build().trackerKind())
                .isEqualTo(TrackerKind.SPACE_SAVING);
    }

    /**
     * A budget chooses the capacity, so both is a conflict: it failed naming both, as the Count-Min builders' errors
     * and memory do, rather than the later call silently replacing the earlier (it did, in either order).
     */
    @Test
    void capacityAndMemoryBudgetDoNotMix() {
        for (boolean cm : new boolean[] {false, true}) {
            var capacityFirst = Fixtures.builder().phi(0.01).capacity(400).memoryBudget(1 << 20);
            var budgetFirst = Fixtures.builder().phi(0.01).memoryBudget(1 << 20).capacity(400);
            for (var builder : List.of(capacityFirst, budgetFirst)) {
                if (cm) {
                    builder.countMinHeap();
                }
                assertThatThrownBy(builder::build).as("cm %s", cm).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("set either capacity(m) or memoryBudget(bytes), not both: the budget chooses the"
                                + " capacity (got capacity 400 and memoryBudget 1048576)");
            }
        }
    }

    @Test
    void kAndPhiAreChecked() {
        assertThatThrownBy(() -> Fixtures.builder().topK(0).build()).hasMessage("k must be > 0, got 0");
        assertThatThrownBy(() -> Fixtures.builder().phi(0).build()).hasMessage("phi must be in (0, 1), got 0.0");
        assertThatThrownBy(() -> Fixtures.builder().phi(1).build()).hasMessage("phi must be in (0, 1), got 1.0");
        assertThatThrownBy(() -> Fixtures.builder().phi(Double.NaN).build()).hasMessageStartingWith("phi must be");
    }

    @Test
    void stateCacheBytesIsNotNegative() {
        assertThatThrownBy(() -> Fixtures.builder().stateCacheBytes(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("stateCacheBytes must be >= 0, got -1");
        assertThat(Fixtures.builder().build().stateCacheBytes()).isEqualTo(64L << 20);
        assertThat(Fixtures.builder().stateCacheBytes(0).build().stateCacheBytes()).isZero();
    }

    /** Space-Saving with m counters misses no item heavier than N/m, so m must exceed 1/φ (and hold k items). */
    @Test
    void capacityMustCoverOneOverPhiAndK() {
        assertThatThrownBy(() -> Fixtures.builder().phi(0.01).topK(10).capacity(100).build())
                .hasMessage("capacity must be in [max(k, ⌊1/phi⌋ + 1), 67108864] = [101, 67108864] for k 10 and phi"
                        + " 0.01, got 100");
        assertThatThrownBy(() -> Fixtures.builder().phi(0.5).topK(50).capacity(49).build())
                .hasMessageContaining("[50, 67108864]");
        assertThat(Fixtures.builder().phi(0.01).capacity(101).build().capacity()).isEqualTo(101);
        assertThat(Fixtures.builder().phi(0.001).topK(20).build().capacity()).isEqualTo(4000);
        assertThat(Fixtures.builder().phi(0.2).topK(20).build().capacity()).isEqualTo(80);
    }

    @Test
    void memoryBudgetTooSmallForPhiFailsNamingIt() {
        long needed = SpaceSaving.withCapacity(Fixtures.ITEM.keyKind(), 1001, 0).memoryBytes();
        assertThatThrownBy(() -> Fixtures.builder().phi(0.001).memoryBudget(needed - 1).build())
                .hasMessageStartingWith("memoryBudget of " + (needed - 1) + " bytes holds 1000 SPACE_SAVING counters,"
                        + " fewer than max(k, ⌊1/phi⌋ + 1) = 1001")
                .hasMessageEndingWith("it needs at least " + needed + " bytes");
        assertThat(Fixtures.builder().phi(0.001).memoryBudget(needed).build().capacity()).isEqualTo(1001);
        assertThat(Fixtures.builder().phi(0.001).memoryBudget(needed).build().trackerBytes())
                .isLessThanOrEqualTo(needed);
        assertThatThrownBy(() -> Fixtures.builder().phi(0.1).memoryBudget(3).build())
                .hasMessageStartingWith("memoryBudget of 3 bytes holds 0 SPACE_SAVING counters");
        assertThatThrownBy(() -> Fixtures.builder().phi(0.001).countMinHeap().memoryBudget(needed).build())
                .hasMessageStartingWith("memoryBudget of " + needed + " bytes holds")
                .hasMessageContaining("COUNT_MIN_HEAP");
        var cmh = Fixtures.builder().phi(0.01).countMinHeap().memoryBudget(1 << 20).build();
        assertThat(cmh.trackerKind()).isEqualTo(TrackerKind.COUNT_MIN_HEAP);
        assertThat(cmh.trackerBytes()).isLessThanOrEqualTo(1 << 20);
    }

    /**
     * build() sizes the trackers from the budget without building one: it built two (the budget's, then one to
     * check), 256 MiB each here, where the job is built.
     */
    @Test
    void buildAllocatesNoTracker() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long budget = 256L << 20;
        for (boolean cm : new boolean[] {false, true}) {
            var builder = Fixtures.builder().phi(0.001);
            if (cm) {
                builder.countMinHeap();
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            HeavyHitterDetector<?, ?> built = builder.memoryBudget(budget).build();
            assertThat(threads.getCurrentThreadAllocatedBytes() - before).as("cm %s", cm).isLessThan(64L << 20);
            assertThat(built.trackerBytes()).isLessThanOrEqualTo(budget).isGreaterThan(budget * 9 / 10);
        }
        // a tracker whose image could not be checkpointed once full is refused at build time
        assertThatThrownBy(() -> Fixtures.builder().phi(0.01).countMinHeap((int) (CountMinSketch.MAX_COUNTERS / 4), 4).build())
                .hasMessageContaining("is too large for");
    }

    @Test
    void alertThresholdsAndSketchShapeAreChecked() {
        assertThatThrownBy(() -> Fixtures.builder().alertAtWeight(-1).build())
                .hasMessage("alertAtWeight must be > 0 (or 0: off), got -1");
        assertThatThrownBy(() -> Fixtures.builder().alertAtFraction(1.5, 0).build())
                .hasMessage("alertAtFraction fraction must be in (0, 1], got 1.5");
        assertThatThrownBy(() -> Fixtures.builder().alertAtFraction(0.5, -1).build())
                .hasMessage("alertAtFraction minWindowWeight must be ≥ 0, got -1");
        // a fraction of 0 (or -0.0) asked for explicitly is outside (0, 1] too: it must not turn the alerts off silently
        assertThatThrownBy(() -> Fixtures.builder().alertAtFraction(0.0, 1_000).build())
                .hasMessage("alertAtFraction fraction must be in (0, 1], got 0.0");
        assertThatThrownBy(() -> Fixtures.builder().alertAtFraction(-0.0, 1_000).build())
                .hasMessage("alertAtFraction fraction must be in (0, 1], got -0.0");
        assertThatThrownBy(() -> Fixtures.builder().countMinHeap(0, 4).build())
                .hasMessage("countMinHeap width must be ≥ 1, got 0");
        assertThatThrownBy(() -> Fixtures.builder().countMinHeap(100, 0).build())
                .hasMessage("countMinHeap depth must be in [1, 64], got 0");
    }

    /** At least the n sub-windows of a window, at most what the ring's serializer reads back (65,536 slots). */
    @Test
    void maxOpenSubWindowsIsCheckedAndDefaultsToNPlusMaxOfNAnd64() {
        assertThatThrownBy(() -> Fixtures.builder().sliding(Duration.ofSeconds(3), Duration.ofSeconds(1))
                .maxOpenSubWindows(2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxOpenSubWindows must be in [windowSize / slide, 65536] = [3, 65536], got 2");
        assertThatThrownBy(() -> Fixtures.builder().maxOpenSubWindows(65_537).build())
                .hasMessage("maxOpenSubWindows must be in [windowSize / slide, 65536] = [1, 65536], got 65537");
        assertThat(Fixtures.builder().maxOpenSubWindows(65_536).build().maxOpenSubWindows()).isEqualTo(65_536);
        assertThat(Fixtures.builder().build().maxOpenSubWindows()).isEqualTo(1 + 64);
        assertThat(Fixtures.builder().sliding(Duration.ofMinutes(5), Duration.ofMinutes(1)).build()
                .maxOpenSubWindows()).isEqualTo(5 + 64);
        assertThat(Fixtures.builder().sliding(Duration.ofSeconds(1024), Duration.ofSeconds(1)).build()
                .maxOpenSubWindows()).isEqualTo(2 * 1024);
    }

    @Test
    void defaultsAreATumblingMinuteTop10AtOnePercent() {
        var d = Fixtures.builder().build();
        assertThat(d.windowSize()).isEqualTo(Duration.ofMinutes(1));
        assertThat(d.slide()).isEqualTo(Duration.ofMinutes(1));
        assertThat(d.subWindows()).isEqualTo(1);
        assertThat(d.k()).isEqualTo(10);
        assertThat(d.phi()).isEqualTo(0.01);
        assertThat(d.trackerKind()).isEqualTo(TrackerKind.SPACE_SAVING);
        assertThat(d.toString()).isEqualTo(
                "HeavyHitterDetector[window=PT1M, slide=PT1M, k=10, phi=0.01, SPACE_SAVING capacity=400]");
        var sliding = Fixtures.builder().sliding(Duration.ofMinutes(5), Duration.ofMinutes(1)).countMinHeap().build();
        assertThat(sliding.subWindows()).isEqualTo(5);
        assertThat(sliding.toString()).endsWith("COUNT_MIN_HEAP capacity=400 width=544 depth=4]"); // ⌈2e/0.01⌉
    }
}
