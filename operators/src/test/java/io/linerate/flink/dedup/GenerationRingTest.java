package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Rotation of the ring on its own: what each advance keeps, drops and counts. */
class GenerationRingTest {

    private static final DedupSizing SIZING = DedupSizing.derive(Duration.ofSeconds(3), 4, 2, 0.01, 1, 0);

    private static boolean testAndPut(GenerationRing ring, long item) {
        long h1 = ItemHasher.seeded(1).hash(item);
        return (ring.testAndPut(h1, ItemHasher.h2(h1), SIZING) & GenerationRing.SEEN) != 0;
    }

    @Test
    void anItemStaysForExactlyGEpochsCountingItsOwn() {
        GenerationRing ring = new GenerationRing(4, 1, 10, 10_000);
        assertThat(testAndPut(ring, 7)).isFalse();
        assertThat(testAndPut(ring, 7)).as("same generation").isTrue();
        assertThat(ring.advanceTo(13, SIZING.itemsPerGeneration())).isZero();
        assertThat(ring.generation(10)).as("epoch 10 is the oldest of 10..13").isNotNull();
        assertThat(ring.advanceTo(14, SIZING.itemsPerGeneration())).isZero();
        assertThat(ring.generation(10)).isNull();
        assertThat(ring.isEmpty()).isTrue();
        assertThat(testAndPut(ring, 7)).isFalse();
    }

    @Test
    void anAdvanceCountsTheClosingGenerationOverCapacityOnce() {
        GenerationRing ring = new GenerationRing(4, 1, 0, 0);
        for (long i = 0; i < 5; i++) {
            testAndPut(ring, i); // capacity n = 2 at 2 items per second and S = 1 s
        }
        assertThat(ring.inserted(0)).isEqualTo(5);
        assertThat(ring.advanceTo(2, SIZING.itemsPerGeneration())).isEqualTo(1);
        assertThat(ring.advanceTo(3, SIZING.itemsPerGeneration())).as("epoch 2 was empty").isZero();
        assertThat(ring.inserted(0)).isEqualTo(5);
    }

    @Test
    void aJumpAcrossTheWholeRangeOfEpochsDropsEverything() {
        GenerationRing ring = new GenerationRing(4, 1, Long.MIN_VALUE / 2, 0);
        testAndPut(ring, 1);
        ring.advanceTo(Long.MAX_VALUE / 2 + 10, 2); // the distance overflows a long
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.epoch()).isEqualTo(Long.MAX_VALUE / 2 + 10);
    }

    /** With a span of 1 ms the last epoch is Long.MAX_VALUE itself: advancing there must end (a loop to it wrapped). */
    @Test
    void advancingToTheLastEpochEnds() {
        GenerationRing ring = new GenerationRing(4, 1, 0, 0);
        testAndPut(ring, 1);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5),
                () -> ring.advanceTo(Long.MAX_VALUE, 2));
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.epoch()).isEqualTo(Long.MAX_VALUE);
    }

    private static int testAndPutResult(GenerationRing ring, long item) {
        long h1 = ItemHasher.seeded(1).hash(item);
        return ring.testAndPut(h1, ItemHasher.h2(h1), SIZING);
    }

    @Test
    void aRepeatInTheCurrentGenerationIsNotInsertedAgainButARepeatFromAnOlderOneIsRefreshed() {
        GenerationRing ring = new GenerationRing(4, 1, 0, 0);
        assertThat(testAndPutResult(ring, 7)).isEqualTo(GenerationRing.CHANGED);
        byte[] bits = ring.generation(0).toByteArray();
        for (int i = 0; i < 10; i++) {
            assertThat(testAndPutResult(ring, 7)).as("seen in the current generation: no write")
                    .isEqualTo(GenerationRing.SEEN);
        }
        assertThat(ring.inserted(0)).as("one insertion per distinct item per generation").isEqualTo(1);
        assertThat(ring.generation(0).toByteArray()).isEqualTo(bits);
        ring.advanceTo(2, SIZING.itemsPerGeneration());
        assertThat(testAndPutResult(ring, 7)).as("found only in generation 0: refreshed into generation 2")
                .isEqualTo(GenerationRing.SEEN | GenerationRing.CHANGED);
        assertThat(ring.inserted(2)).isEqualTo(1);
        ring.advanceTo(4, SIZING.itemsPerGeneration()); // generation 0 dropped, 2 kept
        assertThat(testAndPutResult(ring, 7) & GenerationRing.SEEN).isNotZero();
    }

    /**
     * The class contract: a record behind the ring (more than g − 1 epochs behind the current one) is inserted into
     * the oldest kept generation, epoch − g + 1, not the current one; so it is forgotten at the next advance, and
     * the current generation's load is unchanged. A record within the ring loads its own epoch's generation.
     */
    @Test
    void aLateRecordLoadsTheOldestKeptGenerationAndAnOutOfOrderOneItsOwn() {
        GenerationRing ring = new GenerationRing(4, 1, 10, 10_000);
        long h1 = ItemHasher.seeded(1).hash(99L);
        assertThat(ring.testAndPut(h1, ItemHasher.h2(h1), SIZING, 2) & GenerationRing.SEEN).isZero(); // 8 behind
        assertThat(ring.inserted(7)).as("the oldest kept generation, 10 - 4 + 1").isEqualTo(1);
        assertThat(ring.inserted(10)).as("the current generation").isZero();
        long o1 = ItemHasher.seeded(1).hash(98L);
        ring.testAndPut(o1, ItemHasher.h2(o1), SIZING, 9); // one behind: its own generation
        assertThat(ring.inserted(9)).isEqualTo(1);
        assertThat(ring.inserted(10)).isZero();
        ring.advanceTo(11, SIZING.itemsPerGeneration()); // epoch 7 drops out
        assertThat(testAndPut(ring, 99)).as("the late item went with the oldest generation").isFalse();
        assertThat(testAndPut(ring, 98)).as("epoch 9 is still kept").isTrue();
    }

    /**
     * The OVER_CAPACITY bit (counted as overCapacityGenerations): a generation that closed within its capacity n and
     * then takes stragglers of its span reports it with its (n + 1)-th distinct item, exactly once; not with the
     * n-th, not again after. n = 2 here.
     */
    @Test
    void aClosedGenerationReportsOverCapacityWithItsNPlusFirstItemOnce() {
        assertThat(SIZING.itemsPerGeneration()).isEqualTo(2);
        GenerationRing ring = new GenerationRing(4, 1, 0, 0);
        assertThat(stamped(ring, 100, 0) & GenerationRing.OVER_CAPACITY).isZero();
        assertThat(ring.advanceTo(1, SIZING.itemsPerGeneration())).as("closed with 1 item").isZero();
        assertThat(stamped(ring, 101, 0) & GenerationRing.OVER_CAPACITY).as("the n-th item").isZero();
        assertThat(stamped(ring, 102, 0) & GenerationRing.OVER_CAPACITY).as("the (n + 1)-th item").isNotZero();
        assertThat(stamped(ring, 103, 0) & GenerationRing.OVER_CAPACITY).as("counted once").isZero();
        assertThat(ring.inserted(0)).as("no false positive kept an item out").isEqualTo(4);
    }

    private static int stamped(GenerationRing ring, long item, long timeEpoch) {
        long h1 = ItemHasher.seeded(1).hash(item);
        return ring.testAndPut(h1, ItemHasher.h2(h1), SIZING, timeEpoch);
    }
}
