package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code copy()} of every structure and variant, on the instances of {@link ImageRecipes} (which cover the
 * overflow lists, stashes, summaries, saturated counters and partly filled trackers): the copy has the same image
 * and memory as the original and answers alike; going on with the recipe's stream on the copy leaves the original's
 * image as it was (no array or counter is shared), and the original, given the same stream, ends with the copy's
 * image.
 */
class StructureCopyTest {

    static Stream<String> recipes() {
        return ImageRecipes.all().keySet().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void copyIsEqualAndIndependent(String name) {
        check(ImageRecipes.all().get(name));
    }

    private static <T> void check(ImageRecipes.Recipe<T> r) {
        T original = r.build.get();
        byte[] before = r.write.apply(original);
        T copy = copyOf(original);

        assertThat(copy).isNotSameAs(original);
        assertThat(r.write.apply(copy)).as("image of the copy").isEqualTo(before);
        assertThat(memoryBytes(copy)).as("memory of the copy").isEqualTo(memoryBytes(original));
        if (r.errata.isEmpty()) {
            // (a recipe with errata compares a committed image's miscounts, which a copy does not have)
            r.sameBehaviour.accept(copy, original);
        }

        r.continueStream.accept(copy);
        byte[] copyAfter = r.write.apply(copy);
        assertThat(copyAfter).as("the continued stream changes the copy (else independence is not tested)")
                .isNotEqualTo(before);
        assertThat(r.write.apply(original)).as("image of the original after the copy went on").isEqualTo(before);

        r.continueStream.accept(original);
        assertThat(r.write.apply(original)).as("the original after the same stream").isEqualTo(copyAfter);
    }

    @SuppressWarnings("unchecked")
    private static <T> T copyOf(T structure) {
        Object copy;
        if (structure instanceof BloomFilter f) {
            copy = f.copy();
        } else if (structure instanceof CountMinSketch s) {
            copy = s.copy();
        } else if (structure instanceof BlockedCountMinSketch s) {
            copy = s.copy();
        } else if (structure instanceof HeavyHitters h) {
            copy = h.copy();
        } else if (structure instanceof FlowTable t) {
            copy = t.copy();
        } else {
            throw new AssertionError("no copy() for " + structure.getClass());
        }
        assertThat(copy).as("class of the copy").hasSameClassAs(structure);
        return (T) copy;
    }

    private static long memoryBytes(Object structure) {
        if (structure instanceof BloomFilter f) {
            return f.memoryBytes();
        } else if (structure instanceof CountMinSketch s) {
            return s.memoryBytes();
        } else if (structure instanceof BlockedCountMinSketch s) {
            return s.memoryBytes();
        } else if (structure instanceof HeavyHitters h) {
            return h.memoryBytes();
        }
        return ((FlowTable) structure).memoryBytes();
    }
}
