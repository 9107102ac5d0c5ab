package io.linerate.jobs.dedup;

import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.RecordDecoder;

/** The dedup job's decoder of whole records for the {@code raw} output, as {@code DedupJob} builds it, for tests outside this package. */
public final class DedupDecoders {

    private DedupDecoders() {
    }

    /** Scope from {@code scopeField}, output size checked against {@code maxValueBytes}, record size against {@code maxRecordBytes}. */
    public static RecordDecoder<ScopedEvent> rawRecords(JsonEventFormat events, String scopeField, int maxValueBytes,
                                                        int maxRecordBytes) {
        return new RawRecordDecoder(new OutputSizeCheck(new ScopedEventFormat(events, scopeField, "default"),
                maxValueBytes), maxRecordBytes);
    }

    /** {@link #rawRecords} as the job's Kafka deserializer. */
    public static KafkaDecoding<ScopedEvent> kafkaDecoding(JsonEventFormat events, String scopeField,
                                                           int maxValueBytes, int maxRecordBytes) {
        return KafkaDecoding.records(rawRecords(events, scopeField, maxValueBytes, maxRecordBytes),
                ScopedEvent.typeInfo(), KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES);
    }
}
