package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile bytes, deterministically: for every image family, {@value #INPUTS} inputs generated from a fixed
 * {@link SplittableRandom} seed are turned into candidate images by {@link HostileImages#image} (mutations of the
 * committed v1 images, most with the CRC32C trailer recomputed) and checked against the reader's contract by
 * {@link HostileImages#check}. The Jazzer targets ({@link ImageFuzzTargets}) drive the same harness; this test is the
 * reproducible part: a failure names the family and the input's index and bytes.
 */
class ImageMutationTest {

    static final int INPUTS = 10_000;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Family.class)
    void tenThousandMutatedImagesAreReadOrRejectedCleanly(Family family) {
        SplittableRandom random = new SplittableRandom(0x5EED_0000L + family.id());
        Map<HostileImages.Outcome, Integer> outcomes = new EnumMap<>(HostileImages.Outcome.class);
        for (int i = 0; i < INPUTS; i++) {
            byte[] data = new byte[1 + random.nextInt(48)];
            random.nextBytes(data);
            byte[] image = HostileImages.image(family, data);
            HostileImages.Outcome o;
            try {
                o = HostileImages.check(family, image);
            } catch (AssertionError e) {
                throw new AssertionError("input " + i + " of " + family + ": " + e.getMessage(), e);
            }
            outcomes.merge(o, 1, Integer::sum);
        }
        System.out.println("ImageMutationTest " + family + ": " + INPUTS + " inputs, " + outcomes);
        int total = outcomes.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(total).isEqualTo(INPUTS);
        // most inputs must get past the checksum, or the field validation behind it is not being tested
        assertThat(outcomes.getOrDefault(HostileImages.Outcome.REJECTED_AFTER_CHECKSUM, 0)
                + outcomes.getOrDefault(HostileImages.Outcome.READ, 0)).as(family + " past the checksum")
                .isGreaterThan(INPUTS / 2);
    }
}
