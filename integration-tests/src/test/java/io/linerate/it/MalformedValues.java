package io.linerate.it;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;

/**
 * Malformed Kafka values for the two input formats of docs/FORMATS.md, made from a well-formed value of the same
 * stream (so they look like the traffic around them), each kind with what its dead letter must say: a pattern the
 * reason must match (naming the defect) and the byte offset of the error where the format fixes it.
 */
final class MalformedValues {

  /** The error offset is not fixed by the defect (it depends on the random bytes or on where a value was cut). */
  static final long ANY_OFFSET = Long.MIN_VALUE;

  private static final ObjectMapper JSON = new ObjectMapper();

  private MalformedValues() {
  }

  /** A kind of defect. */
  interface Defect {
    String name();

    /** What the dead letter's reason must match. */
    Pattern reason();

    /** The dead letter's error offset, or {@link #ANY_OFFSET}. */
    long errorOffset();

    /** A malformed value (null for a record without value) made from {@code good}, a well-formed value. */
    byte[] make(byte[] good, SplittableRandom random);
  }

  /** Defects of binary packet batches v1 ("What the decoder rejects"). */
  enum BatchDefect implements Defect {
    BAD_MAGIC("^bad magic 0x5859, expected 0x4c52", 0) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return patched(good, 0, 'X', 'Y');
      }
    },
    BAD_VERSION("^unknown version 2 \\(this decoder reads version 1\\)$", 2) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return patched(good, 2, 2);
      }
    },
    NON_ZERO_FLAGS("^unknown flags 0x[0-9a-f]+ \\(version 1 defines none\\)$", 3) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return patched(good, 3, 1 << random.nextInt(8));
      }
    },
    /** Cut anywhere after the magic: a header field, the count check against the bytes left, or a packet is cut. */
    // cut anywhere: inside a packet's fixed fields ("... needs 4 bytes, 1 left"), inside a varint ("length varint
    // ends after 1 bytes"), or before the packets the header counts
    TRUNCATED("truncated: .* needs \\d+ bytes?, \\d+ left|truncated: .* varint ends after \\d+ bytes?"
        + "|^count \\d+ needs at least \\d+ bytes of packets",
        ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return Arrays.copyOf(good, 2 + random.nextInt(good.length - 2));
      }
    },
    COUNT_OUT_OF_RANGE("^count \\d+ outside \\[1, 65536\\]$", 8) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        byte[] v = good.clone();
        ByteBuffer.wrap(v).putInt(8, random.nextBoolean() ? 0 : PacketBatch.MAX_PACKETS + 1 + random.nextInt(1 << 30));
        return v;
      }
    },
    /** A count the limit allows but the value's bytes cannot hold (≥ 17 bytes a packet). */
    COUNT_OVER_THE_BYTES("^count 65536 needs at least 1114112 bytes of packets, only \\d+ follow the header$", 8) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        byte[] v = good.clone();
        ByteBuffer.wrap(v).putInt(8, PacketBatch.MAX_PACKETS);
        return v;
      }
    },
    /** One UDP packet whose IPv4 length (a 1-byte varint at offset 28) is below 20. */
    IMPOSSIBLE_LENGTH("^packet 0: impossible length \\d+ of an IPv4 packet, expected \\[20, 2097151\\]$", 28) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        byte[] v = oneUdpPacket(good);
        v[28] = (byte) random.nextInt(20);
        return v;
      }
    },
    /**
     * One packet whose timestamp (base + delta) passes the largest base: once a decoder let it through, and the next
     * task, decoding the batch re-encoded with that timestamp as its base after the keyBy, failed the job.
     */
    TIMESTAMP_BEYOND_THE_LARGEST_BASE("^packet 0: timestamp 9223372034707292161 \\(base \\+ delta\\) above "
        + "9223372034707292160$", 27) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        byte[] v = oneUdpPacket(good);
        ByteBuffer.wrap(v).putLong(12, PacketBatchCodec.MAX_BASE_TIMESTAMP);
        v[27] = 1; // a delta of 1, still a 1-byte varint
        return v;
      }
    },
    /** 1 to 6000 random bytes (more than a dead letter keeps, 4096, now and then). */
    RANDOM_BYTES(".", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return randomBytes(random, 1 + random.nextInt(6000));
      }
    },
    /** A valid magic, version and flags, then random bytes: the decoder must find what is wrong further in. */
    RANDOM_AFTER_THE_HEADER_START(".", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        byte[] v = randomBytes(random, 4 + random.nextInt(6000));
        v[0] = PacketBatchCodec.MAGIC_0;
        v[1] = PacketBatchCodec.MAGIC_1;
        v[2] = PacketBatchCodec.VERSION;
        v[3] = 0;
        return v;
      }
    },
    EMPTY_VALUE("^truncated: magic needs 2 bytes, 0 left$", 0) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return new byte[0];
      }
    },
    NULL_VALUE("^record has no value \\(null\\)$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return null;
      }
    };

    /**
     * A batch of one UDP packet (length 100) of {@code good}'s observation point, at its base timestamp, encoded: its
     * delta (0, one byte) at offset 27 and its length (a 1-byte varint) at 28.
     */
    private static byte[] oneUdpPacket(byte[] good) {
      ByteBuffer in = ByteBuffer.wrap(good);
      PacketBatch b = new PacketBatch(in.getInt(4));
      b.addIpv4(in.getLong(12), 0x0A000001, 0x0A000002, 40_000, 53, 17, 0, 100);
      byte[] v = PacketBatchCodec.encode(b);
      if (v[27] != 0 || v[28] != 100) {
        throw new AssertionError("the one packet's delta and length are not at bytes 27 and 28: " + Arrays.toString(v));
      }
      return v;
    }

    private final Pattern reason;
    private final long errorOffset;

    BatchDefect(String reason, long errorOffset) {
      this.reason = Pattern.compile(reason);
      this.errorOffset = errorOffset;
    }

    @Override
    public Pattern reason() {
      return reason;
    }

    @Override
    public long errorOffset() {
      return errorOffset;
    }
  }

  /**
   * Defects of the dedup job's JSON events ({@code {"tenant":…,"id":…,"ts":…}}: key field {@code id}, timestamp
   * field {@code ts}, scope field {@code tenant}, as {@link Workload#DEDUP} configures the job).
   */
  enum EventDefect implements Defect {
    /** The event cut short: never a complete JSON value. */
    INVALID_JSON("^bad JSON: ", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return Arrays.copyOf(good, 1 + random.nextInt(good.length - 1));
      }
    },
    NOT_AN_OBJECT("^bad JSON: the event must be a JSON object, got an array$", 0) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return utf8("[" + text(good) + "]");
      }
    },
    TRAILING_CONTENT("^bad JSON: (?i).*trailing token", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return utf8(text(good) + " 1");
      }
    },
    DUPLICATE_FIELD("^bad JSON: Duplicate field 'id'", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return utf8("{\"id\":\"first\"," + text(good).substring(1));
      }
    },
    MISSING_KEY("^key field id is missing$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.remove("id"));
      }
    },
    NULL_KEY("^key field id is null$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.putNull("id"));
      }
    },
    KEY_OF_WRONG_TYPE("^key field id must be a string or an integral number, got an object$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> {
          var key = o.get("id");
          o.putObject("id").set("value", key);
        });
      }
    },
    MISSING_TIMESTAMP("^timestamp field ts is missing$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.remove("ts"));
      }
    },
    TIMESTAMP_OF_WRONG_TYPE("^timestamp field ts must be an integral number of milliseconds or an ISO-8601 date-time "
        + "string, got a boolean true$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.put("ts", true));
      }
    },
    TIMESTAMP_NOT_A_TIME("^timestamp field ts is not an ISO-8601 date-time with an offset: \"yesterday\"$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.put("ts", "yesterday"));
      }
    },
    MISSING_SCOPE("^scope field tenant is missing$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> o.remove("tenant"));
      }
    },
    SCOPE_OF_WRONG_TYPE("^scope field tenant must be a string or an integral number, got an array$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return edit(good, o -> {
          var tenant = o.get("tenant");
          o.putArray("tenant").add(tenant);
        });
      }
    },
    EMPTY_VALUE("^bad JSON: ", ANY_OFFSET) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return new byte[0];
      }
    },
    NULL_VALUE("^record has no value \\(null\\)$", -1) {
      @Override
      public byte[] make(byte[] good, SplittableRandom random) {
        return null;
      }
    };

    private final Pattern reason;
    private final long errorOffset;

    EventDefect(String reason, long errorOffset) {
      this.reason = Pattern.compile(reason);
      this.errorOffset = errorOffset;
    }

    @Override
    public Pattern reason() {
      return reason;
    }

    @Override
    public long errorOffset() {
      return errorOffset;
    }
  }

  private static byte[] patched(byte[] good, int at, int... bytes) {
    byte[] v = good.clone();
    for (int i = 0; i < bytes.length; i++) {
      v[at + i] = (byte) bytes[i];
    }
    return v;
  }

  private static byte[] randomBytes(SplittableRandom random, int n) {
    byte[] v = new byte[n];
    for (int i = 0; i < n; i++) {
      v[i] = (byte) random.nextInt(256);
    }
    return v;
  }

  private interface Edit {
    void apply(ObjectNode event);
  }

  /** The event parsed, edited, written again (field order kept). */
  private static byte[] edit(byte[] good, Edit edit) {
    try {
      ObjectNode o = (ObjectNode) JSON.readTree(good);
      edit.apply(o);
      return JSON.writeValueAsBytes(o);
    } catch (java.io.IOException e) {
      throw new AssertionError("not a JSON event: " + text(good), e);
    }
  }

  private static String text(byte[] v) {
    return new String(v, StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
