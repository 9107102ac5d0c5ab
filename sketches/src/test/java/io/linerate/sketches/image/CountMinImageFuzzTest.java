package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the Count-Min sketch's image reader (see {@link ImageFuzzTargets}). */
class CountMinImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void countMin(byte[] data) {
        ImageFuzzTargets.fuzz(Family.COUNT_MIN, data);
    }
}
