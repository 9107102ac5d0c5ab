package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the HeavyHitters interface offers as static API, and the argument checks its trackers keep. */
class HeavyHittersApiTest {

    /**
     * checkWeight and checkPhi were public statics of the interface by accident (nothing outside the package used
     * them); ceilPhiN stays, the Flink operators use it.
     */
    @Test
    void theOnlyStaticMethodIsCeilPhiN() {
        assertThat(Arrays.stream(HeavyHitters.class.getDeclaredMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && Modifier.isPublic(m.getModifiers()))
                .map(Method::getName)).containsExactly("ceilPhiN");
    }

    @Test
    void trackersStillRefuseANegativeWeightAndAPhiOutsideZeroOne() {
        for (HeavyHitters tracker : List.of(SpaceSaving.withCapacity(KeyKind.longs(), 10, 1),
                CountMinHeap.create(KeyKind.longs(), 10, 101, 4, true, 1))) {
            assertThatThrownBy(() -> tracker.update(1L, -1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("weight must be ≥ 0, got -1");
            assertThatThrownBy(() -> tracker.heavyHitters(1.0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("phi must be in (0, 1), got 1.0");
        }
    }
}
