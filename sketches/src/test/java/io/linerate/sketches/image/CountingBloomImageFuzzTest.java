package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the counting Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class CountingBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void countingBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.COUNTING_BLOOM, data);
    }
}
