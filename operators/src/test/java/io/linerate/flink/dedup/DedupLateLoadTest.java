package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.flink.api.java.tuple.Tuple3;
import org.junit.jupiter.api.Test;

/** Out-of-order and late records load generations after they closed: the load is reported, and its limits documented. */
class DedupLateLoadTest {

    /**
     * dedup.md: "overCapacityGenerations counts generations that closed with more than n distinct items" and "Above
     * the rate ... the operator reports it". Since 45fd86f a generation keeps taking its span's stragglers after it
     * closed, so a generation can end far over n while the counter, judged only at the close, stays at 0.
     * n = 100 (rate 100/s, S = 1 s); epoch 0 takes 90 items, closes (a record of epoch 1), then takes 200 stragglers
     * stamped in epoch 0 (not late: 1 s behind, H = 3 s): 290 distinct items, 2.9·n.
     */
    @Test
    void aGenerationThatGoesOverCapacityAfterItClosedIsCounted() throws Exception {
        var dedup = DedupModelTest.dedup(true, 3000, 4, 100, 0.01);
        assertThat(dedup.sizing().itemsPerGeneration()).isEqualTo(100);
        DedupModelTest.Harness run = DedupModelTest.open(dedup, null, null);
        long item = 0;
        for (long t = 0; t < 90; t++) {
            run.h().processElement(Tuple3.of("k", item++, t), t);
        }
        run.h().processElement(Tuple3.of("k", item++, 1000L), 1000L); // epoch 1: generation 0 closes with 90
        for (long t = 100; t < 300; t++) {
            run.h().processElement(Tuple3.of("k", item++, t), t); // stragglers of epoch 0, 1 s behind: not late
        }
        ((org.apache.flink.streaming.api.operators.AbstractStreamOperator<?>) run.h().getOperator()).setCurrentKey("k");
        assertThat(run.fn().currentRing().inserted(0)).as("generation 0's items (290 less false positives)")
                .isGreaterThan(250);
        assertThat(run.fn().lateRecords()).isZero();
        run.h().processWatermark(20_000); // every generation rotates out
        assertThat(run.fn().overCapacityGenerations()).as("generation 0 held 290 > n = 100").isEqualTo(1);
        run.h().close();
    }

    /**
     * Guarantee 2 as stated since 45fd86f: "at most expectedRate distinct items per second (of event time in event
     * time) ... each generation holds at most n ... out-of-order records included". A key fed by two sources, one
     * 10 s behind the other (late records, which dedup.md says are still deduplicated), each event-time second
     * holding 500 + 500 = 1000 distinct items = the rate; the lagging source catches up (its backlog of 10 s of event
     * time arrives within one span of the key's clock). Every record more than g spans behind goes into the oldest
     * kept generation, which then holds ~5500 items (5.5·n) and new items are flagged far above p (18.5% at p = 1%).
     * dedup.md now states this exception to guarantee 2; overCapacityGenerations reports it (it stayed 0).
     */
    @Test
    void aBacklogOfLateRecordsOverloadsTheOldestGenerationAndIsReported() throws Exception {
        double p = 0.01;
        var dedup = DedupModelTest.dedup(true, 3000, 4, 1000, p);
        assertThat(dedup.sizing().itemsPerGeneration()).isEqualTo(1000);
        DedupModelTest.Harness run = DedupModelTest.open(dedup, null, null);
        SplittableRandom rnd = new SplittableRandom(7);
        long flagged = 0;
        long counted = 0;
        // source A: 500 items per second, ms 2k and 2k+1 ... (one every 2 ms), at t in [20 s, 30 s)
        // source B: 500 items per second of [0, 20 s): delayed, arrives in bursts of 10 s of event time during
        // A's seconds 20 and 25 (interleaved: 10 B records per A record)
        long bNext = 0;
        for (long t = 20_000; t < 30_000; t += 2) {
            run.h().processElement(Tuple3.of("k", rnd.nextLong(), t), t);
            drainAll(run);
            for (int j = 0; j < 10 && bNext < 20_000; j++, bNext += 2) {
                long bt = bNext + 1; // odd ms: B's half of second bt/1000
                run.h().processElement(Tuple3.of("k", rnd.nextLong(), bt), bt);
                int dups = drainAll(run);
                if (t >= 21_000) {
                    counted++;
                    flagged += dups;
                }
            }
        }
        System.out.printf(Locale.ROOT,
                "late catch-up: %d of %d new items flagged (%.4f), overCapacity %d, late %d%n", flagged,
                counted, (double) flagged / counted, run.fn().overCapacityGenerations(), run.fn().lateRecords());
        assertThat((double) flagged).as("new (late) items flagged at p = %s: the documented exception", p)
                .isGreaterThan(p * counted + 4 * Math.sqrt(p * (1 - p) * counted));
        assertThat(run.fn().overCapacityGenerations()).as("the overloaded oldest generation is reported")
                .isGreaterThanOrEqualTo(1);
        run.h().close();
    }

    private static int drainAll(DedupModelTest.Harness run) {
        run.h().getOutput().clear();
        int n = 0;
        var q = run.h().getSideOutput(Deduplicator.duplicatesTag(TYPE));
        if (q != null) {
            while (q.poll() != null) {
                n++;
            }
        }
        return n;
    }
}
