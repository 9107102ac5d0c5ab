package io.linerate.sketches.image;

/**
 * The Jazzer fuzz targets of the image readers, one class per family ({@code *ImageFuzzTest}, e.g.
 * {@link StandardBloomImageFuzzTest}), on the {@link HostileImages} harness: the fuzzer's bytes choose a committed v1
 * image and mutations of it (most with the CRC32C trailer recomputed), and the reader must return a structure that
 * round-trips or throw {@link IllegalArgumentException} with a message, within the harness's allocation bound.
 *
 * <p>In the default build they run in Jazzer's fuzzing mode ({@code JAZZER_FUZZ=1}), {@value #EXECUTIONS}
 * executions each, in the surefire execution {@code fuzz} of the sketches pom. Jazzer fuzzes a single test per JVM,
 * and surefire starts a JVM per test class, so each target is a class of its own; two of them run side by side.
 * Without {@code JAZZER_FUZZ} (e.g. the plain {@code test} execution, or an IDE) they run in regression mode: the
 * inputs under {@code src/test/resources/io/linerate/sketches/image/<Class>Inputs/<method>/} and any crash files
 * found before.
 */
final class ImageFuzzTargets {

    /** Inputs per target in fuzzing mode. */
    static final long EXECUTIONS = 10_000;

    private ImageFuzzTargets() {
    }

    /** The target of every family: reads the image that {@code data} makes and checks the reader's contract. */
    static void fuzz(Family family, byte[] data) {
        HostileImages.check(family, HostileImages.image(family, data));
    }
}
