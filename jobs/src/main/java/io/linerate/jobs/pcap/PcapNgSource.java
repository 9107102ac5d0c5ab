package io.linerate.jobs.pcap;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Locale;

/**
 * pcapng: a sequence of blocks {type, total length, body, total length}, each section opened by a Section Header
 * Block whose byte-order magic sets the byte order of the section. Interface Description Blocks give each
 * interface its link type, snaplen and timestamp resolution ({@code if_tsresol}, default microseconds;
 * {@code if_tsoffset}); Enhanced and Simple Packet Blocks carry packets; the obsolete Packet Block is counted as
 * skipped; every other block type is skipped by its length.
 */
final class PcapNgSource implements RecordSource {

    static final int SECTION_HEADER = 0x0A0D0D0A;
    private static final int INTERFACE_DESCRIPTION = 1;
    private static final int OBSOLETE_PACKET = 2;
    private static final int SIMPLE_PACKET = 3;
    private static final int ENHANCED_PACKET = 6;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final long NANOS = 1_000_000_000L;
    /** Interfaces one section may describe: far above any capture's, and bounds the per-interface arrays. */
    static final int MAX_INTERFACES = 65_536;

    private final InputBuffer in;
    private final int maxBlock;

    private int interfaces;
    private int[] linkTypes = new int[4];
    private int[] snaplens = new int[4];
    /** Per interface: binary resolution exponent (2^-e s), or -1 for a decimal one. */
    private int[] binaryExponents = new int[4];
    /** Per interface, decimal resolutions: nanos = units * multiplier / divisor (one of the two is 1). */
    private long[] multipliers = new long[4];
    private long[] divisors = new long[4];
    private long[] offsetsNanos = new long[4];

    private int currentInterface;
    private long blocksSkipped;

    PcapNgSource(InputBuffer in, int maxBlock) {
        this.in = in;
        this.maxBlock = maxBlock;
    }

    @Override
    public boolean next(PacketDecoder decoder) throws IOException {
        while (true) {
            long at = in.offset();
            int available = in.fill(12);
            if (available == 0) {
                return false;
            }
            if (available < 8) {
                throw new PcapFormatException(at, "truncated block header: expected 8 bytes (block type and total"
                        + " length), the file ends after " + available);
            }
            int p = in.pos;
            int type = in.u32(p);
            if (type == SECTION_HEADER) {
                if (available < 12) {
                    throw new PcapFormatException(at, "truncated section header block: expected 12 bytes up to"
                            + " the byte-order magic, the file ends after " + available);
                }
                int bom = InputBuffer.be32(in.buf, p + 8);
                if (bom == BYTE_ORDER_MAGIC) {
                    in.bigEndian = true;
                } else if (bom == Integer.reverseBytes(BYTE_ORDER_MAGIC)) {
                    in.bigEndian = false;
                } else {
                    throw new PcapFormatException(at + 8, String.format(Locale.ROOT,
                            "expected the pcapng byte-order magic 0x1A2B3C4D in either byte order, got 0x%08X", bom));
                }
                type = SECTION_HEADER;
            } else if (at == 0) {
                throw new PcapFormatException(0, String.format(Locale.ROOT,
                        "expected a pcapng section header block (0x0A0D0D0A), got block type 0x%08X", type));
            }
            int length = in.u32(p + 4);
            if ((length & 3) != 0 || Integer.compareUnsigned(length, 12) < 0) {
                throw new PcapFormatException(at + 4, "block total length " + Integer.toUnsignedString(length)
                        + ": expected a multiple of 4, at least 12");
            }
            if (Integer.compareUnsigned(length, maxBlock) > 0) {
                throw new PcapFormatException(at + 4, "block total length " + Integer.toUnsignedString(length)
                        + " exceeds the reader's maximum block size " + maxBlock);
            }
            available = in.fill(length);
            if (available < length) {
                throw new PcapFormatException(at, String.format(Locale.ROOT,
                        "truncated block: the block of type 0x%08X declares"
                        + " %d bytes, the file ends after %d", type, length, available));
            }
            p = in.pos;
            int trailing = in.u32(p + length - 4);
            if (trailing != length) {
                throw new PcapFormatException(at + length - 4, "block length mismatch: the block at offset " + at
                        + " declares " + length + " bytes at its start and "
                        + Integer.toUnsignedString(trailing) + " at its end");
            }
            switch (type) {
                case SECTION_HEADER:
                    sectionHeader(at, p, length);
                    break;
                case INTERFACE_DESCRIPTION:
                    interfaceDescription(at, p, length);
                    break;
                case ENHANCED_PACKET:
                    enhancedPacket(at, p, length, decoder);
                    in.advance(length);
                    return true;
                case SIMPLE_PACKET:
                    simplePacket(at, p, length, decoder);
                    in.advance(length);
                    return true;
                case OBSOLETE_PACKET:
                    decoder.skip(SkipReason.OBSOLETE_PACKET_BLOCK);
                    in.advance(length);
                    return true;
                default:
                    blocksSkipped++;
                    break;
            }
            in.advance(length);
        }
    }

