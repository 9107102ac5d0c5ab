package io.linerate.jobs.heavyhitters;

import java.util.Locale;

import io.linerate.flink.items.ItemSelector;
import io.linerate.jobs.format.Addresses;
import io.linerate.jobs.format.PacketRecord;

/**
 * What the heavy-hitters job counts per packet: the 5-tuple (a flow), the source address or the destination
 * address.
 *
 * <p>Addresses are tracked as byte items (4 bytes for IPv4, 16 for IPv6, filled into a scratch array: no
 * allocation per packet); the operator renders byte items in hex, so {@link #text(String)} turns a reported item
 * back into address text (IPv4 dotted, IPv6 RFC 5952). A 5-tuple is rendered {@code "src dst srcPort dstPort
 * protocol"} by the operator itself ({@code FiveTuple.toString()}), its addresses the same way.
 */
public enum PacketItem {
  /** The flow: source and destination address and port, protocol. */
  FIVE_TUPLE("five-tuple"),
  /** The source address. */
  SRC_ADDRESS("src-address"),
  /** The destination address. */
  DST_ADDRESS("dst-address");

  private final String cliName;

  PacketItem(String cliName) {
    this.cliName = cliName;
  }

  /** The selector of the operator for this item. */
  public ItemSelector<PacketRecord> selector() {
    switch (this) {
      case SRC_ADDRESS:
        return ItemSelector.bytes(new AddressBytes(true), 16);
      case DST_ADDRESS:
        return ItemSelector.bytes(new AddressBytes(false), 16);
      case FIVE_TUPLE:
      default:
        return ItemSelector.fiveTuples(PacketRecord::fiveTuple);
    }
  }

  /**
   * A reported item as text: an address item (hex of 4 or 16 bytes) as its address; a 5-tuple as the operator
   * wrote it ({@code FiveTuple.toString()}: IPv6 RFC 5952, an IPv6 flow's IPv4-mapped address as
   * {@code ::ffff:a.b.c.d}).
   */
  public String text(String reported) {
    if (reported == null) {
      return null;
    }
    if (this == FIVE_TUPLE) {
      return reported; // FiveTuple.toString: RFC 5952 already, an IPv6 flow's mapped addresses as ::ffff:a.b.c.d
    }
    if (reported.length() == 8) {
      return Addresses.ipv4((int) Long.parseLong(reported, 16));
    }
    if (reported.length() == 32) {
      return Addresses.ipv6(Long.parseUnsignedLong(reported.substring(0, 16), 16),
          Long.parseUnsignedLong(reported.substring(16), 16));
    }
    return reported;
  }

  /**
   * The longest text {@link #text(String)} can return for this item: an IPv6 address without a zero run to
   * compress (39 characters), and for a 5-tuple two of them with the widest ports and protocol (95 characters).
   */
  public String longestText() {
    String address = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
    return this == FIVE_TUPLE ? address + " " + address + " 65535 65535 255" : address;
  }

  /** The command-line spelling: five-tuple, src-address, dst-address. */
  @Override
  public String toString() {
    return cliName;
  }

  /** The item of a command-line value, any case. */
  public static PacketItem parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    for (PacketItem item : values()) {
      if (item.cliName.equals(v)) {
        return item;
      }
    }
    throw new IllegalArgumentException("'" + value + "' is not an item (five-tuple, src-address, dst-address)");
  }

  /** An address as 4 or 16 bytes in network order, in a scratch array per length (the operator keeps none). */
  private static final class AddressBytes implements ItemSelector.BytesOf<PacketRecord> {
    private static final long serialVersionUID = 1L;
    private final boolean source;
    private transient byte[] v4;
    private transient byte[] v6;

    AddressBytes(boolean source) {
      this.source = source;
    }

    @Override
    public byte[] itemOf(PacketRecord p) {
      if (p.isIpv6()) {
        if (v6 == null) {
          v6 = new byte[16];
        }
        putLong(v6, 0, source ? p.srcHigh() : p.dstHigh());
        putLong(v6, 8, source ? p.srcLow() : p.dstLow());
        return v6;
      }
      if (v4 == null) {
        v4 = new byte[4];
      }
      int a = source ? p.srcIpv4() : p.dstIpv4();
      v4[0] = (byte) (a >>> 24);
      v4[1] = (byte) (a >>> 16);
      v4[2] = (byte) (a >>> 8);
      v4[3] = (byte) a;
      return v4;
    }

    private static void putLong(byte[] b, int at, long v) {
      for (int i = 0; i < 8; i++) {
        b[at + i] = (byte) (v >>> (56 - 8 * i));
      }
    }
  }
}
