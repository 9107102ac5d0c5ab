package io.linerate.jobs.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Mutates a valid encoding by commands read from fuzzer bytes, so that the fuzzer spends its inputs behind the
 * first checks of a format (magic numbers, versions) rather than rediscovering them: byte and int overwrites
 * (random values and edge values such as 0, -1, 2^31 - 1, 2^31, 2^24, 2^16), truncation, insertion, deletion and
 * appended bytes.
 */
public final class Mutations {

    private static final int[] EDGE_INTS = {0, 1, -1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
        0x0100_0000, 0x0400_0000, 0x0FFF_FFFF, 0x7FFF_FFF8, 12, 16, 28, 32};

    private Mutations() {
    }

    /** Applies 1 to 4 commands from {@code in} to a copy of {@code valid}. */
    public static byte[] apply(byte[] valid, FuzzBytes in) {
        byte[] b = valid.clone();
        int commands = 1 + in.u8() % 4;
        for (int c = 0; c < commands; c++) {
            int op = in.u8() % 7;
            int at = b.length == 0 ? 0 : in.below(b.length);
            switch (op) {
                case 0 -> {
                    if (b.length > 0) {
                        b[at] = (byte) in.u8();
                    }
                }
                case 1, 2 -> {
                    if (b.length >= 4) {
                        int v = op == 1 ? EDGE_INTS[in.below(EDGE_INTS.length)] : in.i32();
                        int p = Math.min(at, b.length - 4);
                        boolean little = in.bit();
                        for (int i = 0; i < 4; i++) {
                            b[p + i] = (byte) (little ? v >>> (8 * i) : v >>> (24 - 8 * i));
                        }
                    }
                }
                case 3 -> b = Arrays.copyOf(b, at);
                case 4 -> {
                    byte[] inserted = in.take(1 + in.u8() % 16);
                    ByteArrayOutputStream o = new ByteArrayOutputStream();
                    o.write(b, 0, at);
                    o.writeBytes(inserted);
                    o.write(b, at, b.length - at);
                    b = o.toByteArray();
                }
                case 5 -> {
                    int n = Math.min(b.length - at, 1 + in.u8() % 16);
                    byte[] cut = new byte[b.length - n];
                    System.arraycopy(b, 0, cut, 0, at);
                    System.arraycopy(b, at + n, cut, at, b.length - at - n);
                    b = cut;
                }
                default -> {
                    byte[] tail = in.take(1 + in.u8() % 16);
                    byte[] longer = Arrays.copyOf(b, b.length + tail.length);
                    System.arraycopy(tail, 0, longer, b.length, tail.length);
                    b = longer;
                }
            }
        }
        return b;
    }
}
