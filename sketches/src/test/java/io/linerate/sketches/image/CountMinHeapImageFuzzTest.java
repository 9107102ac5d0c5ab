package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the CM-heap tracker's image reader (see {@link ImageFuzzTargets}). */
class CountMinHeapImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void countMinHeap(byte[] data) {
        ImageFuzzTargets.fuzz(Family.COUNT_MIN_HEAP, data);
    }
}
