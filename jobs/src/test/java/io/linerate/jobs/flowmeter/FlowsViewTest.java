package io.linerate.jobs.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The flow-meter demo's view: counts per export reason and observation point, the largest flows, redraws. */
class FlowsViewTest {

  static String flow(int scope, int version, String src, String dst, int protocol, long packets, long bytes,
      String reason) {
    return "{\"type\":\"flow\",\"scope\":" + scope + ",\"ip_version\":" + version + ",\"src_addr\":\"" + src
        + "\",\"dst_addr\":\"" + dst + "\",\"src_port\":51000,\"dst_port\":443,\"protocol\":" + protocol
        + ",\"packets\":" + packets + ",\"bytes\":" + bytes + ",\"first_timestamp\":1,\"last_timestamp\":2,"
        + "\"tcp_flags\":27,\"export_reason\":\"" + reason + "\"}";
  }

  @Test
  void beforeTheFirstFlowItSaysWhenTheJobWritesOne() {
    FlowsView view = FlowsView.offline().terminal(false).timeouts(Duration.ofSeconds(15), Duration.ofMinutes(30))
        .build();
    assertThat(view.render()).isEqualTo("flow meter: no flow record committed yet (the job writes a flow once it has"
        + " been idle for 15s or active for 30m of event time, or when its table evicts it)\n");
    view.accept(flow(10, 4, "10.0.0.1", "10.0.0.2", 6, 3, 300, "idle_timeout"));
    assertThat(view.render()).startsWith("flow records committed: 1 (idle_timeout 1)\n");
  }

  @Test
  void countsEveryRecordAndKeepsTheLargestFlows() {
    FlowsView view = FlowsView.offline().rows(2).terminal(false).build();
    assertThat(view.render()).isEqualTo("flow meter: no flow record committed yet\n");
    assertThat(view.accept(flow(10, 4, "10.0.0.1", "10.0.0.2", 6, 3, 300, "idle_timeout"))).isTrue();
    assertThat(view.accept(flow(2, 6, "2001:db8::1", "2001:db8::2", 17, 10, 15_000, "evicted"))).isTrue();
    assertThat(view.accept(flow(2, 4, "10.0.0.3", "10.0.0.4", 47, 1, 60, "idle_timeout"))).isTrue();
    assertThat(view.accept(flow(10, 4, "10.0.0.5", "10.0.0.6", 6, 20, 2_000_000, "active_timeout"))).isTrue();
    assertThat(view.accept("{\"type\":\"dead_letter\"}")).isFalse();
    assertThat(view.accept("not json")).isFalse();
    assertThat(view.records()).isEqualTo(4);
    assertThat(view.skipped()).isEqualTo(2);
    String expected = String.join("\n",
        "flow records committed: 4 (active_timeout 1, evicted 1, idle_timeout 2)",
        "  observation point 2: 2 records, 11 packets, 15,060 bytes",
        "  observation point 10: 2 records, 23 packets, 2,000,300 bytes",
        "largest flows so far:",
        "    #  point  flow                                              packets            bytes  reason",
        "    1     10  10.0.0.5:51000 > 10.0.0.6:443 tcp                      20        2,000,000  active_timeout",
        "    2      2  [2001:db8::1]:51000 > [2001:db8::2]:443 udp            10           15,000  evicted",
        "");
    assertThat(view.render()).isEqualTo(expected);
  }

  @Test
  void aTerminalRedrawsInPlaceAndAPipeGetsBlocks() {
    ByteArrayOutputStream tty = new ByteArrayOutputStream();
    FlowsView onTerminal = FlowsView.offline().rows(1).terminal(true).build();
    onTerminal.accept(flow(0, 4, "10.0.0.1", "10.0.0.2", 6, 1, 100, "idle_timeout"));
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    onTerminal.accept(flow(0, 4, "10.0.0.1", "10.0.0.2", 6, 1, 100, "idle_timeout"));
    onTerminal.print(new PrintStream(tty, true, StandardCharsets.UTF_8));
    // the first view has 5 lines: the second starts by moving up over them and clearing to the end of the screen
    assertThat(tty.toString(StandardCharsets.UTF_8)).startsWith("flow records committed: 1 ")
        .contains("\u001b[5F\u001b[J").contains("flow records committed: 2 ");

    ByteArrayOutputStream pipe = new ByteArrayOutputStream();
    FlowsView plain = FlowsView.offline().terminal(false).build();
    plain.accept(flow(0, 4, "10.0.0.1", "10.0.0.2", 6, 1, 100, "idle_timeout"));
    plain.print(new PrintStream(pipe, true, StandardCharsets.UTF_8));
    plain.print(new PrintStream(pipe, true, StandardCharsets.UTF_8));
    assertThat(pipe.toString(StandardCharsets.UTF_8)).doesNotContain("\u001b").contains("idle_timeout\n\nflow records");
  }
}
