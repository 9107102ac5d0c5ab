package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonGenerator;
import io.linerate.flink.countmin.CountMinEstimate;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.flink.heavyhitters.HeavyHitterAlert;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.heavyhitters.ReportedItem;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.hash.FiveTuple;
import java.io.IOException;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;

/**
 * The JSON output records of the jobs, as {@link JsonSerialization}s for Kafka sinks. Every object has a
 * {@code "type"} field naming its schema; field names are snake_case and stable (schemas in
 * {@code docs/FORMATS.md}); timestamps are epoch milliseconds; addresses are text (IPv4 dotted, IPv6 RFC 5952).
 * A generic part (scope key, query, rejected record) is written by a {@link ValueWriter}
 * ({@link ValueWriter#auto()} by default: numbers stay numbers, strings strings).
 */
public final class OutputJson {

    public static final String HEAVY_HITTER_REPORT = "heavy_hitter_report";
    public static final String HEAVY_HITTER_ALERT = "heavy_hitter_alert";
    public static final String FLOW = "flow";
    public static final String UNIQUE_EVENT = "unique_event";
    public static final String PROBABLE_DUPLICATE = "probable_duplicate";
    public static final String COUNT_MIN_ESTIMATE = "count_min_estimate";
    public static final String DEAD_LETTER = "dead_letter";
    public static final String REJECTED = "rejected";

    private OutputJson() {
    }

    public static <K> JsonSerialization<HeavyHitterReport<K>> heavyHitterReports() {
        return heavyHitterReports(ValueWriter.auto());
    }