    private void sectionHeader(long at, int p, int length) throws PcapFormatException {
        if (length < 28) {
            throw new PcapFormatException(at + 4, "section header block of " + length
                    + " bytes: expected at least 28");
        }
        int major = in.u16(p + 12);
        if (major != 1) {
            throw new PcapFormatException(at + 12, "expected pcapng major version 1, got " + major);
        }
        interfaces = 0;
    }

    private void interfaceDescription(long at, int p, int length) throws PcapFormatException {
        if (length < 20) {
            throw new PcapFormatException(at + 4, "interface description block of " + length
                    + " bytes: expected at least 20");
        }
        int resolution = 6;
        long offsetSeconds = 0;
        int o = p + 16;
        int end = p + length - 4;
        while (o + 4 <= end) {
            int code = in.u16(o);
            int optionLength = in.u16(o + 2);
            if (code == 0) {
                break;
            }
            if (o + 4 + optionLength > end) {
                throw new PcapFormatException(at + (o - p), "option " + code + " of " + optionLength
                        + " bytes runs past the end of its interface description block");
            }
            if (code == 9 && optionLength >= 1) {
                resolution = in.buf[o + 4] & 0xFF;
            } else if (code == 14 && optionLength == 8) {
                long first = in.u32(o + 4) & 0xFFFFFFFFL;
                long second = in.u32(o + 8) & 0xFFFFFFFFL;
                offsetSeconds = in.bigEndian ? first << 32 | second : second << 32 | first;
            }
            o += 4 + ((optionLength + 3) & ~3);
        }
        if (interfaces == MAX_INTERFACES) {
            throw new PcapFormatException(at, "more than " + MAX_INTERFACES + " interface description blocks in a"
                    + " section");
        }
        if (interfaces == linkTypes.length) {
            int n = Math.min(MAX_INTERFACES, interfaces * 2);
            linkTypes = Arrays.copyOf(linkTypes, n);
            snaplens = Arrays.copyOf(snaplens, n);
            binaryExponents = Arrays.copyOf(binaryExponents, n);
            multipliers = Arrays.copyOf(multipliers, n);
            divisors = Arrays.copyOf(divisors, n);
            offsetsNanos = Arrays.copyOf(offsetsNanos, n);
        }
        int i = interfaces;
        if ((resolution & 0x80) != 0) {
            binaryExponents[i] = resolution & 0x7F;
            if (binaryExponents[i] > 63) {
                throw new PcapFormatException(at, "if_tsresol 2^-" + binaryExponents[i] + " is not supported");
            }
        } else {
            if (resolution > 27) {
                throw new PcapFormatException(at, "if_tsresol 10^-" + resolution + " is not supported");
            }
            binaryExponents[i] = -1;
            multipliers[i] = resolution <= 9 ? pow10(9 - resolution) : 1;
            divisors[i] = resolution <= 9 ? 1 : pow10(resolution - 9);
        }
        linkTypes[i] = in.u16(p + 8);
        snaplens[i] = in.u32(p + 12);
        if (offsetSeconds > Long.MAX_VALUE / NANOS || offsetSeconds < -(Long.MAX_VALUE / NANOS)) {
            throw new PcapFormatException(at, "if_tsoffset " + offsetSeconds + " s of interface " + i
                    + " is beyond ±" + Long.MAX_VALUE / NANOS + " s (64-bit nanoseconds)");
        }
        offsetsNanos[i] = offsetSeconds * NANOS;
        interfaces++;
    }

    private void enhancedPacket(long at, int p, int length, PacketDecoder decoder) throws PcapFormatException {
        if (length < 32) {
            throw new PcapFormatException(at + 4, "enhanced packet block of " + length
                    + " bytes: expected at least 32");
        }
        int id = in.u32(p + 8);
        checkInterface(at + 8, id);
        long units = (in.u32(p + 12) & 0xFFFFFFFFL) << 32 | (in.u32(p + 16) & 0xFFFFFFFFL);
        int caplen = in.u32(p + 20);
        if (Integer.compareUnsigned(caplen, length - 32) > 0) {
            throw new PcapFormatException(at + 20, "captured length " + Integer.toUnsignedString(caplen)
                    + " does not fit in the enhanced packet block of " + length + " bytes");
        }
        checkSnaplen(at + 20, id, caplen);
        currentInterface = id;
        long nanos;
        try {
            nanos = nanos(id, units);
        } catch (ArithmeticException beyond2262) {
            decoder.skip(SkipReason.TIMESTAMP_OVERFLOW);
            return;
        }
        decoder.decode(linkTypes[id], in.buf, p + 28, caplen, in.u32(p + 24), nanos);
    }

