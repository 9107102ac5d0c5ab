package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the standard Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class StandardBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void standardBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.STANDARD_BLOOM, data);
    }
}
