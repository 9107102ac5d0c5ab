package io.linerate.flink.dedup;

import io.linerate.flink.rejects.Rejected;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The outputs of a {@link Deduplicator} applied to a stream: first occurrences (the operator itself, so callers
 * can set its uid and parallelism), probable duplicates, and malformed records with the reason.
 */
public final class DedupStreams<T> {

    private final SingleOutputStreamOperator<T> firstOccurrences;
    private final DataStream<T> duplicates;
    private final DataStream<Rejected<T>> malformed;

    DedupStreams(SingleOutputStreamOperator<T> firstOccurrences, DataStream<T> duplicates,
                 DataStream<Rejected<T>> malformed) {
        this.firstOccurrences = firstOccurrences;
        this.duplicates = duplicates;
        this.malformed = malformed;
    }

    /** Records whose item the key had not seen within the horizon. */
    public SingleOutputStreamOperator<T> firstOccurrences() {
        return firstOccurrences;
    }

    /** Records flagged as probable duplicates (side output {@value Deduplicator#DUPLICATES}). */
    public DataStream<T> duplicates() {
        return duplicates;
    }

    /** Records whose item or timestamp could not be used (side output {@value Rejected#OUTPUT_NAME}). */
    public DataStream<Rejected<T>> malformed() {
        return malformed;
    }
}
