package io.linerate.jobs.feed;

import java.nio.charset.StandardCharsets;

import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;

/**
 * The packets of {@link SyntheticTraffic.Format#PACKETS}. Flow of Zipf rank r: IPv4 {@code 10.0.0.0 + r} (so every
 * rank is a distinct flow) from a port in [1024, 65535] to one of 1024 servers {@code 192.168.0.0/22} on a port
 * from {@link #SERVICES} (UDP for 53 and 123, TCP otherwise), all chosen by hashing (seed, r); an IPv6 flow
 * (chosen by the same hash with probability ipv6Share) goes from {@code 2001:db8:0:1::r} to
 * {@code 2001:db8:0:2::<server + 1>}. The heavy hitter is TCP {@code 172.16.0.1:40000 → 192.168.200.1:443}.
 */
final class PacketGenerator implements TrafficSource {

    static final int HEAVY_SRC = 0xAC100001; // 172.16.0.1
    static final int HEAVY_DST = 0xC0A8C801; // 192.168.200.1
    static final int HEAVY_SRC_PORT = 40_000;
    static final int HEAVY_DST_PORT = 443;
    static final int FLOOD_DST = 0xC0A8FA50; // 192.168.250.80
    static final int SCAN_SRC = 0xC6336407; // 198.51.100.7
    static final int SCAN_DST = 0xC0A8FA0A; // 192.168.250.10
    static final int[] SERVICES = {443, 443, 443, 80, 80, 53, 22, 8080, 123, 25};
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final long V6_SRC_HIGH = 0x20010DB800000001L;
    private static final long V6_DST_HIGH = 0x20010DB800000002L;

    private final SyntheticTraffic t;
    private final Mix random;
    private final Zipf zipf;
    private final long flowSalt;
    private final byte[][] keys;
    private final PacketBatch batch;
    private final long injectFrom;
    private final EventTimeRange events = new EventTimeRange();
    private long packets;
    private long batches;
    /** The largest smallest timestamp of a batch made: the latest record time the jobs' watermarks follow. */
    private long lastBatchTime = FeedSummary.NO_EVENT_TIME;
    private int scanPort;

    PacketGenerator(SyntheticTraffic traffic) {
        this.t = traffic;
        this.random = new Mix(traffic.seed);
        this.zipf = new Zipf(traffic.flows, traffic.skew);
        this.flowSalt = Mix.mix64(traffic.seed ^ 0x5DEECE66DL);
        this.keys = new byte[traffic.observationPoints][];
        for (int op = 0; op < keys.length; op++) {
            keys[op] = Integer.toString(op).getBytes(StandardCharsets.UTF_8);
        }
        this.batch = new PacketBatch(0, traffic.batchSize);
        this.injectFrom = traffic.injectFrom(System.currentTimeMillis());
    }

    @Override
    public Record next() {
        long left = t.count == 0 ? Long.MAX_VALUE : t.count - packets;
        if (left <= 0) {
            return null;
        }
        int n = (int) Math.min(t.batchSize, left);
        if (t.clock == SyntheticTraffic.Clock.EVENT) {
            while (n > 0 && t.eventTimeOf(packets + n - 1) < 0) {
                n--; // an unbounded stream ends at the latest event time (a bounded one is refused when built)
            }
            if (n == 0) {
                return null;
            }
        }
        int op = (int) (batches++ % t.observationPoints);
        batch.clear(op);
        for (int i = 0; i < n; i++) {
            addPacket(timestamp(packets++));
        }
        lastBatchTime = Math.max(lastBatchTime, batch.minTimestamp());
        return new Record(keys[op], PacketBatchCodec.encode(batch), n);
    }

    private long timestamp(long packet) {
        long ts = t.clock == SyntheticTraffic.Clock.WALL ? System.currentTimeMillis()
                : t.eventTimeOf(packet);
        events.add(ts);
        return ts;
    }

    @Override
    public long firstEventMillis() {
        return events.first();
    }

    @Override
    public long lastEventMillis() {
        return events.last();
    }

    @Override
    public long lastRecordEventMillis() {
        return lastBatchTime;
    }

    private void addPacket(long ts) {
        double u = random.nextDouble();
        boolean injecting = ts >= injectFrom;
        if (injecting && u < t.heavyHitterShare) {
            batch.addIpv4(ts, HEAVY_SRC, HEAVY_DST, HEAVY_SRC_PORT, HEAVY_DST_PORT, TCP, 0x10, 1500);
        } else if (injecting && u < t.heavyHitterShare + t.attackShare) {
            addAttack(ts);
        } else {
            addFlowPacket(ts, zipf.sample(random));
        }
    }

    private void addAttack(long ts) {
        if (t.attack == SyntheticTraffic.Attack.SYN_FLOOD) {
            long r = random.nextLong();
            int src = 0x64400000 | (int) (r & 0x3FFFFF); // 100.64.0.0/10
            int srcPort = 1024 + (int) ((r >>> 32) % 64_512);
            batch.addIpv4(ts, src, FLOOD_DST, srcPort, 80, TCP, 0x02, 60);
        } else {
            scanPort = scanPort % 65_535 + 1;
            batch.addIpv4(ts, SCAN_SRC, SCAN_DST, 50_000, scanPort, TCP, 0x02, 44);
        }
    }

    private void addFlowPacket(long ts, int rank) {
        long h = Mix.mix64(rank ^ flowSalt);
        boolean v6 = (h >>> 11) * 0x1.0p-53 < t.ipv6Share;
        int service = SERVICES[(int) ((h & 0xFFFF) % SERVICES.length)];
        int protocol = service == 53 || service == 123 ? UDP : TCP;
        int srcPort = 1024 + (int) (((h >>> 16) & 0xFFFF) % 64_512);
        int server = (int) ((h >>> 32) & 0x3FF);
        double u = random.nextDouble();
        int header = v6 ? 40 : 20;
        int length;
        int flags = 0;
        if (protocol == UDP) {
            length = header + 8 + (int) (u * 512);
        } else {
            // a bulk-transfer mix: half full-size segments, a third pure ACKs, the rest in between. The flags come
            // from the same draw (SYN, FIN+ACK and PSH+ACK are full-size segments): drawing them apart would change
            // every seeded stream, and the committed savepoint fixtures replay a seeded stream (docs/feeding.md)
            length = u < 0.5 ? 1500 : u < 0.8 ? header + 20 : header + 20 + (int) ((u - 0.8) * 5 * (1480 - header));
            flags = u < 0.02 ? 0x02 : u < 0.03 ? 0x11 : u < 0.13 ? 0x18 : 0x10;
        }
        if (v6) {
            batch.addIpv6(ts, V6_SRC_HIGH, rank, V6_DST_HIGH, server + 1, srcPort, service, protocol, flags, length);
        } else {
            batch.addIpv4(ts, 0x0A000000 | rank, 0xC0A80000 | server, srcPort, service, protocol, flags, length);
        }
    }
}
