package io.linerate.flink.items;

import java.io.Serializable;

/**
 * The weight a record adds to its item: 1 to count packets or events, the record's length to count bytes.
 * Weights must be ≥ 0; an operator sends a record with a negative weight to its malformed-records output.
 */
@FunctionalInterface
public interface WeightOf<T> extends Serializable {

    /** The record's weight, ≥ 0. */
    long weightOf(T record);

    /** Every record weighs 1 (count packets or events). */
    static <T> WeightOf<T> one() {
        return record -> 1L;
    }
}
