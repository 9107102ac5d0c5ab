package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The dedup demo's view: first occurrences and duplicates by JSON type, raw events by topic, dead letters skipped. */
class DedupViewTest {

  @Test
  void countsByTypeOrTopicAndShowsTheDuplicatesShare() {
    DedupView view = DedupView.offline("dups", false);
    assertThat(view.render()).isEqualTo("dedup: no event committed yet\n");
    String unique = "{\"type\":\"unique_event\",\"key\":\"a\",\"weight\":1,\"timestamp\":1,\"event\":{\"id\":\"a\"}}";
    String duplicate = "{\"type\":\"probable_duplicate\",\"key\":\"a\",\"weight\":1,\"timestamp\":2,"
        + "\"event\":{\"id\":\"a\"}}";
    for (int i = 0; i < 6; i++) {
      assertThat(view.accept("out", unique)).isTrue();
    }
    assertThat(view.accept("out", duplicate)).as("JSON output: by type, whatever the topic").isTrue();
    assertThat(view.accept("out", "{\"type\":\"dead_letter\",\"reason\":\"x\"}")).isFalse();
    assertThat(view.accept("dups", "{\"id\":\"b\",\"type\":\"click\"}")).as("raw: by topic").isTrue();
    assertThat(view.accept("out", "{\"id\":\"c\"}")).isTrue();
    assertThat(view.accept("out", "not json")).isFalse();
    assertThat(view.unique()).isEqualTo(7);
    assertThat(view.duplicates()).isEqualTo(2);
    assertThat(view.render())
        .isEqualTo("dedup: 9 events committed: 7 first occurrences, 2 probable duplicates (22.22%)\n");

    ByteArrayOutputStream tty = new ByteArrayOutputStream();
    DedupView onTerminal = DedupView.offline("dups", true);
    onTerminal.accept("out", unique);
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    assertThat(tty.toString(StandardCharsets.UTF_8)).contains("\u001b[1F\u001b[J");
  }
}
