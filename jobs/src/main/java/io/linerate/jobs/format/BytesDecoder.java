package io.linerate.jobs.format;

import java.io.Serializable;

/**
 * Decodes one Kafka record value. Throws {@link MalformedRecordException} — and nothing else — for bad input, so
 * {@link KafkaDecoding} can turn it into a {@link DeadLetter}.
 */
@FunctionalInterface
public interface BytesDecoder<T> extends Serializable {

    T decode(byte[] value) throws MalformedRecordException;
}
