package io.linerate.sketches.frequency;

/** The argument checks the trackers share (package-private: not part of the {@link HeavyHitters} API). */
final class TrackerArguments {

    private TrackerArguments() {
    }

    /** An update's weight: ≥ 0. */
    static void checkWeight(long weight) {
        if (weight < 0) {
            throw new IllegalArgumentException("weight must be ≥ 0, got " + weight);
        }
    }

    /** A heavy-hitter fraction φ: in (0, 1). */
    static void checkPhi(double phi) {
        if (!(phi > 0 && phi < 1)) {
            throw new IllegalArgumentException("phi must be in (0, 1), got " + phi);
        }
    }
}
