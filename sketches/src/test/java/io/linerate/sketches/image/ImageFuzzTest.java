package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz tests of the image readers, one per family, on the {@link HostileImages} harness: the fuzzer's
 * bytes choose a committed v1 image and mutations of it (most with the CRC32C trailer recomputed), and the
 * reader must return a structure that round-trips or throw {@link IllegalArgumentException} with a message,
 * within the harness's allocation bound.
 *
 * <p>In the default build these run in Jazzer's fuzzing mode ({@code JAZZER_FUZZ=1}), {@value #EXECUTIONS}
 * executions each, one surefire execution per method (Jazzer fuzzes a single test per JVM); see the sketches
 * pom. Without {@code JAZZER_FUZZ} (e.g. the plain {@code test} execution, or an IDE) they run in regression
 * mode: the inputs under {@code src/test/resources/io/linerate/sketches/image/ImageFuzzTestInputs/<method>/} and
 * any crash files found before.
 */
class ImageFuzzTest {

    static final long EXECUTIONS = 10_000;

    @FuzzTest(maxExecutions = EXECUTIONS)
    void standardBloom(byte[] data) {
        HostileImages.check(Family.STANDARD_BLOOM, HostileImages.image(Family.STANDARD_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void partitionedBloom(byte[] data) {
        HostileImages.check(Family.PARTITIONED_BLOOM, HostileImages.image(Family.PARTITIONED_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void blockedBloom(byte[] data) {
        HostileImages.check(Family.BLOCKED_BLOOM, HostileImages.image(Family.BLOCKED_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void splitBlockBloom(byte[] data) {
        HostileImages.check(Family.SPLIT_BLOCK_BLOOM, HostileImages.image(Family.SPLIT_BLOCK_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void balancedBloom(byte[] data) {
        HostileImages.check(Family.BALANCED_BLOOM, HostileImages.image(Family.BALANCED_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void countingBloom(byte[] data) {
        HostileImages.check(Family.COUNTING_BLOOM, HostileImages.image(Family.COUNTING_BLOOM, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void countMin(byte[] data) {
        HostileImages.check(Family.COUNT_MIN, HostileImages.image(Family.COUNT_MIN, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void blockedCountMin(byte[] data) {
        HostileImages.check(Family.BLOCKED_COUNT_MIN, HostileImages.image(Family.BLOCKED_COUNT_MIN, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void spaceSaving(byte[] data) {
        HostileImages.check(Family.SPACE_SAVING, HostileImages.image(Family.SPACE_SAVING, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void countMinHeap(byte[] data) {
        HostileImages.check(Family.COUNT_MIN_HEAP, HostileImages.image(Family.COUNT_MIN_HEAP, data));
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void flowTable(byte[] data) {
        HostileImages.check(Family.FLOW_TABLE, HostileImages.image(Family.FLOW_TABLE, data));
    }
}
