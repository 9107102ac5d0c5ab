package io.linerate.jobs.flowmeter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.local.RedrawThrottle;
import io.linerate.jobs.local.TopicView;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The demo's live view of the flow meter: reads the flows topic from its beginning (committed records only: what the
 * job decided) and shows the flow records so far: their number per export reason, per observation point the
 * records, packets and bytes, and the largest flows by bytes. A record stream changes the view all the time, so it
 * is redrawn at most once per {@code interval} (1 s on a terminal, 10 s as blocks by default).
 */
public final class FlowsView extends TopicView {

  /** One of the largest flows: its observation point, 5-tuple as text, counters and export reason. */
  public record Flow(String scope, String tuple, long packets, long bytes, String reason) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final RedrawThrottle redraws;
  private final Map<String, long[]> perScope = new TreeMap<>(TopicView::compareScopes); // records, packets, bytes
  private final Map<String, Long> perReason = new TreeMap<>();
  private final List<Flow> largest = new ArrayList<>();
  private final String whenWritten;
  private long records;
  private long skipped;

  private FlowsView(Builder b) {
    super(b, "linerate-flows-view");
    this.whenWritten = b.idleTimeout == null ? "" : String.format(Locale.ROOT,
        " (the job writes a flow once it has been idle for %s or active for %s of event time, or when its table"
            + " evicts it)", DurationConverter.format(b.idleTimeout),
        DurationConverter.format(b.activeTimeout));
    this.redraws = new RedrawThrottle(b.interval != null ? b.interval : Duration.ofSeconds(inPlace() ? 1 : 10));
  }

  /** A view of the flows in {@code topic} on {@code bootstrapServers}. */
  public static Builder builder(String bootstrapServers, String topic) {
    return new Builder(Objects.requireNonNull(bootstrapServers, "bootstrapServers"),
        Objects.requireNonNull(topic, "topic"));
  }

  /** A view without a consumer: fed with {@link #accept(String)} (tests). */
  public static Builder offline() {
    return new Builder(null, null);
  }

  /** Reads what the topic holds now; true when flows arrived and the interval since the last showing has passed. */
  @Override
  public boolean poll(Duration timeout) {
    for (ConsumerRecord<byte[], String> r : records(timeout)) {
      redraws.changed(accept(r.value()));
    }
    return redraws.due();
  }

  /** A change the redraw interval held back: {@link #printFinal} shows it. */
  @Override
  protected boolean unshownChange() {
    return redraws.pending();
  }

  /** Takes one record of the topic; returns whether it is a flow record (others are counted as skipped). */
  public boolean accept(String json) {
    JsonNode n;
    try {
      n = json == null ? null : JSON.readTree(json);
    } catch (java.io.IOException e) {
      n = null;
    }
    if (n == null || !n.isObject() || !n.path("type").asText().equals(OutputJson.FLOW)) {
      skipped++;
      return false;
    }
    JsonNode scopeNode = n.path("scope");
    String scope = scopeNode.isValueNode() ? scopeNode.asText() : scopeNode.toString();
    long packets = n.path("packets").asLong();
    long bytes = n.path("bytes").asLong();
    String reason = n.path("export_reason").asText();
    records++;
    long[] totals = perScope.computeIfAbsent(scope, s -> new long[3]);
    totals[0]++;
    totals[1] += packets;
    totals[2] += bytes;
    perReason.merge(reason, 1L, Long::sum);
    if (largest.size() < rows || bytes > largest.get(largest.size() - 1).bytes()) {
      largest.add(new Flow(scope, tuple(n), packets, bytes, reason));
      largest.sort(Comparator.comparingLong(Flow::bytes).reversed());
      if (largest.size() > rows) {
        largest.remove(rows);
      }
    }
    return true;
  }

  /** The flow's 5-tuple: {@code src:port > dst:port proto}, IPv6 addresses in brackets. */
  private static String tuple(JsonNode n) {
    boolean v6 = n.path("ip_version").asInt() == 6;
    String src = n.path("src_addr").asText();
    String dst = n.path("dst_addr").asText();
    int protocol = n.path("protocol").asInt();
    String name = switch (protocol) {
      case 1 -> "icmp";
      case 6 -> "tcp";
      case 17 -> "udp";
      case 58 -> "icmpv6";
      default -> "proto " + protocol;
    };
    return (v6 ? "[" + src + "]" : src) + ":" + n.path("src_port").asInt() + " > " + (v6 ? "[" + dst + "]" : dst)
        + ":" + n.path("dst_port").asInt() + " " + name;
  }

  /** Flow records read so far. */
  public long records() {
    return records;
  }

  /** Records of the topic that were not flow records (dead letters share no topic with them; anything else). */
  public long skipped() {
    return skipped;
  }

  /** The view as text, ending with a newline. */
  @Override
  public String render() {
    if (records == 0) {
      return "flow meter: no flow record committed yet" + whenWritten + "\n";
    }
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "flow records committed: %,d (", records));
    perReason.forEach((reason, count) -> out.append(String.format(Locale.ROOT, "%s %,d, ", reason, count)));
    out.setLength(out.length() - 2);
    out.append(")\n");
    perScope.forEach((scope, t) -> out.append(String.format(Locale.ROOT,
        "  observation point %s: %,d records, %,d packets, %,d bytes%n", scope, t[0], t[1], t[2])));
    int width = 4;
    for (Flow f : largest) {
      width = Math.max(width, f.tuple().length());
    }
    out.append(String.format(Locale.ROOT, "largest flows so far:%n  %3s  %5s  %-" + width + "s  %12s  %15s  %s%n",
        "#", "point", "flow", "packets", "bytes", "reason"));
    for (int i = 0; i < largest.size(); i++) {
      Flow f = largest.get(i);
      out.append(String.format(Locale.ROOT, "  %3d  %5s  %-" + width + "s  %,12d  %,15d  %s%n", i + 1, f.scope(),
          f.tuple(), f.packets(), f.bytes(), f.reason()));
    }
    return out.toString();
  }

  /** Options of a {@link FlowsView}. */
  public static final class Builder extends TopicView.Builder<Builder> {
    private Duration interval;
    private Duration idleTimeout;
    private Duration activeTimeout;

    private Builder(String bootstrapServers, String topic) {
      super(bootstrapServers, topic);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Shortest time between two showings (default 1 s on a terminal, 10 s otherwise); > 0. */
    public Builder interval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be > 0, got " + interval);
      }
      this.interval = interval;
      return this;
    }

    /** The job's timeouts, which the view names while no flow has been written yet. */
    public Builder timeouts(Duration idle, Duration active) {
      this.idleTimeout = Objects.requireNonNull(idle, "idle");
      this.activeTimeout = Objects.requireNonNull(active, "active");
      return this;
    }

    /** The view; with a topic, its consumer is assigned every partition from the beginning. */
    public FlowsView build() {
      return new FlowsView(this);
    }
  }
}
