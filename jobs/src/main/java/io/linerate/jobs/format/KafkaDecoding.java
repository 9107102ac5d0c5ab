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
        return packetBatches(DEFAULT_MAX_DEAD_LETTER_BYTES);
    }

    /**
     * Packet batches in the binary format of {@link PacketBatchCodec}, dead letters keeping {@code maxDeadLetterBytes}.
     *
     * @throws IllegalArgumentException if {@code maxDeadLetterBytes} is negative
     */
    public static KafkaDecoding<PacketBatch> packetBatches(int maxDeadLetterBytes) {
        return new KafkaDecoding<>(PacketBatchCodec.DECODER, PacketBatchTypeInfo.INSTANCE, maxDeadLetterBytes);
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

    /** The most bytes of the value, of the key, and of the headers' names and values a dead letter keeps. */
    public int maxDeadLetterBytes() {
        return maxDeadLetterBytes;
    }

    /** {@link #maxDeadLetterJsonBytes(int)} of this deserializer's {@link #maxDeadLetterBytes()}. */
    public long maxDeadLetterJsonBytes() {
        return maxDeadLetterJsonBytes(maxDeadLetterBytes);
    }

    /**
     * The JSON of a dead letter without its variable parts, as {@link OutputJson#deadLetters()} writes it: empty
     * topic, reason, value and key, no headers, numbers 0 and booleans false.
     */
    static final int DEAD_LETTER_JSON_SKELETON = ("{'type':'" + OutputJson.DEAD_LETTER + "','topic':'','partition':0,"
            + "'offset':0,'timestamp':0,'reason':'','error_offset':0,'value_length':0,'value_truncated':false,"
            + "'value_base64':'','key_length':0,'key_truncated':false,'key_base64':'','header_count':0,"
            + "'headers_truncated':false,'headers':[]}").length();

    /**
     * The most bytes {@link OutputJson#deadLetters()} writes for a dead letter this deserializer makes with {@code
     * maxDeadLetterBytes} = B: the skeleton, plus a topic of Kafka's longest name (249 ASCII characters, never
     * escaped), every int at 11 characters and every long at 20 (their longest decimal text, sign included), the
     * reason cut to {@value #MAX_REASON_CHARS} characters of up to 6 bytes each (a control character, escaped in six) plus the cut note,
     * the value and the key in base64 (4·⌈B/3⌉ each; the key {@code null} when absent, whichever is longer), and
     * {@value #MAX_DEAD_LETTER_HEADERS} headers ({@code {"key":"","value_base64":null}} each, with commas) whose
     * names and values hold B bytes at most: a name's byte takes up to 6 bytes of JSON (a control character,
     * escaped in six), a value's at most 2 (base64, "" instead of null), so at most 6·B.
     */
    public static long maxDeadLetterJsonBytes(int maxDeadLetterBytes) {
        long b64 = 4L * ((maxDeadLetterBytes + 2L) / 3);
        // beyond the skeleton's 0s: partition, value_length, header_count (ints); offset, timestamp, error_offset
        // (longs); key_length with the key below
        long numbers = 3 * (11 - 1) + 3 * (20 - 1);
        long reason = 6L * MAX_REASON_CHARS + "… (reason cut: 2147483647 characters)".getBytes(
                java.nio.charset.StandardCharsets.UTF_8).length;
        long value = b64;
        long key = Math.max(11 - 1 + "null".length() - 2, 10 - 1 + b64); // beyond "key_length":0,…"key_base64":""
        long headers = MAX_DEAD_LETTER_HEADERS * (long) "{\"key\":\"\",\"value_base64\":null}".length()
                + (MAX_DEAD_LETTER_HEADERS - 1) + 6L * maxDeadLetterBytes;
        return DEAD_LETTER_JSON_SKELETON + 249 + numbers + reason + value + key + headers;
    }

    /** The largest {@code maxDeadLetterBytes} whose {@link #maxDeadLetterJsonBytes(int)} is at most {@code jsonBytes}; −1 if none. */
    public static int largestMaxDeadLetterBytes(long jsonBytes) {
        if (maxDeadLetterJsonBytes(0) > jsonBytes) {
            return -1;
        }
        int lo = 0;
        int hi = Integer.MAX_VALUE;
        while (lo < hi) { // the bound grows with B
            int mid = (int) ((lo + (long) hi + 1) / 2);
            if (maxDeadLetterJsonBytes(mid) <= jsonBytes) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
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
     * the input, and a dead letter must fit the largest record the sink can write (as JSON, a character takes at
     * most 6 bytes: 12 KB here, beside the kept bytes; {@link #maxDeadLetterJsonBytes(int)} counts it).
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
