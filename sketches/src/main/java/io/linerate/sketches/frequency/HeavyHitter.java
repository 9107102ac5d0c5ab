package io.linerate.sketches.frequency;

/**
 * One reported item with its estimated weight and the bounds its tracker guarantees:
 * {@code lowerBound ≤ true weight ≤ upperBound}.
 *
 * @param item a {@code Long}, a {@link io.linerate.sketches.hash.FiveTuple} or a {@code byte[]}, by the
 *     tracker's {@link KeyKind}
 */
public record HeavyHitter(Object item, long estimate, long lowerBound, long upperBound) {
}