    private void simplePacket(long at, int p, int length, PacketDecoder decoder) throws PcapFormatException {
        if (length < 16) {
            throw new PcapFormatException(at + 4, "simple packet block of " + length
                    + " bytes: expected at least 16");
        }
        checkInterface(at, 0);
        int originalLength = in.u32(p + 8);
        int caplen = length - 16;
        if (Integer.compareUnsigned(originalLength, caplen) < 0) {
            caplen = originalLength;
        }
        if (snaplens[0] != 0 && Integer.compareUnsigned(snaplens[0], caplen) < 0) {
            caplen = snaplens[0];
        }
        currentInterface = 0;
        // a simple packet block has no timestamp: 0, as libpcap gives
        decoder.decode(linkTypes[0], in.buf, p + 12, caplen, originalLength, 0L);
    }

    private void checkInterface(long at, int id) throws PcapFormatException {
        if (id < 0 || id >= interfaces) {
            throw new PcapFormatException(at, "interface id " + Integer.toUnsignedString(id) + ": expected one of the "
                    + interfaces + " interfaces described before it in this section");
        }
    }

    private void checkSnaplen(long at, int id, int caplen) throws PcapFormatException {
        if (snaplens[id] != 0 && Integer.compareUnsigned(caplen, snaplens[id]) > 0) {
            throw new PcapFormatException(at, "captured length " + caplen + " exceeds the snaplen "
                    + Integer.toUnsignedString(snaplens[id]) + " of interface " + id);
        }
    }

    /**
     * Timestamp units (unsigned) of interface {@code id} to nanoseconds since the epoch.
     *
     * @throws ArithmeticException if the result does not fit a signed 64-bit count of nanoseconds (past 2262)
     */
    private long nanos(int id, long units) {
        try {
            return fastNanos(id, units);
        } catch (ArithmeticException beyondALong) {
            // the product alone does not fit (or the units are above 2^63), but a negative if_tsoffset may bring the
            // sum back: the same floor, exactly (rare, so allocation does not matter)
            return exactNanos(id, units);
        }
    }

    private long exactNanos(int id, long units) {
        int e = binaryExponents[id];
        BigInteger u = new BigInteger(Long.toUnsignedString(units));
        BigInteger n = e >= 0 ? u.multiply(BigInteger.valueOf(NANOS)).shiftRight(e)
                : u.multiply(BigInteger.valueOf(multipliers[id])).divide(BigInteger.valueOf(divisors[id]));
        return n.add(BigInteger.valueOf(offsetsNanos[id])).longValueExact(); // ArithmeticException: past 2262
    }

    private long fastNanos(int id, long units) {
        int e = binaryExponents[id];
        long n;
        if (e < 0) {
            n = divisors[id] == 1 ? Math.multiplyExact(unsigned(units), multipliers[id])
                    : Long.divideUnsigned(units, divisors[id]);
        } else if (e == 0) {
            n = Math.multiplyExact(unsigned(units), NANOS);
        } else {
            long fraction = (units & ((1L << e) - 1)) << (64 - e); // the fraction of a second, as a 0.64 fixed point
            long fractionNanos = Math.multiplyHigh(fraction, NANOS) + ((fraction >> 63) & NANOS); // unsigned high
            n = Math.addExact(Math.multiplyExact(units >>> e, NANOS), fractionNanos);
        }
        return Math.addExact(n, offsetsNanos[id]);
    }

    /** {@code units} if it is below 2<sup>63</sup> as an unsigned value; else it cannot give a timestamp. */
    private static long unsigned(long units) {
        if (units < 0) {
            throw new ArithmeticException("timestamp units above 2^63");
        }
        return units;
    }

    private static long pow10(int k) {
        long v = 1;
        for (int i = 0; i < k; i++) {
            v *= 10;
        }
        return v;
    }

    @Override
    public int interfaceId() {
        return currentInterface;
    }

    @Override
    public int linkType() {
        return interfaces == 0 ? -1 : linkTypes[currentInterface];
    }

    @Override
    public long blocksSkipped() {
        return blocksSkipped;
    }
}
