package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the blocked Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class BlockedBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void blockedBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.BLOCKED_BLOOM, data);
    }
}