    public static <K> JsonSerialization<HeavyHitterReport<K>> heavyHitterReports(ValueWriter<? super K> scope) {
        Objects.requireNonNull(scope, "scope");
        return new JsonSerialization<>((r, g) -> {
            g.writeStartObject();
            g.writeStringField("type", HEAVY_HITTER_REPORT);
            g.writeFieldName("scope");
            scope.write(r.key, g);
            g.writeNumberField("window_start", r.windowStart);
            g.writeNumberField("window_end", r.windowEnd);
            g.writeNumberField("total_weight", r.totalWeight);
            g.writeNumberField("phi", r.phi);
            g.writeNumberField("unmonitored_bound", r.unmonitoredBound);
            g.writeBooleanField("complete", r.complete);
            g.writeArrayFieldStart("items");
            if (r.items != null) {
                for (ReportedItem i : r.items) {
                    g.writeStartObject();
                    g.writeStringField("item", i.item);
                    g.writeNumberField("estimate", i.estimate);
                    g.writeNumberField("lower_bound", i.lowerBound);
                    g.writeNumberField("upper_bound", i.upperBound);
                    g.writeBooleanField("heavy", i.heavy);
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    public static <K> JsonSerialization<HeavyHitterAlert<K>> heavyHitterAlerts() {
        return heavyHitterAlerts(ValueWriter.auto());
    }

    public static <K> JsonSerialization<HeavyHitterAlert<K>> heavyHitterAlerts(ValueWriter<? super K> scope) {
        Objects.requireNonNull(scope, "scope");
        return new JsonSerialization<>((a, g) -> {
            g.writeStartObject();
            g.writeStringField("type", HEAVY_HITTER_ALERT);
            g.writeFieldName("scope");
            scope.write(a.key, g);
            g.writeNumberField("window_start", a.windowStart);
            g.writeNumberField("window_end", a.windowEnd);
            g.writeNumberField("timestamp", a.timestamp);
            g.writeStringField("item", a.item);
            g.writeNumberField("estimate", a.estimate);
            g.writeNumberField("window_weight", a.windowWeight);
            g.writeNumberField("threshold", a.threshold);
            g.writeStringField("kind", a.kind);
            g.writeEndObject();
        });
    }

    public static <K> JsonSerialization<MeteredFlow<K>> flows() {
        return flows(ValueWriter.auto());
    }

    public static <K> JsonSerialization<MeteredFlow<K>> flows(ValueWriter<? super K> scope) {
        Objects.requireNonNull(scope, "scope");
        return JsonSerialization.encodedBy(new FlowRecordJson<K>(scope));
    }

    /** The first occurrences of the dedup job: type {@value #UNIQUE_EVENT}, the event's fields and raw JSON. */
    public static JsonSerialization<Event> uniqueEvents() {
        return events(UNIQUE_EVENT);
    }

    /** The probable duplicates of the dedup job: type {@value #PROBABLE_DUPLICATE}. */
    public static JsonSerialization<Event> probableDuplicates() {
        return events(PROBABLE_DUPLICATE);
    }

    /** The event's raw JSON exactly as it arrived (no envelope): for consumers of the original stream. */
    public static JsonSerialization<Event> rawEvents() {
        return new JsonSerialization<>((e, g) -> g.writeRawValue(e.json));
    }

    private static JsonSerialization<Event> events(String type) {
        return new JsonSerialization<>((e, g) -> {
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("key", e.key);
            g.writeNumberField("weight", e.weight);
            if (e.timestamp == Event.NO_TIMESTAMP) {
                g.writeNullField("timestamp");
            } else {
                g.writeNumberField("timestamp", e.timestamp);
            }
            g.writeFieldName("event");
            if (e.json == null) {
                g.writeNull();
            } else {
                g.writeRawValue(e.json);
            }
            g.writeEndObject();
        });
    }

    public static <K, Q> JsonSerialization<CountMinEstimate<K, Q>> countMinEstimates() {
        return countMinEstimates(ValueWriter.auto(), ValueWriter.auto());
    }

    public static <K, Q> JsonSerialization<CountMinEstimate<K, Q>> countMinEstimates(ValueWriter<? super K> scope,
                                                                                   ValueWriter<? super Q> query) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(query, "query");
        return new JsonSerialization<>((c, g) -> {
            g.writeStartObject();
            g.writeStringField("type", COUNT_MIN_ESTIMATE);
            g.writeFieldName("scope");
            scope.write(c.scope, g);
            g.writeFieldName("query");
            query.write(c.query, g);
            g.writeNumberField("estimate", c.estimate);
            if (c.errorBound >= 0x1p63) {
                // the saturation sentinel (no bound): Long.MAX_VALUE exactly, as documented, not the double 2^63
                g.writeNumberField("error_bound", Long.MAX_VALUE);
            } else {
                g.writeNumberField("error_bound", c.errorBound);
            }
            g.writeNumberField("lower_bound", c.lowerBound());
            g.writeNumberField("total_weight", c.totalWeight);
            g.writeEndObject();
        });
    }

    /**
     * Dead letters: the value's and the key's kept bytes in base64 (RFC 4648, with padding), the kept headers as
     * {@code {"key": name, "value_base64": …}} objects in their order ({@code null} for a null value). The fields
     * of the key and headers follow those of earlier versions, which they leave as they were.
     */
    public static JsonSerialization<DeadLetter> deadLetters() {
        return new JsonSerialization<>((d, g) -> {
            g.writeStartObject();
            g.writeStringField("type", DEAD_LETTER);
            g.writeStringField("topic", d.topic);
            g.writeNumberField("partition", d.partition);
            g.writeNumberField("offset", d.offset);
            g.writeNumberField("timestamp", d.timestamp);
            g.writeStringField("reason", d.reason);
            g.writeNumberField("error_offset", d.errorOffset);
            g.writeNumberField("value_length", d.valueLength);
            g.writeBooleanField("value_truncated", d.truncated());
            g.writeStringField("value_base64", d.value == null ? null : Base64.getEncoder().encodeToString(d.value));
            g.writeNumberField("key_length", d.keyLength);
            g.writeBooleanField("key_truncated", d.keyTruncated());
            g.writeStringField("key_base64", d.keyLength < 0 || d.key == null ? null
                    : Base64.getEncoder().encodeToString(d.key));
            g.writeNumberField("header_count", d.headerCount);
            g.writeBooleanField("headers_truncated", d.headersTruncated());
            g.writeArrayFieldStart("headers");
            for (int i = 0; i < d.keptHeaders(); i++) {
                g.writeStartObject();
                g.writeStringField("key", d.headerKeys[i]);
                byte[] v = d.headerValues[i];
                g.writeStringField("value_base64", v == null ? null : Base64.getEncoder().encodeToString(v));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    public static <T> JsonSerialization<Rejected<T>> rejected() {
        return rejected(ValueWriter.auto());
    }

    /** Records an operator rejected, with the reason; the record rendered by {@code record}. */
    public static <T> JsonSerialization<Rejected<T>> rejected(ValueWriter<? super T> record) {
        Objects.requireNonNull(record, "record");
        return new JsonSerialization<>((r, g) -> {
            g.writeStartObject();
            g.writeStringField("type", REJECTED);
            g.writeStringField("reason", r.reason);
            g.writeFieldName("record");
            record.write(r.record, g);
            g.writeEndObject();
        });
    }

    static void writePacket(PacketRecord p, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("timestamp", p.timestamp());
        g.writeNumberField("observation_point", p.observationPoint());
        g.writeNumberField("ip_version", p.isIpv6() ? 6 : 4);
        g.writeStringField("src_addr", p.srcAddress());
        g.writeStringField("dst_addr", p.dstAddress());
        g.writeNumberField("src_port", p.srcPort());
        g.writeNumberField("dst_port", p.dstPort());
        g.writeNumberField("protocol", p.protocol());
        g.writeNumberField("tcp_flags", p.tcpFlags());
        g.writeNumberField("length", p.length());
        g.writeEndObject();
    }

    static void writeFiveTuple(FiveTuple t, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("ip_version", t.isIpv6() ? 6 : 4);
        g.writeStringField("src_addr", t.isIpv6() ? Addresses.ipv6(t.srcHigh(), t.srcLow())
                : Addresses.ipv4((int) t.srcLow()));
        g.writeStringField("dst_addr", t.isIpv6() ? Addresses.ipv6(t.dstHigh(), t.dstLow())
                : Addresses.ipv4((int) t.dstLow()));
        g.writeNumberField("src_port", t.srcPort());
        g.writeNumberField("dst_port", t.dstPort());
        g.writeNumberField("protocol", t.protocol());
        g.writeEndObject();
    }
}
