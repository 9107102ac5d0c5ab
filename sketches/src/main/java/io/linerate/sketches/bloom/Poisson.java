package io.linerate.sketches.bloom;

/** Poisson probabilities computed without overflow for means up to a few thousand. */
final class Poisson {

    private Poisson() {
    }

    /**
     * P(X = i) for i = 0..{@code maxI}, X ~ Poisson(λ). Computed from the mode outwards so that neither
     * e<sup>−λ</sup> nor λ<sup>i</sup>/i! underflows or overflows.
     */
    static double[] pmf(double lambda, int maxI) {
        double[] p = new double[maxI + 1];
        if (lambda == 0) {
            p[0] = 1;
            return p;
        }
        int mode = (int) Math.min(maxI, Math.floor(lambda));
        double logFactorial = 0;
        for (int i = 2; i <= mode; i++) {
            logFactorial += StrictMath.log(i);
        }
        p[mode] = StrictMath.exp(-lambda + mode * StrictMath.log(lambda) - logFactorial);
        for (int i = mode + 1; i <= maxI; i++) {
            p[i] = p[i - 1] * lambda / i;
        }
        for (int i = mode - 1; i >= 0; i--) {
            p[i] = p[i + 1] * (i + 1) / lambda;
        }
        return p;
    }

    /** An index past which the Poisson(λ) tail mass is below 1e-16. */
    static int tailBound(double lambda) {
        return (int) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 40);
    }
}
