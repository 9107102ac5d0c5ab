package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Reads generic JSON events (one JSON object per Kafka record value, UTF-8) into {@link Event}s, for the
 * deduplication and heavy-hitter jobs on event streams. Configurable field locations, each a JSON pointer
 * ({@code /user/id}, RFC 6901) or a dotted path ({@code user.id}; a name containing a dot needs the pointer form):
 * <ul>
 *   <li>{@code keyField} (required): a string, or an integral number (used as its decimal text); or several
 *       fields ({@link Builder#keyFields}), each a string or an integral number, making a composite key: the JSON
 *       array of their texts, e.g. {@code ["alice","42"]}, so that no two different tuples give the same key;</li>
 *   <li>{@code weightField} (optional; weight 1 when not configured): an integral number in
 *       [0, {@code Long.MAX_VALUE}];</li>
 *   <li>{@code timestampField} (optional; {@link Event#NO_TIMESTAMP} when not configured): an integral number of
 *       epoch units ({@link #epochUnit}: milliseconds by default, or seconds) or an ISO-8601 date-time string with
 *       an offset ({@code 2026-11-21T10:15:30.123Z}, {@code 2026-11-21T11:15:30+01:00}), in
 *       [{@link #MIN_TIMESTAMP}, {@link #MAX_TIMESTAMP}] ms (1970 to the end of year 9999).</li>
 * </ul>
 * A configured field that is missing, null or of the wrong type, invalid JSON, a value that is not a JSON object,
 * duplicate keys, trailing content, and a value that is not strictly UTF-8 ({@link Utf8Text}: a byte order mark,
 * UTF-16 or UTF-32, invalid byte sequences) make the record malformed, with a reason naming the field
 * ({@link MalformedRecordException}; the byte offset is Jackson's for syntax errors, −1 for field errors).
 *
 * <p>Serializable and immutable; Flink ships it to the tasks, where it builds its Jackson reader once.
 */
public final class JsonEventFormat implements BytesDecoder<Event> {

    // 2: the key's location became a list (composite keys)
    private static final long serialVersionUID = 2L;

    /** The earliest timestamp accepted: 1970-01-01T00:00:00Z, in epoch ms. */
    public static final long MIN_TIMESTAMP = 0;
    /** The most characters of a field's value a reason quotes. */
    static final int SHOWN_CHARS = 200;

    /**
     * The latest timestamp accepted: 9999-12-31T23:59:59.999Z, in epoch ms. Outside [{@link #MIN_TIMESTAMP},
     * {@code MAX_TIMESTAMP}] an event is malformed: a timestamp far off would move its scope's event-time clock (the
     * dedup operator then drops its filter generations and a duplicate within the horizon passes as unique), and
     * {@code Long.MIN_VALUE} is {@link Event#NO_TIMESTAMP}.
     */
    public static final long MAX_TIMESTAMP = 253_402_300_799_999L;

    /** Units of a numeric timestamp. */
    public enum EpochUnit { MILLISECONDS, SECONDS }

    /** Most fields of a composite key. */
    public static final int MAX_KEY_FIELDS = 16;

    private final String[] keyFields;
    private final String weightField;
    private final String timestampField;
    private final EpochUnit epochUnit;
    private transient JsonPointer[] keys;
    private transient JsonPointer weight;
    private transient JsonPointer timestamp;
    private transient ObjectMapper mapper;

    private JsonEventFormat(Builder b) {
        if (b.keyFields == null) {
            throw new IllegalArgumentException("keyField must be set: a JSON pointer or a dotted path");
        }
        this.keyFields = b.keyFields.clone();
        this.weightField = b.weightField;
        this.timestampField = b.timestampField;
        this.epochUnit = b.epochUnit;
        compilePointers();
    }

    private void compilePointers() {
        if (keyFields.length == 0 || keyFields.length > MAX_KEY_FIELDS) {
            throw new IllegalArgumentException("keyField must name 1 to " + MAX_KEY_FIELDS + " fields, got "
                    + keyFields.length);
        }
        JsonPointer[] p = new JsonPointer[keyFields.length];
        for (int i = 0; i < p.length; i++) {
            p[i] = pointer("keyField", keyFields[i]);
            for (int j = 0; j < i; j++) {
                if (p[j].equals(p[i])) {
                    throw new IllegalArgumentException("keyField names one field twice: \"" + keyFields[j]
                            + "\" and \"" + keyFields[i] + "\"");
                }
            }
        }
        this.keys = p;
        this.weight = weightField == null ? null : pointer("weightField", weightField);
        this.timestamp = timestampField == null ? null : pointer("timestampField", timestampField);
    }

    private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        compilePointers();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The pointer of a field location: a JSON pointer when it starts with '/', else a dotted path whose parts
     * become pointer segments.
     */
    static JsonPointer pointer(String parameter, String location) {
        if (location == null || location.isEmpty()) {
            throw new IllegalArgumentException(parameter + " must be a JSON pointer or a dotted path, got \""
                    + location + "\"");
        }
        if (location.startsWith("/")) {
            try {
                return JsonPointer.compile(location);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(parameter + " is not a valid JSON pointer: \"" + location + "\" ("
                        + e.getMessage() + ")");
            }
        }
        StringBuilder p = new StringBuilder();
        for (String part : location.split("\\.", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException(parameter + " has an empty part in the dotted path \"" + location
                        + "\"");
            }
            p.append('/').append(part.replace("~", "~0").replace("/", "~1"));
        }
        return JsonPointer.compile(p.toString());
    }

    private ObjectMapper mapper() {
        ObjectMapper m = mapper;
        if (m == null) {
            m = mapper = JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    // keep a number's digits as sent (1.0 stays 1.0, not 1), so that a reason quotes the value given
                    .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                    .build();
        }
        return m;
    }

    @Override
    public Event decode(byte[] value) throws MalformedRecordException {
        if (value == null) {
            throw new MalformedRecordException("record has no value (null)", MalformedRecordException.NO_OFFSET);
        }
        String text = Utf8Text.of(value);
        JsonNode root;
        try {
            root = mapper().readTree(value);
        } catch (JsonProcessingException e) {
            long offset = e.getLocation() == null ? MalformedRecordException.NO_OFFSET
                    : e.getLocation().getByteOffset();
            throw new MalformedRecordException("bad JSON: " + e.getOriginalMessage(), offset);
        } catch (IOException e) {
            throw new MalformedRecordException("bad JSON: " + e.getMessage(), MalformedRecordException.NO_OFFSET);
        } catch (NumberFormatException e) {
            // valid JSON, but a number no BigDecimal holds (an exponent beyond an int: 1e2147483648), anywhere in
            // the event: Jackson throws this unchecked when it builds the tree
            throw new MalformedRecordException("bad JSON: a number out of range: " + e.getMessage(),
                    MalformedRecordException.NO_OFFSET);
        }
        if (root == null || root.isMissingNode()) {
            throw new MalformedRecordException("bad JSON: empty value", 0);
        }
        if (!root.isObject()) {
            throw new MalformedRecordException("bad JSON: the event must be a JSON object, got " + kind(root), 0);
        }
        String k = keyOf(root);
        long w = weight == null ? 1 : weightOf(root);
        long t = timestamp == null ? Event.NO_TIMESTAMP : timestampOf(root);
        return new Event(k, w, t, text);
    }

    private JsonNode field(JsonNode root, JsonPointer at, String parameter, String location)
            throws MalformedRecordException {
        JsonNode n = root.at(at);
        if (n.isMissingNode()) {
            throw fieldError(parameter, location, "is missing");
        }
        if (n.isNull()) {
            throw fieldError(parameter, location, "is null");
        }
        return n;
    }

    private String keyOf(JsonNode root) throws MalformedRecordException {
        if (keys.length == 1) {
            return keyPart(root, 0);
        }
        // a JSON array of the parts' texts: quoting and the separators keep ("a,b", "c") apart from ("a", "b,c")
        StringBuilder composite = new StringBuilder(64).append('[');
        for (int i = 0; i < keys.length; i++) {
            if (i > 0) {
                composite.append(',');
            }
            composite.append('"');
            JsonStringEncoder.getInstance().quoteAsString(keyPart(root, i), composite);
            composite.append('"');
        }
        return composite.append(']').toString();
    }

    private String keyPart(JsonNode root, int i) throws MalformedRecordException {
        JsonNode n = field(root, keys[i], "key", keyFields[i]);
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isIntegralNumber()) {
            return n.bigIntegerValue().toString();
        }
        throw fieldError("key", keyFields[i], "must be a string or an integral number, got " + kind(n));
    }

    private long weightOf(JsonNode root) throws MalformedRecordException {
        JsonNode n = field(root, weight, "weight", weightField);
        if (!n.isIntegralNumber()) {
            throw fieldError("weight", weightField, "must be an integral number, got " + kind(n) + " " + shown(n));
        }
        if (!n.canConvertToLong()) {
            throw fieldError("weight", weightField, (n.bigIntegerValue().signum() < 0 ? "must be >= 0"
                    : "must be at most " + Long.MAX_VALUE) + ", got " + shown(n));
        }
        long w = n.longValue();
        if (w < 0) {
            throw fieldError("weight", weightField, "must be >= 0, got " + w);
        }
        return w;
    }

    private long timestampOf(JsonNode root) throws MalformedRecordException {
        JsonNode n = field(root, timestamp, "timestamp", timestampField);
        if (n.isTextual()) {
            long t;
            try {
                t = OffsetDateTime.parse(n.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant()
                        .toEpochMilli();
            } catch (DateTimeParseException e) {
                throw fieldError("timestamp", timestampField, "is not an ISO-8601 date-time with an offset: \""
                        + shown(n.textValue()) + "\"");
            } catch (ArithmeticException e) {
                throw outOfRange("\"" + n.textValue() + "\"");
            }
            return inRange(t, "\"" + n.textValue() + "\"");
        }
        if (n.isIntegralNumber()) {
            BigInteger ms = n.bigIntegerValue();
            if (epochUnit == EpochUnit.SECONDS) {
                ms = ms.multiply(BigInteger.valueOf(1000));
            }
            if (ms.compareTo(BigInteger.valueOf(MIN_TIMESTAMP)) < 0
                    || ms.compareTo(BigInteger.valueOf(MAX_TIMESTAMP)) > 0) {
                throw outOfRange(n.toString());
            }
            return ms.longValue();
        }
        if (n.isNumber() && epochUnit == EpochUnit.SECONDS) {
            BigDecimal seconds = n.decimalValue();
            // The digits before the point, checked before anything rescales the number: a record of a few bytes can
            // say 1e100000000 or 1e-100000000 (Jackson bounds a number's digits, not its exponent), and moving the
            // point would build that number digit by digit (seconds of CPU, hundreds of MB), as would printing it
            // plainly.
            long integerDigits = (long) seconds.precision() - seconds.scale();
            if (integerDigits > 19) { // at least 10^19 s
                throw outOfRange(seconds.toString());
            }
            if (integerDigits <= -3) { // below 1 ms in magnitude: 0 ms, or -1 ms (out of range) when negative
                if (seconds.signum() < 0) {
                    throw outOfRange(seconds.toString());
                }
                return MIN_TIMESTAMP;
            }
            BigDecimal ms = seconds.movePointRight(3).setScale(0, RoundingMode.FLOOR);
            if (ms.compareTo(BigDecimal.valueOf(MIN_TIMESTAMP)) < 0
                    || ms.compareTo(BigDecimal.valueOf(MAX_TIMESTAMP)) > 0) {
                throw outOfRange(seconds.toPlainString()); // at most 19 digits before the point, ~1000 after
            }
            return ms.longValueExact();
        }
        throw fieldError("timestamp", timestampField, "must be an integral number of "
                + epochUnit.name().toLowerCase(java.util.Locale.ROOT) + " or an ISO-8601 date-time string, got "
                + kind(n) + " " + shown(n));
    }

    /** Up to {@value #SHOWN_CHARS} characters of a value a reason quotes: a field's value may be most of a record. */
    static String shown(String text) {
        return text.length() <= SHOWN_CHARS ? text
                : Utf8Text.prefix(text, SHOWN_CHARS) + "… (" + text.length() + " characters)";
    }

    private static String shown(JsonNode n) {
        return shown(n.toString());
    }

    private long inRange(long t, String given) throws MalformedRecordException {
        if (t < MIN_TIMESTAMP || t > MAX_TIMESTAMP) {
            throw outOfRange(given);
        }
        return t;
    }

    private MalformedRecordException outOfRange(String given) {
        return fieldError("timestamp", timestampField, "must be in [" + MIN_TIMESTAMP + ", " + MAX_TIMESTAMP
                + "] ms since the epoch (1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z), got " + shown(given)
                + (epochUnit == EpochUnit.SECONDS && !given.startsWith("\"") ? " s" : ""));
    }

    private static MalformedRecordException fieldError(String what, String location, String problem) {
        return new MalformedRecordException(what + " field " + location + " " + problem,
                MalformedRecordException.NO_OFFSET);
    }

    private static String kind(JsonNode n) {
        return switch (n.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case BOOLEAN -> "a boolean";
            case NUMBER -> n.isIntegralNumber() ? "an integer" : "a fractional number";
            case NULL -> "null";
            default -> n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** The key's location; for a composite key, its locations joined by ", ". */
    public String keyField() {
        return String.join(", ", keyFields);
    }

    /** The key's locations: one, or the fields of a composite key in order. */
    public java.util.List<String> keyFields() {
        return java.util.List.of(keyFields);
    }

    public String weightField() {
        return weightField;
    }

    public String timestampField() {
        return timestampField;
    }

    public EpochUnit epochUnit() {
        return epochUnit;
    }

    @Override
    public String toString() {
        return "JsonEventFormat{key=" + keyField() + ", weight=" + weightField + ", timestamp=" + timestampField + " ("
                + epochUnit + ")}";
    }

    /** Builder; {@link #build()} checks the field locations and names the bad parameter. */
    public static final class Builder {
        private String[] keyFields;
        private String weightField;
        private String timestampField;
        private EpochUnit epochUnit = EpochUnit.MILLISECONDS;

        private Builder() {
        }

        /** Where the key is (required), or {@link #keyFields} for a composite key. */
        public Builder keyField(String location) {
            this.keyFields = new String[] {location};
            return this;
        }

        /**
         * Where the fields of a composite key are, in order: 1 to {@link #MAX_KEY_FIELDS} distinct locations. One
         * location is the same as {@link #keyField}.
         */
        public Builder keyFields(java.util.List<String> locations) {
            this.keyFields = Objects.requireNonNull(locations, "keyFields").toArray(new String[0]);
            return this;
        }

        /** Where the weight is; {@code null} (default) for weight 1. */
        public Builder weightField(String location) {
            this.weightField = location;
            return this;
        }

        /** Where the event time is; {@code null} (default) for none ({@link Event#NO_TIMESTAMP}). */
        public Builder timestampField(String location) {
            this.timestampField = location;
            return this;
        }

        /** Unit of numeric timestamps (default milliseconds). */
        public Builder epochUnit(EpochUnit unit) {
            this.epochUnit = Objects.requireNonNull(unit, "epochUnit");
            return this;
        }

        /** @throws IllegalArgumentException naming the parameter when a location is empty or invalid */
        public JsonEventFormat build() {
            return new JsonEventFormat(this);
        }
    }
}
