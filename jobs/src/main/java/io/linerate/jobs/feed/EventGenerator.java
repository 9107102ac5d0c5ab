package io.linerate.jobs.feed;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The events of {@link SyntheticTraffic.Format#EVENTS}: {@code {"<scope>":"tenant-<t>","<key>":"<16 hex
 * digits>","<timestamp>":<epoch ms>}}. The d-th distinct key is {@code mix64(d ^ salt)} in hex — distinct for
 * distinct d, since the SplitMix64 finalizer is a bijection — and its tenant is a hash of d; a duplicate repeats
 * key and tenant of one of the last {@code duplicateWindow} distinct keys (uniform), with the current event time.
 */
final class EventGenerator implements TrafficSource {

    private final SyntheticTraffic t;
    private final Mix random;
    private final long keySalt;
    private final long tenantSalt;
    private final byte[][] tenantKeys;
    private final EventTimeRange range = new EventTimeRange();
    private long events;
    private long distinct;

    EventGenerator(SyntheticTraffic traffic) {
        this.t = traffic;
        this.random = new Mix(traffic.seed);
        this.keySalt = Mix.mix64(traffic.seed ^ 0x2545F4914F6CDD1DL);
        this.tenantSalt = Mix.mix64(traffic.seed ^ 0x9E3779B97F4A7C15L);
        this.tenantKeys = new byte[Math.min(traffic.tenants, 4096)][];
    }

    @Override
    public Record next() {
        if (t.count != 0 && events >= t.count) {
            return null;
        }
        long ts = t.clock == SyntheticTraffic.Clock.WALL ? System.currentTimeMillis() : t.eventTimeOf(events);
        if (ts < 0) {
            return null; // an unbounded stream ends at the latest event time (a bounded one is refused when built)
        }
        range.add(ts);
        events++;
        long d;
        if (distinct > 0 && random.nextDouble() < t.duplicateRatio) {
            d = distinct - 1 - random.nextLong(Math.min(distinct, t.duplicateWindow));
        } else {
            d = distinct++;
        }
        String key = String.format(Locale.ROOT, "%016x", Mix.mix64(d ^ keySalt));
        int tenant = (int) Long.remainderUnsigned(Mix.mix64(d ^ tenantSalt), t.tenants);
        String json = "{\"" + t.scopeField + "\":\"tenant-" + tenant + "\",\"" + t.keyField + "\":\"" + key + "\",\""
                + t.timestampField + "\":" + ts + "}";
        return new Record(tenantKey(tenant), json.getBytes(StandardCharsets.UTF_8), 1);
    }

    @Override
    public long firstEventMillis() {
        return range.first();
    }

    @Override
    public long lastEventMillis() {
        return range.last();
    }

    private byte[] tenantKey(int tenant) {
        if (tenant >= tenantKeys.length) {
            return ("tenant-" + tenant).getBytes(StandardCharsets.UTF_8);
        }
        byte[] k = tenantKeys[tenant];
        if (k == null) {
            k = tenantKeys[tenant] = ("tenant-" + tenant).getBytes(StandardCharsets.UTF_8);
        }
        return k;
    }
}
