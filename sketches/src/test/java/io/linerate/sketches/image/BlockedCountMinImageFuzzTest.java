package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the blocked Count-Min sketch's image reader (see {@link ImageFuzzTargets}). */
class BlockedCountMinImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void blockedCountMin(byte[] data) {
        ImageFuzzTargets.fuzz(Family.BLOCKED_COUNT_MIN, data);
    }
}
