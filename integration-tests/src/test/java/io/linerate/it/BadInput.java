package io.linerate.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.dedup.ScopedEvent;
import io.linerate.jobs.dedup.ScopedEventFormat;
import io.linerate.jobs.feed.TrafficSource;
import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.Decoded;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * The input of a bad-input run, written in order: a workload's seeded traffic where each Kafka record is preceded,
 * with probability {@link #MALFORMED_SHARE} (seeded), by a malformed record made from it, in its partition, the
 * defects taken in turn. Records what was written: each malformed record with its offset and Kafka timestamp (the
 * producer's acknowledgement) and the dead letter the job's decoder must make of it (decoded here, and checked
 * against its defect), and the truth of the well-formed records (decoded here too): packets per observation point
 * and window, or the events.
 */
final class BadInput {

  /** Share of the traffic's records preceded by a malformed record. */
  static final double MALFORMED_SHARE = 0.01;
  /** The heavy-hitters job's (tumbling, epoch-aligned) window. */
  static final long WINDOW_MS = ((HeavyHittersJob) Workload.HEAVY_HITTERS.job(true)).detector().windowSize().toMillis();

  /** One malformed record: where it is and the dead letter its value makes. */
  record Malformed(MalformedValues.Defect defect, byte[] key, byte[] value, List<Header> headers, int partition,
      long offset, long timestamp, DeadLetter expected) {
  }

  private record Sent(MalformedValues.Defect defect, byte[] key, byte[] value, List<Header> headers,
      DeadLetter expected, Future<RecordMetadata> ack) {
  }

  final List<Malformed> malformed = new ArrayList<>();
  /** For the packet jobs (else null). */
  final PacketTruth packets;
  /** For dedup (else null). */
  final EventTruth events;
  long wellFormedRecords;
  long wellFormedUnits;

  private BadInput(Workload w) {
    packets = w == Workload.DEDUP ? null : new PacketTruth(WINDOW_MS);
    events = w == Workload.DEDUP ? new EventTruth() : null;
  }

  /** The decoding the job's source applies (dedup: the event format {@link Workload#DEDUP} configures). */
  static KafkaDecoding<?> decoding(Workload w) {
    if (w != Workload.DEDUP) {
      return KafkaDecoding.packetBatches();
    }
    JsonEventFormat events = JsonEventFormat.builder().keyField("id").timestampField("ts").build();
    return new KafkaDecoding<>(new ScopedEventFormat(events, "tenant", DedupJob.DEFAULT_SCOPE),
        ScopedEvent.typeInfo(), KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES);
  }

  /** Writes {@code units} of {@code w}'s traffic from {@code seed} with malformed records to {@code writer}'s topic. */
  static BadInput write(Workload w, long units, long seed, InputWriter writer, String topic) throws Exception {
    BadInput in = new BadInput(w);
    KafkaDecoding<?> decoding = decoding(w);
    MalformedValues.Defect[] defects = w == Workload.DEDUP ? MalformedValues.EventDefect.values()
        : MalformedValues.BatchDefect.values();
    SplittableRandom random = new SplittableRandom(seed ^ 0xBAD1);
    TrafficSource source = w.traffic(units, seed).source();
    List<Sent> sent = new ArrayList<>();
    TrafficSource.Record r;
    while ((r = source.next()) != null) {
      int partition = writer.partition(r.key());
      if (random.nextDouble() < MALFORMED_SHARE) {
        MalformedValues.Defect defect = defects[sent.size() % defects.length];
        byte[] bad = defect.make(r.value(), random);
        List<Header> headers = headers(sent.size(), defect);
        DeadLetter expected = deadLetter(decoding, topic, partition, r.key(), bad, headers, defect);
        sent.add(new Sent(defect, r.key(), bad, headers, expected, writer.send(partition, r.key(), bad, headers)));
      }
      writer.send(partition, r.key(), r.value());
      Decoded<?> good = decoding.decode(new ConsumerRecord<>(topic, partition, 0L, r.key(), r.value()));
      if (good.isDead()) {
        throw new AssertionError("the " + w + " traffic has a malformed record: " + good.deadLetter);
      }
      in.count(good.value, r.units());
    }
    writer.flush();
    for (Sent s : sent) {
      RecordMetadata m = s.ack().get(30, TimeUnit.SECONDS);
      s.expected().offset = m.offset();
      s.expected().timestamp = m.timestamp();
      in.malformed.add(new Malformed(s.defect(), s.key(), s.value(), s.headers(), m.partition(), m.offset(),
          m.timestamp(), s.expected()));
    }
    return in;
  }

  /**
   * The headers of the i-th malformed record, in turn: none; two (the defect's name, and one with a null value);
   * {@link KafkaDecoding#MAX_DEAD_LETTER_HEADERS} + 6, more than a dead letter keeps.
   */
  static List<Header> headers(int i, MalformedValues.Defect defect) {
    switch (i % 3) {
      case 0:
        return List.of();
      case 1:
        return List.of(new RecordHeader("defect", defect.name().getBytes(StandardCharsets.UTF_8)),
            new RecordHeader("none", null));
      default:
        List<Header> many = new ArrayList<>();
        for (int h = 0; h < KafkaDecoding.MAX_DEAD_LETTER_HEADERS + 6; h++) {
          many.add(new RecordHeader("h" + h, new byte[] {(byte) h}));
        }
        return many;
    }
  }

  /** The dead letter of {@code bad} (offset and timestamp filled in once written); checks it against its defect. */
  private static DeadLetter deadLetter(KafkaDecoding<?> decoding, String topic, int partition, byte[] key, byte[] bad,
      List<Header> headers, MalformedValues.Defect defect) {
    Decoded<?> d = decoding.decode(new ConsumerRecord<>(topic, partition, -1L, ConsumerRecord.NO_TIMESTAMP,
        TimestampType.CREATE_TIME, -1, -1, key, bad, new RecordHeaders(headers), Optional.empty()));
    if (!d.isDead()) {
      throw new AssertionError(defect + " made a value the decoder reads: " + Arrays.toString(bad));
    }
    DeadLetter letter = d.deadLetter;
    if (!defect.reason().matcher(letter.reason).find()
        || defect.errorOffset() != MalformedValues.ANY_OFFSET && defect.errorOffset() != letter.errorOffset) {
      throw new AssertionError(defect + ": the decoder says '" + letter.reason + "' at byte " + letter.errorOffset
          + ", expected /" + defect.reason() + "/ at " + defect.errorOffset());
    }
    return letter;
  }

  private void count(Object value, int units) {
    wellFormedRecords++;
    wellFormedUnits += units;
    if (value instanceof PacketBatch b) {
      packets.add(b);
    } else {
      events.add((ScopedEvent) value);
    }
  }

  /** The packets of the well-formed batches: in all, per observation point, per observation point and window. */
  static final class PacketTruth {
    long packets;
    long bytes;
    /** Observation point → {packets, bytes}. */
    final Map<Integer, long[]> perPoint = new TreeMap<>();
    /** "observation point@window start" → packets. */
    final Map<String, Long> perWindow = new TreeMap<>();
    private final PacketRecord reuse = new PacketRecord();
    private final long windowMs;

    PacketTruth(long windowMs) {
      this.windowMs = windowMs;
    }

    void add(PacketBatch b) {
      long[] point = perPoint.computeIfAbsent(b.observationPoint(), k -> new long[2]);
      b.forEach(reuse, p -> {
        packets++;
        bytes += p.length();
        point[0]++;
        point[1] += p.length();
        long windowStart = Math.floorDiv(p.timestamp(), windowMs) * windowMs;
        perWindow.merge(windowKey(p.observationPoint(), windowStart), 1L, Long::sum);
      });
    }

    static String windowKey(long observationPoint, long windowStart) {
      return observationPoint + "@" + windowStart;
    }
  }

  /** The well-formed events, each as a 64-bit hash of its key and timestamp, and of its key alone. */
  static final class EventTruth {
    long[] keyAndTime = new long[1024];
    long[] keys = new long[1024];
    int n;

    void add(ScopedEvent e) {
      add(e.event.key, e.event.timestamp);
    }

    void add(String key, long timestamp) {
      if (n == keys.length) {
        keys = Arrays.copyOf(keys, 2 * n);
        keyAndTime = Arrays.copyOf(keyAndTime, 2 * n);
      }
      keys[n] = keyHash(key);
      keyAndTime[n] = keyAndTimeHash(key, timestamp);
      n++;
    }

    /** FNV-1a over the key's UTF-8 bytes, then a SplitMix64 finalizer. */
    static long keyHash(String key) {
      long h = 0xcbf29ce484222325L;
      for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
        h = (h ^ (b & 0xff)) * 0x100000001b3L;
      }
      return mix(h);
    }

    static long keyAndTimeHash(String key, long timestamp) {
      return mix(keyHash(key) ^ mix(timestamp + 0x9E3779B97F4A7C15L));
    }

    private static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      return z ^ (z >>> 31);
    }
  }
}
