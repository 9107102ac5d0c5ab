package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.heavyhitters.HeavyHitterAlert;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.heavyhitters.ReportedItem;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.PacketRecord;
import org.junit.jupiter.api.Test;

/**
 * 5-tuple items in the heavy-hitters job's reports and alerts: addresses as docs/FORMATS.md promises (IPv4 dotted,
 * IPv6 RFC 5952, IPv4-mapped as {@code ::ffff:a.b.c.d}), starting from the text the operator makes of a packet's
 * item ({@code String.valueOf} of the selector's item, as it renders alerts and report items). Expected texts are
 * written out, not computed with {@code Addresses}.
 */
class FiveTupleTextTest {

  private static final long DB8 = 0x2001_0db8_0000_0000L;

  private static final PacketRecord IPV6 = new PacketRecord()
      .setIpv6(0, DB8, 1, DB8, 0x0001_0000_0000_0001L, 1024, 443, 6, 0, 100, 0);
  private static final PacketRecord MAPPED_SRC = new PacketRecord()
      .setIpv6(0, 0, 0x0000_ffff_c000_0201L, DB8, 1, 53, 53, 17, 0, 100, 0);
  /** An IPv6 flow whose two addresses are IPv4-mapped: the IPv4 flow {@link #IPV4} has the same addresses. */
  private static final PacketRecord MAPPED_BOTH = new PacketRecord()
      .setIpv6(0, 0, 0x0000_ffff_0a00_0001L, 0, 0x0000_ffff_c0a8_0001L, 1025, 443, 6, 0, 100, 0);
  private static final PacketRecord IPV4 = new PacketRecord()
      .setIpv4(0, 0x0A000001, 0xC0A80001, 1025, 443, 6, 0, 100, 0);

  /** The operator's text of the packet's 5-tuple. */
  private static String reported(PacketRecord p) {
    return String.valueOf(PacketItem.FIVE_TUPLE.selector().itemOf(p));
  }

  @Test
  void fiveTupleItemsHaveRfc5952AddressesAndMappedAddressesStayMapped() {
    assertThat(PacketItem.FIVE_TUPLE.text(reported(IPV6))).isEqualTo("2001:db8::1 2001:db8::1:0:0:1 1024 443 6");
    assertThat(PacketItem.FIVE_TUPLE.text(reported(MAPPED_SRC))).isEqualTo("::ffff:192.0.2.1 2001:db8::1 53 53 17");
    assertThat(PacketItem.FIVE_TUPLE.text(reported(IPV4))).isEqualTo("10.0.0.1 192.168.0.1 1025 443 6");
    assertThat(PacketItem.FIVE_TUPLE.text("not a tuple")).isEqualTo("not a tuple");
    // the IP version is in the text: an IPv6 flow between mapped addresses is not the IPv4 flow between them
    assertThat(PacketItem.FIVE_TUPLE.text(reported(MAPPED_BOTH))).isEqualTo("::ffff:10.0.0.1 ::ffff:192.168.0.1 1025 443 6");
    assertThat(PacketItem.FIVE_TUPLE.text(null)).isNull();
  }

  @Test
  void reportsAndAlertsCarryTheRewrittenText() throws Exception {
    HeavyHitterReport<Integer> report = new HeavyHitterReport<>();
    report.key = 7;
    report.items.add(new ReportedItem(reported(IPV6), 10, 9, 10, true));
    report.items.add(new ReportedItem(reported(MAPPED_SRC), 5, 5, 5, false));
    byte[] reportJson = new HeavyHittersJob.ItemsAsText<>(OutputJson.<Integer>heavyHitterReports(),
        new HeavyHittersJob.ReportText(PacketItem.FIVE_TUPLE)).serialize(report);
    ObjectMapper json = new ObjectMapper();
    assertThat(json.readTree(reportJson).get("items").findValuesAsText("item"))
        .containsExactly("2001:db8::1 2001:db8::1:0:0:1 1024 443 6", "::ffff:192.0.2.1 2001:db8::1 53 53 17");

    HeavyHitterAlert<Integer> alert = new HeavyHitterAlert<>();
    alert.key = 7;
    alert.item = reported(MAPPED_SRC);
    alert.kind = HeavyHitterAlert.ABSOLUTE;
    byte[] alertJson = new HeavyHittersJob.ItemsAsText<>(OutputJson.<Integer>heavyHitterAlerts(),
        new HeavyHittersJob.AlertText(PacketItem.FIVE_TUPLE)).serialize(alert);
    assertThat(json.readTree(alertJson).get("item").asText()).isEqualTo("::ffff:192.0.2.1 2001:db8::1 53 53 17");
  }
}
