package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import org.apache.flink.api.java.tuple.Tuple3;
import org.junit.jupiter.api.Test;

/**
 * Guarantee 2's premise. The docs and Javadoc derived "at most n = ⌈rate·S⌉ distinct items per generation" from "at
 * most expectedRate distinct items per second"; that holds for spans of whole seconds, not for a span shorter than
 * a second (any horizon below 3 s at the default g = 4), where a second's items may all fall in one span: 1000 new
 * items per second, each second's in its first 250 ms, flag 7.5% of new items at p = 1%. The docs now state the
 * premise per span; the overload is reported by overCapacityGenerations.
 */
class DedupRatePremiseTest {

    @Test
    void aSecondsItemsInOneSubSecondSpanOverloadItsGenerationAndTheCounterSaysSo() throws Exception {
        // 1000 new items per second either way: spread over the second (250 per span of 250 ms, the rate holds at
        // the span's scale) or all in its first 250 ms (the rate per second holds, per span it is 4 times over)
        long[] evenly = run(1);
        long[] burst = run(4);
        double p = 0.01;
        double bound = p * evenly[0] + 4 * Math.sqrt(p * (1 - p) * evenly[0]);
        assertThat(evenly[2]).isZero();
        assertThat((double) evenly[1]).isLessThanOrEqualTo(bound);
        assertThat(burst[2]).as("overCapacityGenerations").isPositive();
        assertThat((double) burst[1]).isGreaterThan(3 * bound); // the docs claimed at most p
    }

    /** Per second 1000 new items, {@code perMilli} per ms from the second's start; {new items, flagged, over}. */
    private static long[] run(int perMilli) throws Exception {
        Deduplicator<Tuple3<String, Long, Long>, String> dedup = DedupHarnesses.builder(Duration.ofMillis(750), 4)
                .eventTime().expectedRate(1000).fpp(0.01).build();
        assertThat(dedup.sizing().spanMillis()).isEqualTo(250);
        assertThat(dedup.sizing().itemsPerGeneration()).isEqualTo(250);
        DedupHarnesses.Run run = DedupHarnesses.open(dedup);
        SplittableRandom rnd = new SplittableRandom(7);
        long all = 0;
        long flagged = 0;
        for (int second = 0; second < 30; second++) {
            run.harness().processWatermark(second * 1000L - 1);
            for (int i = 0; i < 1000; i++) {
                long t = second * 1000L + i / perMilli;
                boolean dup = run.process(Tuple3.of("k", rnd.nextLong(), t), t);
                if (second >= 4) {
                    all++;
                    flagged += dup ? 1 : 0;
                }
            }
        }
        long over = run.function().overCapacityGenerations();
        run.close();
        return new long[] {all, flagged, over};
    }
}
