package io.linerate.jobs.dedup;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.local.RedrawThrottle;
import io.linerate.jobs.local.TopicView;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The demo's live view of the dedup job: reads its output and duplicates topics from their beginning (committed
 * records only) and shows the first occurrences and the probable duplicates committed so far, and the duplicates'
 * share (the demo's generator repeats 10% of its events, so a share close to it is the job catching them). A record
 * is told by its JSON {@code type} ({@code unique_event}, {@code probable_duplicate}), else (raw output: the event as
 * it came in) by its topic; dead letters in a shared topic are skipped.
 * Redrawn at most once per second on a terminal, every 10 s as blocks otherwise.
 */
public final class DedupView extends TopicView {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String duplicatesTopic;
  private final RedrawThrottle redraws;
  private long unique;
  private long duplicates;
  private long skipped;

  private DedupView(String bootstrapServers, String outputTopic, String duplicatesTopic, boolean terminal) {
    super(terminal, bootstrapServers, "linerate-dedup-view", outputTopic, duplicatesTopic);
    this.duplicatesTopic = duplicatesTopic;
    this.redraws = new RedrawThrottle(Duration.ofSeconds(terminal ? 1 : 10));
  }

  /** A view of the job's {@code outputTopic} and {@code duplicatesTopic} (the same one in JSON output, allowed). */
  public static DedupView of(String bootstrapServers, String outputTopic, String duplicatesTopic, boolean terminal) {
    return new DedupView(Objects.requireNonNull(bootstrapServers, "bootstrapServers"),
        Objects.requireNonNull(outputTopic, "outputTopic"), Objects.requireNonNull(duplicatesTopic, "duplicatesTopic"),
        terminal);
  }

  /** A view without a consumer, fed with {@link #accept} (tests); raw records of {@code duplicatesTopic} are duplicates. */
  public static DedupView offline(String duplicatesTopic, boolean terminal) {
    return new DedupView(null, null, duplicatesTopic, terminal);
  }

  @Override
  public boolean poll(Duration timeout) {
    for (ConsumerRecord<byte[], String> r : records(timeout)) {
      redraws.changed(accept(r.topic(), r.value()));
    }
    return redraws.due();
  }

  /** A change the redraw interval held back: {@link #printFinal} shows it. */
  @Override
  protected boolean unshownChange() {
    return redraws.pending();
  }

  /** Takes one record of {@code topic}; returns whether it counted as a first occurrence or a duplicate. */
  public boolean accept(String topic, String value) {
    JsonNode n;
    try {
      n = value == null ? null : JSON.readTree(value);
    } catch (java.io.IOException e) {
      n = null;
    }
    if (n == null) {
      skipped++;
      return false;
    }
    String type = n.path("type").asText();
    if (type.equals(OutputJson.UNIQUE_EVENT)) {
      unique++;
    } else if (type.equals(OutputJson.PROBABLE_DUPLICATE)) {
      duplicates++;
    } else if (type.equals(OutputJson.DEAD_LETTER) || type.equals(OutputJson.REJECTED)) {
      skipped++; // a dead-letter topic shared with the output
      return false;
    } else if (topic.equals(duplicatesTopic)) { // a raw event, as it came in: told by its topic
      duplicates++;
    } else {
      unique++;
    }
    return true;
  }

  /** First occurrences read so far. */
  public long unique() {
    return unique;
  }

  /** Probable duplicates read so far. */
  public long duplicates() {
    return duplicates;
  }

  /** The view as text, ending with a newline. */
  @Override
  public String render() {
    long all = unique + duplicates;
    if (all == 0) {
      return "dedup: no event committed yet\n";
    }
    return String.format(Locale.ROOT, "dedup: %,d events committed: %,d first occurrences, %,d probable duplicates "
        + "(%.2f%%)%n", all, unique, duplicates, 100.0 * duplicates / all);
  }
}
