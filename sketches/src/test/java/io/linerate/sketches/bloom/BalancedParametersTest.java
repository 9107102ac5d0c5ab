package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Golden values of the parameter solver against research notes part 1 §1.8 and §1.12 (a)–(c), which
 * recompute them from the paper's Theorems 1, 4 and 5.
 */
class BalancedParametersTest {

    @Test
    void optimalOverflowFractionMatchesTheFixedPointTable() {
        // notes §1.12 (a): MHT γ_min in % for d = 2, 3, 4
        assertThat(BalancedParameters.optimalOverflowFraction(1.2, 3)).isCloseTo(0.004984, within(0.000001));
        assertThat(BalancedParameters.optimalOverflowFraction(1.2, 2)).isCloseTo(0.04, within(0.00001));
        assertThat(BalancedParameters.optimalOverflowFraction(1.1, 3)).isCloseTo(0.000769, within(0.000001));
        assertThat(BalancedParameters.optimalOverflowFraction(1.5, 4)).isCloseTo(0.013762, within(0.000001));
        assertThat(BalancedParameters.optimalOverflowFraction(1.0, 3)).isEqualTo(0.0);
    }

    @Test
    void subtablesOf1024BlocksAre853_146_25() {
        BalancedParameters p = BalancedParameters.asymptotic(1024, 256, 40, 1.2, 3);
        assertThat(p.subtableBlocks()).containsExactly(853, 146, 25);
        double gamma = p.overflowFraction();
        double pa = 1 - (1 - gamma) / 1.2;
        assertThat(pa).isCloseTo(0.170820, within(0.000001));
        // α_1 = 1/a exactly when γ = γ_min (notes §1.8)
        assertThat((1 - pa) / (1 - Math.pow(pa, 3))).isCloseTo(1 / 1.2, within(1e-9));
    }

    @Test
    void paperSettingB256Beta40() {
        BalancedParameters p = BalancedParameters.asymptotic(1024, 256, 40, 1.2, 3);
        assertThat(p.hashCount()).isEqualTo(28);
        assertThat(p.threshold()).isEqualTo(7);
        assertThat(p.coinProbability()).isCloseTo(0.1128, within(0.0005));
        assertThat(p.counterBits()).isEqualTo(4);
        assertThat(p.designCapacity()).isEqualTo(6554);
        assertThat(p.accessBudget()).isEqualTo((long) Math.floor(1.2 * 6554));
    }

    @Test
    void paperSettingB512Beta40() {
        BalancedParameters p = BalancedParameters.asymptotic(1024, 512, 40, 1.2, 3);
        assertThat(p.hashCount()).isEqualTo(28);
        assertThat(p.threshold()).isEqualTo(13);
        assertThat(p.coinProbability()).isCloseTo(0.1803, within(0.0005));
        assertThat(p.counterBits()).isEqualTo(4);
        assertThat(p.subtableBlocks()).containsExactly(853, 146, 25);
    }

    @Test
    void lowerBoundDistributionSumsToOneWithMeanR1MinusGamma() {
        for (double r : new double[] {2.5, 6.4, 8, 12.8, 20}) {
            double gamma = BalancedParameters.optimalOverflowFraction(1.2, 3);
            double[] pLb = BalancedParameters.lowerBoundLoad(1.2 * r, r * (1 - gamma));
            double sum = Arrays.stream(pLb).sum();
            double mean = 0;
            for (int i = 0; i < pLb.length; i++) {
                mean += i * pLb[i];
                assertThat(pLb[i]).isGreaterThanOrEqualTo(0.0);
            }
            assertThat(sum).isCloseTo(1.0, within(1e-12));
            assertThat(mean).isCloseTo(r * (1 - gamma), within(1e-9));
        }
    }

    @Test
    void lowerBoundDistributionOfFigure2() {
        // notes §1.12 (b): r = 8, γ = 0
        double[] a12 = BalancedParameters.lowerBoundLoad(1.2 * 8, 8);
        assertThat(a12.length - 2).as("k0 at a = 1.2").isEqualTo(8);
        double[] expected12 = {.0001, .0007, .0031, .0100, .0240, .0460, .0736, .1010, .1856, .5559};
        for (int i = 0; i < expected12.length; i++) {
            assertThat(a12[i]).as("P_LB(%d), a = 1.2", i).isCloseTo(expected12[i], within(0.00006));
        }
        double[] a11 = BalancedParameters.lowerBoundLoad(1.1 * 8, 8);
        assertThat(a11.length - 2).as("k0 at a = 1.1").isEqualTo(9);
        assertThat(a11[9]).isCloseTo(.2381, within(0.00006));
        assertThat(a11[10]).isCloseTo(.2796, within(0.00006));
    }

    @Test
    void singleSchemeClosedFormOfFigure3() {
        // notes §1.6: r = 2.5, p = 0.5, h = 2 at t = 1: f2 = 0.40725
        assertThat(BalancedParameters.singleLoadAtThreshold(2.5, 2, 0.5)).isCloseTo(0.40725, within(0.00001));
    }

    @Test
    void rejectsBadParametersNamingThem() {
        assertThat(BalancedParameters.of(1024, 256, 40, 1.2, 3).accessBudget()).isEqualTo(7864);
        assertThatThrownBy(() -> BalancedParameters.asymptotic(1024, 100, 40, 1.2, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockBits");
        assertThatThrownBy(() -> BalancedParameters.asymptotic(1024, 256, 0, 1.2, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bitsPerElement");
        assertThatThrownBy(() -> BalancedParameters.asymptotic(1024, 256, 40, 3.0, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accessBudget");
        assertThatThrownBy(() -> BalancedParameters.asymptotic(1024, 256, 40, 0.9, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accessBudget");
        assertThatThrownBy(() -> BalancedParameters.asymptotic(0, 256, 40, 1.2, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blocks");
        assertThatThrownBy(() -> BalancedParameters.asymptotic(1024, 256, 40, 1.2, 9))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("choices");
    }
}
