package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.countmin.CountMinEstimate;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.flink.heavyhitters.HeavyHitterAlert;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.heavyhitters.ReportedItem;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.flowtable.ExportReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The output writers on golden examples: each output is parsed back with Jackson and checked field by field, and
 * must equal (as a JSON tree) the example of the same name in docs/FORMATS.md, so the documentation cannot drift.
 */
class OutputJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final long T0 = 1_763_720_000_000L;
    static final String EVENT_JSON = "{\"user\":{\"id\":\"alice\"},\"bytes\":1500,\"ts\":1763720000123}";

    static HeavyHitterReport<Integer> report() {
        HeavyHitterReport<Integer> r = new HeavyHitterReport<>();
        r.key = 7;
        r.windowStart = T0;
        r.windowEnd = T0 + 10_000;
        r.totalWeight = 120_000;
        r.phi = 0.01;
        r.unmonitoredBound = 40;
        r.complete = true;
        r.items.add(new ReportedItem("10.0.0.1 10.0.0.2 51000 443 6", 5200, 5160, 5200, true));
        r.items.add(new ReportedItem("192.168.1.9 10.0.0.2 40000 53 17", 900, 860, 900, false));
        return r;
    }

    static HeavyHitterAlert<Integer> alert() {
        HeavyHitterAlert<Integer> a = new HeavyHitterAlert<>();
        a.key = 7;
        a.windowStart = T0;
        a.windowEnd = T0 + 10_000;
        a.timestamp = T0 + 4321;
        a.item = "10.0.0.1 10.0.0.2 51000 443 6";
        a.estimate = 1300;
        a.windowWeight = 60_000;
        a.threshold = 1200;
        a.kind = HeavyHitterAlert.FRACTION;
        return a;
    }

    static MeteredFlow<Integer> flow() {
        MeteredFlow<Integer> f = new MeteredFlow<>();
        f.scope = 7;
        f.ipv6 = true;
        f.srcHigh = 0x20010db800000000L;
        f.srcLow = 1;
        f.dstHigh = 0x20010db800000000L;
        f.dstLow = 0x0000000000020001L;
        f.srcPort = 51_000;
        f.dstPort = 443;
        f.protocol = 6;
        f.packets = 12;
        f.bytes = 9000;
        f.firstTimestamp = T0 + 12;
        f.lastTimestamp = T0 + 15_012;
        f.tcpFlags = 0x1b;
        f.reason = ExportReason.IDLE_TIMEOUT;
        return f;
    }

    static MeteredFlow<Integer> ipv4Flow() {
        MeteredFlow<Integer> f = flow();
        f.ipv6 = false;
        f.srcHigh = 0;
        f.dstHigh = 0;
        f.srcLow = 0xC0A80109L; // 192.168.1.9
        f.dstLow = 0x0A000002L;
        return f;
    }

    static Event event() {
        return new Event("alice", 1500, T0 + 123, EVENT_JSON);
    }

    static DeadLetter deadLetter() {
        byte[] head = {0x4C, 0x52, 0x01, 0x00, 0x00, 0x00, 0x00, 0x07};
        return new DeadLetter("packets", 3, 1042, T0 + 500,
                "packet 2: impossible length 12 of an IPv4 packet, expected [20, 2097151]", 75, head, 120)
                .keyAndHeaders(new byte[] {0, 0, 0, 7}, 4, new String[] {"source", "trace"},
                        new byte[][] {"probe-7".getBytes(java.nio.charset.StandardCharsets.UTF_8), null}, 2);
    }

    static Rejected<PacketRecord> rejected() {
        return new Rejected<>(new PacketRecord().setIpv4(T0 + 7, 0x0A000001, 0x0A000002, 51_000, 443, 6, 0x02, 60, 7),
                "late: 1763720000007 is behind the watermark 1763720005000");
    }

    /** The JSON of every example, by the name its block has in docs/FORMATS.md. */
    static Map<String, String> examples() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("heavy_hitter_report", OutputJson.<Integer>heavyHitterReports().toJson(report()));
        m.put("heavy_hitter_alert", OutputJson.<Integer>heavyHitterAlerts().toJson(alert()));
        m.put("flow", OutputJson.<Integer>flows().toJson(flow()));
        m.put("unique_event", OutputJson.uniqueEvents().toJson(event()));
        m.put("probable_duplicate", OutputJson.probableDuplicates().toJson(event()));
        m.put("count_min_estimate", OutputJson.<String, String>countMinEstimates()
                .toJson(new CountMinEstimate<>("tenant-a", "alice", 42, 13.6, 10_000)));
        m.put("dead_letter", OutputJson.deadLetters().toJson(deadLetter()));
        m.put("rejected", OutputJson.<PacketRecord>rejected().toJson(rejected()));
        return m;
    }

    private static JsonNode parse(String json) throws Exception {
        return JSON.readTree(json);
    }

    @Test
    void heavyHitterReportFields() throws Exception {
        JsonNode n = parse(examples().get("heavy_hitter_report"));
        assertThat(n.get("type").asText()).isEqualTo("heavy_hitter_report");
        assertThat(n.get("scope").isInt()).isTrue();
        assertThat(n.get("scope").asInt()).isEqualTo(7);
        assertThat(n.get("window_start").asLong()).isEqualTo(T0);
        assertThat(n.get("window_end").asLong()).isEqualTo(T0 + 10_000);
        assertThat(n.get("total_weight").asLong()).isEqualTo(120_000);
        assertThat(n.get("phi").asDouble()).isEqualTo(0.01);
        assertThat(n.get("unmonitored_bound").asLong()).isEqualTo(40);
        assertThat(n.get("complete").asBoolean()).isTrue();
        assertThat(n.get("items")).hasSize(2);
        JsonNode first = n.get("items").get(0);
        assertThat(first.get("item").asText()).isEqualTo("10.0.0.1 10.0.0.2 51000 443 6");
        assertThat(first.get("estimate").asLong()).isEqualTo(5200);
        assertThat(first.get("lower_bound").asLong()).isEqualTo(5160);
        assertThat(first.get("upper_bound").asLong()).isEqualTo(5200);
        assertThat(first.get("heavy").asBoolean()).isTrue();
        assertThat(n.get("items").get(1).get("heavy").asBoolean()).isFalse();
        // a string scope stays a string
        HeavyHitterReport<String> r = new HeavyHitterReport<>();
        r.key = "link-1";
        assertThat(parse(OutputJson.<String>heavyHitterReports().toJson(r)).get("scope").isTextual()).isTrue();
    }

    @Test
    void alertFields() throws Exception {
        JsonNode n = parse(examples().get("heavy_hitter_alert"));
        assertThat(n.get("type").asText()).isEqualTo("heavy_hitter_alert");
        assertThat(n.get("timestamp").asLong()).isEqualTo(T0 + 4321);
        assertThat(n.get("item").asText()).isEqualTo("10.0.0.1 10.0.0.2 51000 443 6");
        assertThat(n.get("estimate").asLong()).isEqualTo(1300);
        assertThat(n.get("window_weight").asLong()).isEqualTo(60_000);
        assertThat(n.get("threshold").asLong()).isEqualTo(1200);
        assertThat(n.get("kind").asText()).isEqualTo("fraction");
    }

    @Test
    void flowFieldsWithAddressesAsText() throws Exception {
        JsonNode n = parse(examples().get("flow"));
        assertThat(n.get("type").asText()).isEqualTo("flow");
        assertThat(n.get("ip_version").asInt()).isEqualTo(6);
        assertThat(n.get("src_addr").asText()).isEqualTo("2001:db8::1");
        assertThat(n.get("dst_addr").asText()).isEqualTo("2001:db8::2:1");
        assertThat(n.get("src_port").asInt()).isEqualTo(51_000);
        assertThat(n.get("dst_port").asInt()).isEqualTo(443);
        assertThat(n.get("protocol").asInt()).isEqualTo(6);
        assertThat(n.get("packets").asLong()).isEqualTo(12);
        assertThat(n.get("bytes").asLong()).isEqualTo(9000);
        assertThat(n.get("first_timestamp").asLong()).isEqualTo(T0 + 12);
        assertThat(n.get("last_timestamp").asLong()).isEqualTo(T0 + 15_012);
        assertThat(n.get("tcp_flags").asInt()).isEqualTo(0x1b);
        assertThat(n.get("export_reason").asText()).isEqualTo("idle_timeout");
        JsonNode v4 = parse(OutputJson.<Integer>flows().toJson(ipv4Flow()));
        assertThat(v4.get("ip_version").asInt()).isEqualTo(4);
        assertThat(v4.get("src_addr").asText()).isEqualTo("192.168.1.9");
        assertThat(v4.get("dst_addr").asText()).isEqualTo("10.0.0.2");
    }

    @Test
    void eventsCarryTheirRawJson() throws Exception {
        JsonNode u = parse(examples().get("unique_event"));
        assertThat(u.get("type").asText()).isEqualTo("unique_event");
        assertThat(u.get("key").asText()).isEqualTo("alice");
        assertThat(u.get("weight").asLong()).isEqualTo(1500);
        assertThat(u.get("timestamp").asLong()).isEqualTo(T0 + 123);
        assertThat(u.get("event")).isEqualTo(parse(EVENT_JSON));
        assertThat(parse(examples().get("probable_duplicate")).get("type").asText()).isEqualTo("probable_duplicate");
        assertThat(OutputJson.rawEvents().toJson(event())).isEqualTo(EVENT_JSON);
        Event noTime = new Event("k", 1, Event.NO_TIMESTAMP, "{\"k\":\"k\"}");
        assertThat(parse(OutputJson.uniqueEvents().toJson(noTime)).get("timestamp").isNull()).isTrue();
    }

    @Test
    void countMinEstimateFields() throws Exception {
        JsonNode n = parse(examples().get("count_min_estimate"));
        assertThat(n.get("type").asText()).isEqualTo("count_min_estimate");
        assertThat(n.get("scope").asText()).isEqualTo("tenant-a");
        assertThat(n.get("query").asText()).isEqualTo("alice");
        assertThat(n.get("estimate").asLong()).isEqualTo(42);
        assertThat(n.get("error_bound").asDouble()).isEqualTo(13.6);
        assertThat(n.get("lower_bound").asLong()).isEqualTo(29);
        assertThat(n.get("total_weight").asLong()).isEqualTo(10_000);
    }

    @Test
    void deadLetterFields() throws Exception {
        JsonNode n = parse(examples().get("dead_letter"));
        assertThat(n.get("type").asText()).isEqualTo("dead_letter");
        assertThat(n.get("topic").asText()).isEqualTo("packets");
        assertThat(n.get("partition").asInt()).isEqualTo(3);
        assertThat(n.get("offset").asLong()).isEqualTo(1042);
        assertThat(n.get("timestamp").asLong()).isEqualTo(T0 + 500);
        assertThat(n.get("reason").asText()).startsWith("packet 2: impossible length 12");
        assertThat(n.get("error_offset").asLong()).isEqualTo(75);
        assertThat(n.get("value_length").asInt()).isEqualTo(120);
        assertThat(n.get("value_truncated").asBoolean()).isTrue();
        assertThat(Base64.getDecoder().decode(n.get("value_base64").asText())).isEqualTo(deadLetter().value);
    }

    @Test
    void rejectedFields() throws Exception {
        JsonNode n = parse(examples().get("rejected"));
        assertThat(n.get("type").asText()).isEqualTo("rejected");
        assertThat(n.get("reason").asText()).startsWith("late:");
        JsonNode p = n.get("record");
        assertThat(p.get("timestamp").asLong()).isEqualTo(T0 + 7);
        assertThat(p.get("observation_point").asInt()).isEqualTo(7);
        assertThat(p.get("src_addr").asText()).isEqualTo("10.0.0.1");
        assertThat(p.get("dst_addr").asText()).isEqualTo("10.0.0.2");
        assertThat(p.get("tcp_flags").asInt()).isEqualTo(2);
        assertThat(p.get("length").asInt()).isEqualTo(60);
        Rejected<Event> e = new Rejected<>(event(), "key longer than 64 bytes");
        assertThat(parse(OutputJson.<Event>rejected().toJson(e)).get("record")).isEqualTo(parse(EVENT_JSON));
    }

    /** Every schema's example in docs/FORMATS.md is exactly what the writer produces (as a JSON tree). */
    @Test
    void documentedExamplesAreTheWritersOutput() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "FORMATS.md"));
        Matcher m = Pattern.compile("<!-- example: (\\w+) -->\\s*```json\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        Map<String, String> documented = new LinkedHashMap<>();
        while (m.find()) {
            documented.put(m.group(1), m.group(2));
        }
        Map<String, String> written = examples();
        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(written.keySet());
        for (Map.Entry<String, String> e : written.entrySet()) {
            assertThat(parse(documented.get(e.getKey()))).as(e.getKey() + ": " + e.getValue())
                    .isEqualTo(parse(e.getValue()));
        }
    }

    /** Prints the examples pretty, to paste into docs/FORMATS.md after a deliberate schema change. */
    public static void main(String[] args) throws Exception {
        for (Map.Entry<String, String> e : examples().entrySet()) {
            System.out.println("<!-- example: " + e.getKey() + " -->\n```json\n"
                    + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(parse(e.getValue())) + "\n```\n");
        }
    }

    static List<String> names() {
        return List.copyOf(examples().keySet());
    }
}
