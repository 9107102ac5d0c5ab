package io.linerate.jobs.format;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The Kafka source's deserializer: decodes each record value with a {@link BytesDecoder} (or the whole record with a
 * {@link RecordDecoder}: {@link #records}) and emits a
 * {@link Decoded} holding either the value or a {@link DeadLetter} (topic, partition, offset, reason, byte offset,
 * and the record: the value and the key each truncated to {@code maxDeadLetterBytes}, the headers up to
 * {@value #MAX_DEAD_LETTER_HEADERS} of them and {@code maxDeadLetterBytes} bytes of names and values in all). It
 * never throws for bad input, so one bad record neither fails nor restarts the job. Split the stream with
 * {@link SplitDecoded}.
 *
 * <p>Metrics (the source's metric group): counters {@code recordsDecoded} and {@code malformedRecords}.
 */
public final class KafkaDecoding<T> implements KafkaRecordDeserializationSchema<Decoded<T>> {

    private static final long serialVersionUID = 1L;

    /** Default bytes of a bad value kept in its dead letter. */
    public static final int DEFAULT_MAX_DEAD_LETTER_BYTES = 4096;
    /** The most headers a dead letter keeps (the first ones; {@link DeadLetter#headerCount} counts them all). */
    public static final int MAX_DEAD_LETTER_HEADERS = 64;
    /** The most characters of a reason a dead letter keeps. */
    static final int MAX_REASON_CHARS = 2_000;

    private final RecordDecoder<T> decoder;
    private final TypeInformation<T> valueType;
    private final int maxDeadLetterBytes;
    private transient Counter decoded;
    private transient Counter malformed;

    /**
     * @throws IllegalArgumentException if {@code maxDeadLetterBytes} is negative
     */
    public KafkaDecoding(BytesDecoder<T> decoder, TypeInformation<T> valueType, int maxDeadLetterBytes) {
        this(new ValuesOf<>(Objects.requireNonNull(decoder, "decoder")), valueType, maxDeadLetterBytes);
    }

    /**
     * Decodes whole records (value, key, headers, timestamp) with {@code decoder}; otherwise as the constructor.
     *
     * @throws IllegalArgumentException if {@code maxDeadLetterBytes} is negative
     */
    public static <T> KafkaDecoding<T> records(RecordDecoder<T> decoder, TypeInformation<T> valueType,
                                               int maxDeadLetterBytes) {
        return new KafkaDecoding<>(decoder, valueType, maxDeadLetterBytes);
    }

    // private: a lambda would fit both this and the public constructor
    private KafkaDecoding(RecordDecoder<T> decoder, TypeInformation<T> valueType, int maxDeadLetterBytes) {
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.valueType = Objects.requireNonNull(valueType, "valueType");
        if (maxDeadLetterBytes < 0) {
            throw new IllegalArgumentException("maxDeadLetterBytes must be >= 0, got " + maxDeadLetterBytes);
        }
        this.maxDeadLetterBytes = maxDeadLetterBytes;
    }

    /** Packet batches in the binary format of {@link PacketBatchCodec}. */
    public static KafkaDecoding<PacketBatch> packetBatches() {
        return new KafkaDecoding<>(PacketBatchCodec.DECODER, PacketBatchTypeInfo.INSTANCE,
                DEFAULT_MAX_DEAD_LETTER_BYTES);
    }

    /** JSON events as {@code format} reads them. */
    public static KafkaDecoding<Event> events(JsonEventFormat format) {
        return new KafkaDecoding<>(format, Event.typeInfo(), DEFAULT_MAX_DEAD_LETTER_BYTES);
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        decoded = context.getMetricGroup().counter("recordsDecoded");
        malformed = context.getMetricGroup().counter("malformedRecords");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Decoded<T>> out) {
        Decoded<T> result = decode(record);
        if (result.isDead()) {
            if (malformed != null) {
                malformed.inc();
            }
        } else if (decoded != null) {
            decoded.inc();
        }
        out.collect(result);
    }

    /** The decoded value or the dead letter of one record (what {@link #deserialize} emits). */
    public Decoded<T> decode(ConsumerRecord<byte[], byte[]> record) {
        byte[] value = record.value();
        String reason;
        long errorOffset;
        try {
            if (value == null) {
                throw new MalformedRecordException("record has no value (null)", MalformedRecordException.NO_OFFSET);
            }
            return Decoded.of(decoder.decode(record));
        } catch (MalformedRecordException e) {
            reason = e.reason();
            errorOffset = e.offset();
        } catch (RuntimeException e) {
            // a decoder bug must not stop the job either: the record is dead-lettered with what happened
            reason = "decoder failed: " + e;
            errorOffset = MalformedRecordException.NO_OFFSET;
        }
        DeadLetter letter = new DeadLetter(record.topic(), record.partition(), record.offset(),
                record.timestamp() < 0 ? -1 : record.timestamp(), capped(reason), errorOffset, head(value),
                value == null ? -1 : value.length);
        keepKeyAndHeaders(record, letter);
        return Decoded.dead(letter);
    }

    /** The first {@code maxDeadLetterBytes} of {@code bytes} (a copy: the array is the consumer's); empty for null. */
    private byte[] head(byte[] bytes) {
        return bytes == null ? new byte[0] : Arrays.copyOf(bytes, Math.min(bytes.length, maxDeadLetterBytes));
    }

    /**
     * Copies the record's key (truncated like the value) and the longest prefix of its headers within
     * {@value #MAX_DEAD_LETTER_HEADERS} headers and {@code maxDeadLetterBytes} bytes of names (UTF-8) and values:
     * a prefix, so that the kept headers replay in their order. Sizes are measured before anything is copied, and
     * the arrays allocated for the kept headers only, however many the record has.
     */
    private void keepKeyAndHeaders(ConsumerRecord<byte[], byte[]> record, DeadLetter letter) {
        byte[] key = record.key();
        int count = 0;
        int kept = 0;
        long bytes = 0;
        boolean full = false;
        for (Header h : record.headers()) {
            count++;
            if (!full) {
                long size = utf8Length(h.key()) + (h.value() == null ? 0 : h.value().length);
                if (kept < MAX_DEAD_LETTER_HEADERS && bytes + size <= maxDeadLetterBytes) {
                    kept++;
                    bytes += size;
                } else {
                    full = true;
                }
            }
        }
        String[] names = new String[kept];
        byte[][] values = new byte[kept][];
        int i = 0;
        for (Header h : record.headers()) {
            if (i == kept) {
                break;
            }
            names[i] = h.key();
            values[i] = h.value() == null ? null : h.value().clone();
            i++;
        }
        letter.keyAndHeaders(head(key), key == null ? -1 : key.length, names, values, count);
    }

    /** Bytes of {@code s} in UTF-8 as Kafka writes a header name (an unpaired surrogate counted as 3, an upper bound). */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * The reason, cut to {@value #MAX_REASON_CHARS} characters: a decoder (or the exception of a failing one) may quote
     * the input, and a dead letter must stay far below the largest record the sink can write (as JSON, a character
     * takes at most 6 bytes: 12 KB here, beside the value's kept bytes).
     */
    static String capped(String reason) {
        return reason.length() <= MAX_REASON_CHARS ? reason // never null: MalformedRecordException has one
                : Utf8Text.prefix(reason, MAX_REASON_CHARS) + "… (reason cut: " + reason.length() + " characters)";
    }

    /** A {@link BytesDecoder} as a {@link RecordDecoder}: the value alone. */
    private static final class ValuesOf<T> implements RecordDecoder<T> {
        private static final long serialVersionUID = 1L;
        private final BytesDecoder<T> values;

        ValuesOf(BytesDecoder<T> values) {
            this.values = values;
        }

        @Override
        public T decode(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException {
            return values.decode(record.value());
        }

        @Override
        public String toString() {
            return values.toString();
        }
    }

    @Override
    public TypeInformation<Decoded<T>> getProducedType() {
        return Decoded.typeInfo(valueType);
    }
}
