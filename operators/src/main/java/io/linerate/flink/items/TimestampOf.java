package io.linerate.flink.items;

import java.io.Serializable;

/**
 * The event time of a record or of one element of a batch, in epoch milliseconds. Operators read it where the
 * Flink record timestamp does not say enough: each element of a batch record has its own time.
 */
@FunctionalInterface
public interface TimestampOf<T> extends Serializable {

    /** The record's (or element's) event time, epoch ms. */
    long timestampOf(T record);
}
