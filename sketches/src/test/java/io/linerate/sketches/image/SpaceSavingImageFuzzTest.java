package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the Space-Saving tracker's image reader (see {@link ImageFuzzTargets}). */
class SpaceSavingImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void spaceSaving(byte[] data) {
        ImageFuzzTargets.fuzz(Family.SPACE_SAVING, data);
    }
}
