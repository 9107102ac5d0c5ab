package io.linerate.flink.serializers;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The configuration a serializer expects of the structures it handles: named shape fields (width, depth, bits,
 * hash count, seed, ...) whose change makes restored state unsound, and named <em>hints</em> (for example a Bloom
 * filter's expected-items figure) whose change is harmless.
 *
 * <p>Values are kept as strings so that the snapshot format is the same for every structure; field order is
 * insertion order. Written into the serializer snapshot by {@link #write}.
 */
public final class Shape implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Limits applied when reading a snapshot, so a corrupt snapshot cannot make us allocate much. */
    static final int MAX_FIELDS = 256;
    static final int MAX_TEXT_CHARS = 4096;

    private final LinkedHashMap<String, String> fields;
    private final LinkedHashSet<String> hints;

    private Shape(LinkedHashMap<String, String> fields, LinkedHashSet<String> hints) {
        this.fields = fields;
        this.hints = hints;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Shape fields and hints, in order; hints are the names in {@link #hints()}. */
    public Map<String, String> fields() {
        return Collections.unmodifiableMap(fields);
    }

    public Set<String> hints() {
        return Collections.unmodifiableSet(hints);
    }

    /**
     * This shape with one more harmless hint (replacing a hint of the same name).
     *
     * @throws IllegalArgumentException if {@code name} is a shape field of this shape: a hint must not take over
     *     a field, whose change makes restored state unsound
     */
    public Shape withHint(String name, Object value) {
        Builder b = toBuilder();
        b.hint(name, value);
        return b.build();
    }

    private Builder toBuilder() {
        Builder b = new Builder();
        b.fields.putAll(fields);
        b.hints.addAll(hints);
        return b;
    }

    /**
     * Differences between {@code older} (the restored state's) and this shape, one entry per field as
     * {@code "width: 2048 -> 4096"}; a field missing on one side shows as {@code (absent)}.
     *
     * <p>A name counts as a hint only if every side that has it marks it a hint: a name that is a shape field on
     * either side is compared as a shape field. So a snapshot written before a hint was added (the name absent)
     * stays compatible, while a name that a snapshot of an older version recorded as a hint although it was a
     * shape field (before {@link Builder#hint} refused that) cannot hide a change of that field.
     *
     * @param includeHints whether changed hints are listed too (they are suffixed {@code " (hint)"})
     */
    public List<String> differencesFrom(Shape older, boolean includeHints) {
        List<String> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>(older.fields.keySet());
        names.addAll(fields.keySet());
        for (String name : names) {
            boolean hint = (!fields.containsKey(name) || hints.contains(name))
                    && (!older.fields.containsKey(name) || older.hints.contains(name));
            if (hint && !includeHints) {
                continue;
            }
            String before = older.fields.get(name);
            String after = fields.get(name);
            if (!Objects.equals(before, after)) {
                out.add(name + ": " + (before == null ? "(absent)" : before) + " -> "
                        + (after == null ? "(absent)" : after) + (hint ? " (hint)" : ""));
            }
        }
        return out;
    }

    void write(DataOutputView out) throws IOException {
        out.writeInt(fields.size());
        for (Map.Entry<String, String> e : fields.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
            out.writeBoolean(hints.contains(e.getKey()));
        }
    }

    static Shape read(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_FIELDS) {
            throw new IOException("serializer snapshot corrupt: shape field count " + n + " outside [0, "
                    + MAX_FIELDS + "]");
        }
        Builder b = new Builder();
        for (int i = 0; i < n; i++) {
            // readUTF reads at most 65535 bytes: bounded by construction
            String name = in.readUTF();
            String value = in.readUTF();
            boolean hint = in.readBoolean();
            if (name.length() > MAX_TEXT_CHARS || value.length() > MAX_TEXT_CHARS) {
                // the builder's own limit would throw IllegalArgumentException: a corrupt snapshot is an IOException
                throw new IOException("serializer snapshot corrupt: shape field "
                        + (name.length() > MAX_TEXT_CHARS ? "name" : name) + " longer than " + MAX_TEXT_CHARS
                        + " characters");
            }
            if (b.fields.containsKey(name)) {
                // a writer records each name once
                throw new IOException("serializer snapshot corrupt: shape field " + name + " repeated");
            }
            if (hint) {
                b.hint(name, value);
            } else {
                b.field(name, value);
            }
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Shape s && fields.equals(s.fields) && hints.equals(s.hints);
    }

    @Override
    public int hashCode() {
        return fields.hashCode() * 31 + hints.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, String> e : fields.entrySet()) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
            if (hints.contains(e.getKey())) {
                sb.append(" (hint)");
            }
        }
        return sb.append('}').toString();
    }

    /** Collects fields in order. */
    public static final class Builder {
        private final LinkedHashMap<String, String> fields = new LinkedHashMap<>();
        private final LinkedHashSet<String> hints = new LinkedHashSet<>();

        private Builder() {
        }

        /** A shape field: a change makes restored state incompatible. */
        public Builder field(String name, Object value) {
            put(name, value);
            hints.remove(name);
            return this;
        }

        /**
         * A harmless hint: a change is reported but the state stays compatible as is. Setting a hint again
         * replaces its value.
         *
         * @throws IllegalArgumentException if {@code name} is already a shape field (a hint must not take it over)
         */
        public Builder hint(String name, Object value) {
            Objects.requireNonNull(name, "name");
            if (fields.containsKey(name) && !hints.contains(name)) {
                throw new IllegalArgumentException("hint name " + name + " is already a shape field: a change of "
                        + "it makes restored state incompatible, so it cannot be a hint");
            }
            put(name, value);
            hints.add(name);
            return this;
        }

        private void put(String name, Object value) {
            Objects.requireNonNull(name, "name");
            String v = String.valueOf(value);
            if (name.length() > MAX_TEXT_CHARS || v.length() > MAX_TEXT_CHARS) {
                throw new IllegalArgumentException("shape field name or value longer than " + MAX_TEXT_CHARS);
            }
            if (!fields.containsKey(name) && fields.size() == MAX_FIELDS) {
                throw new IllegalArgumentException("more than " + MAX_FIELDS + " shape fields");
            }
            fields.put(name, v);
        }

        public Shape build() {
            return new Shape(new LinkedHashMap<>(fields), new LinkedHashSet<>(hints));
        }
    }
}
