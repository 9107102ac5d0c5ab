package io.linerate.jobs.heavyhitters;

import io.linerate.jobs.local.TopicView;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.jobs.format.OutputJson;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The demo's live top-k table: reads the heavy-hitters reports topic from its beginning with a
 * {@code read_committed} consumer (only reports of committed transactions: what the job decided), keeps the latest
 * window's report per observation point (the largest {@code window_end}; other record types in the topic, such as
 * alerts, are counted and skipped), and renders a table per observation point.
 *
 * <p>{@link #render()} gives the table as text (tests); {@link #run(Duration, PrintStream)} polls and prints it
 * whenever a newer report arrived: redrawn in place with ANSI escapes on a terminal, appended as plain blocks
 * otherwise. Not thread-safe: one thread polls and renders.
 */
public final class TopKView extends TopicView {

  /** One item line of a report. */
  public record Item(String item, long estimate, long lowerBound, long upperBound, boolean heavy) {}

  /** The parts of a {@value OutputJson#HEAVY_HITTER_REPORT} the table shows. */
  public record Report(String scope, long windowStart, long windowEnd, long totalWeight, double phi,
                       long unmonitoredBound, boolean complete, List<Item> items) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Report> latest = new TreeMap<>(TopicView::compareScopes);
  private long alertsSeen;
  private long skipped;

  private TopKView(Builder b) {
    super(b, "linerate-top-k-view");
  }

  /** A view of {@code topic} on {@code bootstrapServers}. */
  public static Builder builder(String bootstrapServers, String topic) {
    return new Builder(Objects.requireNonNull(bootstrapServers, "bootstrapServers"),
        Objects.requireNonNull(topic, "topic"));
  }

  /** A view without a consumer: fed with {@link #accept(String)} (tests, other sources). */
  public static Builder offline() {
    return new Builder(null, null);
  }

  /**
   * Reads what the topic holds now (waiting at most {@code timeout} for the first records) and keeps the newest
   * report per observation point. Returns whether a newer report arrived.
   */
  @Override
  public boolean poll(Duration timeout) {
    boolean changed = false;
    for (ConsumerRecord<byte[], String> r : records(timeout)) {
      changed |= accept(r.value());
    }
    return changed;
  }

  /**
   * Nothing: the heavy-hitters job's drain prints the last window's table itself
   * ({@link HeavyHittersJob#drain(io.linerate.jobs.local.JobTopics, long, Duration, PrintStream)}), and this view shows
   * every newer report as it arrives (no redraw is held back).
   */
  @Override
  public void printFinal(PrintStream out) {
  }

  /** Takes one record of the topic; returns whether it is a report newer than the one kept for its scope. */
  public boolean accept(String json) {
    JsonNode n;
    try {
      n = json == null ? null : JSON.readTree(json);
    } catch (java.io.IOException e) {
      n = null;
    }
    if (n == null || !n.isObject()) {
      skipped++;
      return false;
    }
    String type = n.path("type").asText();
    if (type.equals(OutputJson.HEAVY_HITTER_ALERT)) {
      alertsSeen++;
      return false;
    }
    if (!type.equals(OutputJson.HEAVY_HITTER_REPORT)) {
      skipped++;
      return false;
    }
    List<Item> items = new ArrayList<>();
    for (JsonNode i : n.path("items")) {
      items.add(new Item(i.path("item").asText(), i.path("estimate").asLong(), i.path("lower_bound").asLong(),
          i.path("upper_bound").asLong(), i.path("heavy").asBoolean()));
    }
    JsonNode scopeNode = n.path("scope");
    String scope = scopeNode.isValueNode() ? scopeNode.asText() : scopeNode.toString();
    Report report = new Report(scope, n.path("window_start").asLong(), n.path("window_end").asLong(),
        n.path("total_weight").asLong(), n.path("phi").asDouble(), n.path("unmonitored_bound").asLong(),
        n.path("complete").asBoolean(), Collections.unmodifiableList(items));
    Report kept = latest.get(scope);
    if (kept != null && kept.windowEnd() >= report.windowEnd()) {
      return false;
    }
    latest.put(scope, report);
    return true;
  }

  /** The latest report per observation point, ordered by scope. */
  public Map<String, Report> reports() {
    return Collections.unmodifiableMap(latest);
  }

  /** Alerts seen in the topic (they share it with the reports unless the job has an alerts topic). */
  public long alertsSeen() {
    return alertsSeen;
  }

  /** The table: per observation point a header line and up to {@code rows} item lines; ends with a newline. */
  @Override
  public String render() {
    StringBuilder out = new StringBuilder();
    if (latest.isEmpty()) {
      out.append("heavy hitters: no window reported yet\n");
      return out.toString();
    }
    for (Report r : latest.values()) {
      out.append(String.format(Locale.ROOT, "observation point %s  window %s .. %s  N = %,d  phi = %s  %s%n",
          r.scope(), Instant.ofEpochMilli(r.windowStart()), Instant.ofEpochMilli(r.windowEnd()), r.totalWeight(),
          r.phi(), r.complete() ? "complete" : "INCOMPLETE (an unlisted item may weigh up to "
              + r.unmonitoredBound() + ")"));
      int width = 4;
      int estimateWidth = 14; // wider where an estimate needs it (bytes of a long window), so the columns stay aligned
      int shown = Math.min(rows, r.items().size());
      for (int i = 0; i < shown; i++) {
        width = Math.max(width, r.items().get(i).item().length());
        estimateWidth = Math.max(estimateWidth,
            String.format(Locale.ROOT, "%,d", r.items().get(i).estimate()).length());
      }
      out.append(String.format(Locale.ROOT, "  %3s  %-" + width + "s  %" + estimateWidth + "s  %7s  %s%n", "#",
          "item", "estimate", "share", "bounds"));
      for (int i = 0; i < shown; i++) {
        Item item = r.items().get(i);
        double share = r.totalWeight() == 0 ? 0 : 100.0 * item.estimate() / r.totalWeight();
        out.append(String.format(Locale.ROOT, "  %3d  %-" + width + "s  %," + estimateWidth
            + "d  %6.2f%%  [%,d .. %,d]%s%n", i + 1, item.item(), item.estimate(), share, item.lowerBound(),
            item.upperBound(), item.heavy() ? " heavy" : ""));
      }
      if (shown == 0) {
        out.append("  (no items)\n");
      }
    }
    return out.toString();
  }

  /**
   * Polls and prints the table whenever a newer report arrived, until {@code duration} has passed (zero: until
   * the thread is interrupted; it then returns with its interrupt flag set). To run it beside a demo: start it on
   * a thread of its own, interrupt that thread to stop it, and close the view on that thread afterwards (a Kafka
   * consumer belongs to one thread).
   */
  public void run(Duration duration, PrintStream out) {
    long end = duration.isZero() ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    try {
      while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
        if (poll(Duration.ofMillis(500))) {
          print(out);
        }
      }
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      Thread.currentThread().interrupt(); // Kafka cleared the flag when it threw
    }
  }

  /** Options of a {@link TopKView}. */
  public static final class Builder extends TopicView.Builder<Builder> {

    private Builder(String bootstrapServers, String topic) {
      super(bootstrapServers, topic);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The view; with a topic, its consumer is assigned every partition from the beginning. */
    public TopKView build() {
      return new TopKView(this);
    }
  }
}
