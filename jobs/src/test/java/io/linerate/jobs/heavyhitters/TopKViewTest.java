package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The demo's top-k table: latest window per observation point, the table's text, terminal redraw vs blocks. */
class TopKViewTest {

  static String report(int scope, long start, long n, String... items) {
    StringBuilder s = new StringBuilder("{\"type\":\"heavy_hitter_report\",\"scope\":" + scope + ",\"window_start\":"
        + start + ",\"window_end\":" + (start + 60_000) + ",\"total_weight\":" + n + ",\"phi\":0.01,"
        + "\"unmonitored_bound\":3,\"complete\":true,\"items\":[");
    for (int i = 0; i < items.length; i++) {
      s.append(i == 0 ? "" : ",").append("{\"item\":\"").append(items[i]).append("\",\"estimate\":")
          .append(500 - 100 * i).append(",\"lower_bound\":").append(490 - 100 * i).append(",\"upper_bound\":")
          .append(500 - 100 * i).append(",\"heavy\":").append(i < 2).append('}');
    }
    return s.append("]}").toString();
  }

  @Test
  void keepsTheLatestWindowPerObservationPointAndRendersItsTopRows() {
    TopKView view = TopKView.offline().rows(2).terminal(false).build();
    assertThat(view.render()).isEqualTo("heavy hitters: no window reported yet\n");
    assertThat(view.accept(report(1, 60_000, 1000, "b1", "b2"))).isTrue();
    assertThat(view.accept(report(0, 60_000, 1000, "new1", "new2", "new3"))).isTrue();
    assertThat(view.accept(report(0, 0, 2000, "old"))).as("an older window").isFalse();
    assertThat(view.accept("{\"type\":\"heavy_hitter_alert\",\"scope\":0}")).isFalse();
    assertThat(view.accept("not json")).isFalse();
    assertThat(view.alertsSeen()).isEqualTo(1);
    assertThat(view.reports()).containsOnlyKeys("0", "1");

    String expected = String.join("\n",
        "observation point 0  window 1970-01-01T00:01:00Z .. 1970-01-01T00:02:00Z  N = 1,000  phi = 0.01  complete",
        "    #  item        estimate    share  bounds",
        "    1  new1             500   50.00%  [490 .. 500] heavy",
        "    2  new2             400   40.00%  [390 .. 400] heavy",
        "observation point 1  window 1970-01-01T00:01:00Z .. 1970-01-01T00:02:00Z  N = 1,000  phi = 0.01  complete",
        "    #  item        estimate    share  bounds",
        "    1  b1               500   50.00%  [490 .. 500] heavy",
        "    2  b2               400   40.00%  [390 .. 400] heavy",
        "");
    assertThat(view.render()).isEqualTo(expected);
  }

  @Test
  void aTerminalRedrawsInPlaceAndAPipeGetsBlocks() {
    ByteArrayOutputStream tty = new ByteArrayOutputStream();
    TopKView onTerminal = TopKView.offline().terminal(true).build();
    onTerminal.accept(report(0, 0, 10, "a"));
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    onTerminal.accept(report(0, 60_000, 10, "b"));
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    String drawn = tty.toString(StandardCharsets.UTF_8);
    // first table: 3 lines; the second starts by moving up 3 lines and clearing to the end of the screen
    assertThat(drawn).startsWith("observation point 0").contains("\u001b[3F\u001b[J").endsWith("heavy\n");
    assertThat(drawn.split("\u001b\\[3F\u001b\\[J")[1]).contains("  b  ").doesNotContain("  a  ");

    ByteArrayOutputStream pipe = new ByteArrayOutputStream();
    TopKView plain = TopKView.offline().terminal(false).build();
    plain.accept(report(0, 0, 10, "a"));
    plain.print(new PrintStream(pipe, true, StandardCharsets.UTF_8));
    plain.accept(report(0, 60_000, 10, "b"));
    plain.print(new PrintStream(pipe, true, StandardCharsets.UTF_8));
    String blocks = pipe.toString(StandardCharsets.UTF_8);
    assertThat(blocks).doesNotContain("\u001b").contains("heavy\n\nobservation point 0");
    assertThat(blocks.indexOf("  a  ")).isLessThan(blocks.indexOf("  b  "));
  }

  /** The columns stay aligned when an estimate is wider than the header's 14 characters. */
  @Test
  void theShareColumnStaysAlignedWithEstimatesOfOver100GB() {
    // --weight bytes, 1 minute at 100 Gbit/s: 750 GB in a window, "750,000,000,000" is 15 characters
    long n = 1_500_000_000_000L;
    String json = "{\"type\":\"heavy_hitter_report\",\"scope\":0,\"window_start\":0,\"window_end\":60000,"
        + "\"total_weight\":" + n + ",\"phi\":0.01,\"unmonitored_bound\":3,\"complete\":true,\"items\":["
        + "{\"item\":\"a\",\"estimate\":750000000000,\"lower_bound\":750000000000,\"upper_bound\":750000000000,"
        + "\"heavy\":true},"
        + "{\"item\":\"b\",\"estimate\":15000,\"lower_bound\":15000,\"upper_bound\":15000,\"heavy\":false}]}";
    TopKView view = TopKView.offline().terminal(false).build();
    view.accept(json);
    String[] lines = view.render().split("\n");
    // header, then the two rows: "share" ends where each row's '%' is
    int shareEnd = lines[1].indexOf("share") + "share".length();
    assertThat(lines[2].indexOf('%') + 1).as(lines[1] + "\n" + lines[2]).isEqualTo(shareEnd);
    assertThat(lines[3].indexOf('%') + 1).as(lines[1] + "\n" + lines[3]).isEqualTo(shareEnd);
    int estimateEnd = lines[1].indexOf("estimate") + "estimate".length();
    assertThat(lines[2].indexOf("750,000,000,000") + 15).isEqualTo(estimateEnd);
    assertThat(lines[3].indexOf("15,000") + 6).isEqualTo(estimateEnd);
  }
}
