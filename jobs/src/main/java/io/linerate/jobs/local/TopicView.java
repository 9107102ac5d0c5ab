package io.linerate.jobs.local;

import io.linerate.jobs.cli.Terminals;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the demo's {@link LiveView}s share: a {@code read_committed} consumer of the job's output topics from their
 * beginning (only what committed transactions hold: what the job decided), or none for a view fed by hand (tests);
 * the view printed in place on a terminal or as blocks; and the order of observation points. A view says what it
 * makes of a record and renders itself.
 */
public abstract class TopicView implements LiveView {

  private final boolean terminal;
  private final KafkaConsumer<byte[], String> consumer; // null: offline
  private int linesDrawn;
  /** Lines of the view's table, as its {@link Builder#rows} says. */
  protected final int rows;

  /**
   * @param terminal redraw in place with ANSI escapes, else print blocks
   * @param bootstrapServers the broker, or null for an offline view (fed by hand; {@link #records} refuses)
   */
  protected TopicView(boolean terminal, String bootstrapServers, String clientId, String... topics) {
    this.terminal = terminal;
    this.consumer = bootstrapServers == null ? null : committedFromBeginning(bootstrapServers, clientId, topics);
    this.rows = 0;
  }

  /** A view of one topic with the options of {@code b}; {@code clientId} names its consumer. */
  protected TopicView(Builder<?> b, String clientId) {
    this.terminal = b.terminal;
    this.consumer = b.bootstrapServers == null ? null
        : committedFromBeginning(b.bootstrapServers, clientId, b.topic);
    this.rows = b.rows;
  }

  /** Whether the view redraws in place (a terminal) or prints blocks. */
  protected final boolean inPlace() {
    return terminal;
  }

  /**
   * The options every table view of one topic takes: the broker and topic (none for an offline view, fed by hand),
   * the table's lines and whether it redraws in place. A view's builder adds its own.
   *
   * @param <B> the view's builder, returned by the setters so a chain reaches its own options
   */
  public abstract static class Builder<B extends Builder<B>> {
    final String bootstrapServers;
    final String topic;
    int rows = 10;
    boolean terminal = Terminals.standardOutput();

    protected Builder(String bootstrapServers, String topic) {
      this.bootstrapServers = bootstrapServers;
      this.topic = topic;
    }

    /** Lines of the table: the largest flows, or the items per observation point (default 10). */
    public B rows(int rows) {
      if (rows < 1) {
        throw new IllegalArgumentException("rows must be >= 1, got " + rows);
      }
      this.rows = rows;
      return self();
    }

    /** Redraw in place with ANSI escapes (default: whether a console is attached). */
    public B terminal(boolean terminal) {
      this.terminal = terminal;
      return self();
    }

    /** This builder, as its own type. */
    protected abstract B self();
  }

  /** The records that arrived, waiting at most {@code timeout} for the first. */
  protected final ConsumerRecords<byte[], String> records(Duration timeout) {
    if (consumer == null) {
      throw new IllegalStateException("an offline view has no topic to poll");
    }
    return consumer.poll(timeout);
  }

  /** The view as text, each line ending with a newline. */
  public abstract String render();

  /** Prints the view now: over the previous one on a terminal, else as a new block after a blank line. */
  @Override
  public final void print(PrintStream out) {
    linesDrawn = print(out, render(), terminal, linesDrawn);
  }

  /** How long {@link #printFinal} reads at most to reach the output committed when it is called. */
  static final Duration FINAL_READ = Duration.ofSeconds(10);

  /**
   * Reads the output committed up to now (the end offsets when called; at most {@link #FINAL_READ}) and prints the
   * view as a new block, after a blank line, if a {@link #poll} found a change due or {@link #unshownChange()} says
   * one is held back.
   */
  @Override
  public void printFinal(PrintStream out) {
    boolean show = false;
    if (consumer != null) {
      long deadline = System.nanoTime() + FINAL_READ.toNanos();
      Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), FINAL_READ);
      while (System.nanoTime() < deadline
          && end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        show |= poll(Duration.ofMillis(100));
      }
    }
    if (show || unshownChange()) {
      linesDrawn = print(out, render(), false, Math.max(1, linesDrawn));
    }
  }

  /** Whether the view changed since it was last printed, a redraw held back (a {@link RedrawThrottle}'s). */
  protected boolean unshownChange() {
    return false;
  }

  /** Closes the consumer, if any; on an interrupted thread too. */
  @Override
  public final void close() {
    close(consumer);
  }

  /** A consumer of every partition of {@code topics} from the beginning, committed records only, values as text. */
  private static KafkaConsumer<byte[], String> committedFromBeginning(String bootstrapServers, String clientId,
      String... topics) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    KafkaConsumer<byte[], String> consumer = new KafkaConsumer<>(props);
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : new java.util.LinkedHashSet<>(List.of(topics))) {
      consumer.partitionsFor(topic, Duration.ofSeconds(10))
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return consumer;
  }

  /**
   * Prints {@code table} (lines ending with a newline): on a terminal over the previous one (cursor up over its
   * {@code linesDrawn} lines, clear to the end of the screen), otherwise as a new block after a blank line.
   *
   * @return the lines of {@code table}: the next call's {@code linesDrawn}
   */
  private static int print(PrintStream out, String table, boolean terminal, int linesDrawn) {
    StringBuilder s = new StringBuilder();
    if (terminal) {
      if (linesDrawn > 0) {
        s.append("\u001b[").append(linesDrawn).append("F\u001b[J");
      }
    } else if (linesDrawn > 0) {
      s.append('\n');
    }
    s.append(table);
    out.print(s);
    out.flush();
    return (int) table.chars().filter(c -> c == '\n').count();
  }

  /** Closes {@code consumer} (if any); on an interrupted thread too (the flag is cleared for the close, set again). */
  private static void close(KafkaConsumer<?, ?> consumer) {
    if (consumer == null) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      consumer.close(Duration.ofSeconds(5));
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Observation points in order: numeric ones numerically, then the others as text. */
  public static int compareScopes(String a, String b) {
    boolean na = a.matches("-?\\d{1,18}");
    boolean nb = b.matches("-?\\d{1,18}");
    if (na && nb) {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    }
    return na ? -1 : nb ? 1 : a.compareTo(b);
  }
}
