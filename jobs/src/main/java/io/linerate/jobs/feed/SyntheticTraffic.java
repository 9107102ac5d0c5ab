package io.linerate.jobs.feed;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.Feeder;

/**
 * Synthetic traffic to a Kafka topic, reproducible from a seed: the same settings give byte-identical record keys
 * and values (with the event-time clock; the Kafka record timestamps are the producer's wall clock).
 *
 * <ul>
 *   <li>{@link Format#PACKETS}: {@link PacketBatch}es in the v1 binary encoding, each of {@code batchSize} packets
 *       of ONE observation point (batches go round-robin over the observation points 0 .. n−1), keyed by the
 *       observation point (decimal text) so a partition holds all of a scope's batches. Each packet belongs to a
 *       flow drawn from a Zipf distribution over {@code flows} flows: P(rank i) = (i+1)^−s / H(n, s). From
 *       {@code injectAfter} of event time on, a packet is instead the heavy hitter's with probability
 *       {@code heavyHitterShare}, or an attack packet with probability {@code attackShare}.</li>
 *   <li>{@link Format#EVENTS}: one JSON object per record, keyed by its scope (tenant), e.g.
 *       {@code {"tenant":"tenant-2","id":"5f1c0d27a9e4b3c8","ts":1767225600000}}; each event after the first
 *       repeats an earlier event (same key and scope) with probability {@code duplicateRatio}, drawn uniformly from
 *       the last {@code duplicateWindow} distinct keys; other keys are new (distinct by construction).</li>
 * </ul>
 * Event time starts at {@code start} and advances by 1/{@code eventRate} s per packet or event, independent of
 * how fast records are written ({@link Clock#EVENT}); {@link Clock#WALL} stamps the wall clock instead (not
 * reproducible). Records are written as fast as possible or paced to {@code rate} packets or events per second of
 * wall clock. Event times stay within [{@code start}, {@link #MAX_EVENT_TIME}]: a {@code count} whose last one
 * would be stamped later is refused when built, and an unbounded stream ({@code count} 0) ends there.
 */
public final class SyntheticTraffic implements Feeder {

    /** What is generated. */
    public enum Format { PACKETS, EVENTS }

    /** Which clock stamps the packets and events. */
    public enum Clock { EVENT, WALL }

    /** An injected attack: many flows to one destination. */
    public enum Attack {
        NONE,
        /** TCP SYNs from random sources (100.64.0.0/10, random ports) to 192.168.250.80:80. */
        SYN_FLOOD,
        /** TCP SYNs from 198.51.100.7:50000 to 192.168.250.10, destination ports 1, 2, … 65535, 1, … */
        PORT_SCAN
    }

    /** 2026-01-01T00:00:00Z: the default start of event time, fixed so that a seed alone reproduces the traffic. */
    public static final long DEFAULT_START = 1_767_225_600_000L;
    /** The most flows (the Zipf table takes 8 bytes per flow; ranks are encoded in a /8 of source addresses). */
    public static final int MAX_FLOWS = 1 << 22;
    /**
     * The largest batch: 20000 packets of at most {@value io.linerate.jobs.format.PacketBatchCodec#MAX_PACKET_BYTES}
     * bytes stay under Kafka's default 1 MiB record limit ({@code max.request.size}, {@code message.max.bytes}).
     */
    public static final int MAX_BATCH_SIZE = 20_000;

    /** The latest event time stamped: 9999-12-31T23:59:59.999Z, the end of {@code --start}'s range and of the jobs' formats. */
    public static final long MAX_EVENT_TIME = 253_402_300_799_999L;

    /** The settings of {@link Format#PACKETS} only, builder method to command-line option, in the options' order. */
    static final Map<String, String> PACKET_SETTINGS = orderedMap("flows", "--flows", "skew", "--skew",
            "observationPoints", "--observation-points", "batchSize", "--batch-size", "ipv6Share", "--ipv6-share",
            "heavyHitterShare", "--heavy-hitter", "attack", "--attack", "attackShare", "--attack-share",
            "injectAfter", "--inject-after");
    /** The settings of {@link Format#EVENTS} only, builder method to command-line option, in the options' order. */
    static final Map<String, String> EVENT_SETTINGS = orderedMap("duplicateRatio", "--duplicate-ratio",
            "duplicateWindow", "--duplicate-window", "tenants", "--tenants", "keyField", "--key-field",
            "scopeField", "--scope-field", "timestampField", "--timestamp-field");
    /** The settings of {@link Clock#EVENT} only (the wall clock ignores them), builder method to option. */
    static final Map<String, String> EVENT_CLOCK_SETTINGS = orderedMap("start", "--start",
            "eventRate", "--event-rate");

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(map);
    }

    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    final Format format;
    final long seed;
    final long count;
    final double rate;
    final Clock clock;
    final long start;
    final double eventRate;
    final int flows;
    final double skew;
    final int observationPoints;
    final int batchSize;
    final double ipv6Share;
    final double heavyHitterShare;
    final Attack attack;
    final double attackShare;
    final long injectAfterMs;
    final double duplicateRatio;
    final int duplicateWindow;
    final int tenants;
    final String keyField;
    final String scopeField;
    final String timestampField;

    private SyntheticTraffic(Builder b) {
        format = b.format;
        seed = b.seed;
        count = b.count;
        rate = b.rate;
        clock = b.clock;
        start = b.start;
        eventRate = b.eventRate;
        flows = b.flows;
        skew = b.skew;
        observationPoints = b.observationPoints;
        batchSize = b.batchSize;
        ipv6Share = b.ipv6Share;
        heavyHitterShare = b.heavyHitterShare;
        attack = b.attack;
        attackShare = b.attack == Attack.NONE ? 0 : b.attackShare;
        injectAfterMs = b.injectAfter.toMillis();
        duplicateRatio = b.duplicateRatio;
        duplicateWindow = b.duplicateWindow;
        tenants = b.tenants;
        keyField = b.keyField;
        scopeField = b.scopeField;
        timestampField = b.timestampField;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The event time of packet or event {@code k} (k ≥ 0) on the event clock: start + ⌊k·1000/eventRate⌋ ms, or
     * −1 if that is after {@link #MAX_EVENT_TIME} (computed without overflow).
     */
    long eventTimeOf(long k) {
        double offset = k * 1000.0 / eventRate;
        return offset > MAX_EVENT_TIME - start ? -1 : start + (long) offset;
    }

    /**
     * Time at which the heavy hitter and the attack begin, {@code Long.MAX_VALUE} if never (no overflow):
     * {@code injectAfter} after {@code start} on the event clock, after {@code wallStart} (when the generator
     * starts) on the wall clock, whose timestamps have nothing to do with {@code start}.
     */
    long injectFrom(long wallStart) {
        long from = clock == Clock.WALL ? wallStart : start;
        return injectAfterMs > Long.MAX_VALUE - from ? Long.MAX_VALUE : from + injectAfterMs;
    }

    @Override
    public String description() {
        String pace = rate > 0 ? String.format(Locale.ROOT, rate >= 10 ? "at %.0f/s" : "at %.3g/s", rate) : "as fast as possible";
        String amount = count == 0 ? "until stopped" : count + " of them";
        if (format == Format.EVENTS) {
            return String.format(Locale.ROOT, "synthetic JSON events (seed %d, %d tenants, duplicate ratio %.3f) %s, %s",
                    seed, tenants, duplicateRatio, pace, amount);
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "synthetic packets (seed %d, %d Zipf flows, skew %.2f, %d observation points", seed, flows, skew,
                observationPoints));
        if (ipv6Share > 0) {
            s.append(String.format(Locale.ROOT, ", IPv6 %.1f%%", 100 * ipv6Share));
        }
        if (heavyHitterShare > 0) {
            s.append(String.format(Locale.ROOT, ", heavy hitter %.1f%%", 100 * heavyHitterShare));
        }
        if (attackShare > 0) {
            s.append(String.format(Locale.ROOT, ", %s %.1f%%", attack.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    100 * attackShare));
        }
        return s.append(") ").append(pace).append(", ").append(amount).toString();
    }

    /** Packets or events: what {@link #feed} counts. */
    @Override
    public String unit() {
        return format == Format.PACKETS ? "packets" : "events";
    }

    /** Writes to the demo's topic until done or stopped; counts acknowledged packets or events. */
    @Override
    public void feed(FeedContext context) throws Exception {
        FeedSummary summary = run(context.bootstrapServers(), context.topic(), context::stopRequested, context::sent);
        context.eventTimes(summary.firstEventMillis(), summary.lastEventMillis(), summary.lastRecordEventMillis());
    }

    /** {@link #run(String, String, Map, BooleanSupplier, LongConsumer)} without further producer properties. */
    public FeedSummary run(String bootstrapServers, String topic, BooleanSupplier stop, LongConsumer acked)
            throws Exception {
        return run(bootstrapServers, topic, Map.of(), stop, acked);
    }

    /**
     * Writes the traffic to {@code topic}, returning when {@code count} packets or events are acknowledged or soon
     * after {@code stop} turns true (what was sent is flushed and acknowledged first).
     *
     * @param producerProperties further properties of the feeder's producer (security settings…), checked as
     *     the jobs' sinks check them; {@code bootstrap.servers}, {@code enable.idempotence}, the serializers and
     *     the transactional settings are the feeder's own and refused
     * @param acked called with the packets or events of each acknowledged record (from the producer's thread)
     */
    public FeedSummary run(String bootstrapServers, String topic, Map<String, String> producerProperties,
            BooleanSupplier stop, LongConsumer acked) throws Exception {
        BooleanSupplier stopped = () -> stop.getAsBoolean() || Thread.currentThread().isInterrupted();
        long begin = System.nanoTime();
        Pacer pacer = new Pacer(rate, begin);
        TrafficSource source = source();
        long units = 0;
        try (FeedProducer producer = new FeedProducer(bootstrapServers, topic, "linerate-generate", producerProperties,
                acked)) {
            TrafficSource.Record r;
            while (!stopped.getAsBoolean() && (r = source.next()) != null) {
                if (!pacer.awaitUnit(units + r.units() - 1, stopped)) { // when the record's last unit is due
                    break;
                }
                producer.send(r.key(), r.value(), r.units());
                units += r.units();
            }
            producer.flush();
            return new FeedSummary(producer.ackedUnits(), producer.ackedRecords(), producer.ackedBytes(), 0, Map.of(),
                    (System.nanoTime() - begin) / 1e9, source.firstEventMillis(), source.lastEventMillis(),
                    source.lastRecordEventMillis());
        }
    }

    /** The records this traffic consists of, in order (no Kafka involved); a fresh sequence on every call. */
    public TrafficSource source() {
        return format == Format.PACKETS ? new PacketGenerator(this) : new EventGenerator(this);
    }

    /**
     * Settings; every setter checks its value and names the command-line option in its error. A setting the chosen
     * format or clock would ignore, set explicitly, is refused by {@link #build()} (as {@code generate} refuses its
     * option), so set only what applies: the packet settings for packets, the event settings for events, start and
     * event rate for the event clock; an attack share only with an attack, an injection time only with a heavy
     * hitter or an attack.
     */
    public static final class Builder {
        private Format format = Format.PACKETS;
        private long seed = 1;
        private long count = 1_000_000;
        private double rate;
        private Clock clock = Clock.EVENT;
        private long start = DEFAULT_START;
        private double eventRate = 10_000;
        private int flows = 10_000;
        private double skew = 1.1;
        private int observationPoints = 4;
        private int batchSize = 1000;
        private double ipv6Share;
        private double heavyHitterShare;
        private Attack attack = Attack.NONE;
        private double attackShare = 0.1;
        private Duration injectAfter = Duration.ZERO;
        private double duplicateRatio = 0.1;
        private int duplicateWindow = 10_000;
        private int tenants = 4;
        private String keyField = "id";
        private String scopeField = "tenant";
        private String timestampField = "ts";
        /** The settings whose setter was called (not defaults): build() refuses those the format or clock ignores. */
        private final java.util.Set<String> given = new java.util.HashSet<>();

        private Builder() {
        }

        /** {@code --format}: packets (default) or events. */
        public Builder format(Format value) {
            format = java.util.Objects.requireNonNull(value, "--format");
            given.add("format");
            return this;
        }

        /** {@code --seed}: the seed of every random choice (default 1). */
        public Builder seed(long value) {
            seed = value;
            return this;
        }

        /** {@code --count}: packets or events to write, 0 = until stopped (default 1000000). */
        public Builder count(long value) {
            if (value < 0) {
                throw new IllegalArgumentException("--count must be >= 0 (0: until stopped), got " + value);
            }
            count = value;
            return this;
        }

        /** {@code --rate}: packets or events per second of wall clock, 0 = as fast as possible (default 0). */
        public Builder rate(double value) {
            if (!(value >= 0 && value <= 1e9)) {
                throw new IllegalArgumentException("--rate must be in [0, 1e9] per second (0: as fast as possible), got "
                        + value);
            }
            rate = value;
            return this;
        }

        /** {@code --clock}: event (default; reproducible) or wall. */
        public Builder clock(Clock value) {
            clock = java.util.Objects.requireNonNull(value, "--clock");
            given.add("clock");
            return this;
        }

        /**
         * {@code --start}: event time of the first packet or event, epoch ms (default 2026-01-01T00:00:00Z). Event
         * clock only ({@link #build()} refuses it otherwise).
         */
        public Builder start(long epochMillis) {
            if (epochMillis < 0 || epochMillis > 253_402_300_799_999L) {
                throw new IllegalArgumentException("--start must be an instant in [1970, 9999], got " + epochMillis);
            }
            start = epochMillis;
            given.add("start");
            return this;
        }

        /**
         * {@code --event-rate}: packets or events per second of EVENT time (default 10000). Event clock
         * only ({@link #build()} refuses it otherwise).
         */
        public Builder eventRate(double value) {
            if (!(value > 0 && value <= 1e9)) {
                throw new IllegalArgumentException("--event-rate must be in (0, 1e9] per second of event time, got "
                        + value);
            }
            eventRate = value;
            given.add("eventRate");
            return this;
        }

        /**
         * {@code --flows}: flows of the Zipf distribution (default 10000). Packets only ({@link #build()} refuses it
         * otherwise).
         */
        public Builder flows(int value) {
            if (value < 1 || value > MAX_FLOWS) {
                throw new IllegalArgumentException("--flows must be in [1, " + MAX_FLOWS + "], got " + value);
            }
            flows = value;
            given.add("flows");
            return this;
        }

        /**
         * {@code --skew}: the Zipf exponent s, 0 = uniform (default 1.1). Packets only ({@link #build()} refuses it
         * otherwise).
         */
        public Builder skew(double value) {
            if (!(value >= 0 && value <= 10)) {
                throw new IllegalArgumentException("--skew must be in [0, 10], got " + value);
            }
            skew = value;
            given.add("skew");
            return this;
        }

        /**
         * {@code --observation-points}: observation points 0 .. n−1 the batches go to, round-robin (default 4).
         * Packets only ({@link #build()} refuses it otherwise).
         */
        public Builder observationPoints(int value) {
            if (value < 1 || value > 65_536) {
                throw new IllegalArgumentException("--observation-points must be in [1, 65536], got " + value);
            }
            observationPoints = value;
            given.add("observationPoints");
            return this;
        }

        /**
         * {@code --batch-size}: packets per Kafka record (default 1000). Packets only ({@link #build()} refuses it
         * otherwise).
         */
        public Builder batchSize(int value) {
            if (value < 1 || value > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("--batch-size must be in [1, " + MAX_BATCH_SIZE
                        + "] (a record stays under 1 MiB), got " + value);
            }
            batchSize = value;
            given.add("batchSize");
            return this;
        }

        /**
         * {@code --ipv6-share}: share of the Zipf flows that are IPv6 (default 0). Packets only ({@link #build()}
         * refuses it otherwise).
         */
        public Builder ipv6Share(double value) {
            ipv6Share = share("--ipv6-share", value);
            given.add("ipv6Share");
            return this;
        }

        /**
         * {@code --heavy-hitter}: share of packets of the injected heavy hitter, 0 = none (default 0). Packets only
         * ({@link #build()} refuses it otherwise).
         */
        public Builder heavyHitterShare(double value) {
            heavyHitterShare = share("--heavy-hitter", value);
            given.add("heavyHitterShare");
            return this;
        }

        /**
         * {@code --attack}: none (default), syn-flood or port-scan. Packets only ({@link #build()} refuses it
         * otherwise).
         */
        public Builder attack(Attack value) {
            attack = java.util.Objects.requireNonNull(value, "--attack");
            given.add("attack");
            return this;
        }

        /**
         * {@code --attack-share}: share of packets of the attack when one is chosen (default 0.1). Packets
         * only, and with an {@link #attack(Attack)} other than NONE ({@link #build()} refuses it otherwise).
         */
        public Builder attackShare(double value) {
            attackShare = share("--attack-share", value);
            given.add("attackShare");
            return this;
        }

        /**
         * {@code --inject-after}: event time from the start at which the heavy hitter and the attack begin (default
         * 0s). Packets only, and with a {@link #heavyHitterShare(double)} above 0 or an {@link #attack(Attack)}
         * other than NONE ({@link #build()} refuses it otherwise).
         */
        public Builder injectAfter(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("--inject-after must be >= 0s, got " + value);
            }
            if (value.compareTo(Duration.ofMillis(Long.MAX_VALUE)) > 0) { // held in milliseconds
                throw new IllegalArgumentException("--inject-after must be at most " + Long.MAX_VALUE
                        + " ms, got " + value);
            }
            injectAfter = value;
            given.add("injectAfter");
            return this;
        }

        /**
         * {@code --duplicate-ratio}: share of events that repeat an earlier one, in [0, 1) (default 0.1). Events only
         * ({@link #build()} refuses it otherwise).
         */
        public Builder duplicateRatio(double value) {
            if (!(value >= 0 && value < 1)) {
                throw new IllegalArgumentException("--duplicate-ratio must be in [0, 1), got " + value);
            }
            duplicateRatio = value;
            given.add("duplicateRatio");
            return this;
        }

        /**
         * {@code --duplicate-window}: a duplicate repeats one of the last n distinct keys (default 10000). Events only
         * ({@link #build()} refuses it otherwise).
         */
        public Builder duplicateWindow(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("--duplicate-window must be >= 1, got " + value);
            }
            duplicateWindow = value;
            given.add("duplicateWindow");
            return this;
        }

        /**
         * {@code --tenants}: scopes of the events, {@code tenant-0} .. (default 4). Events only ({@link #build()}
         * refuses it otherwise).
         */
        public Builder tenants(int value) {
            if (value < 1 || value > 1_000_000) {
                throw new IllegalArgumentException("--tenants must be in [1, 1000000], got " + value);
            }
            tenants = value;
            given.add("tenants");
            return this;
        }

        /**
         * {@code --key-field}: JSON field of the event key (default id). Events only ({@link #build()} refuses it
         * otherwise).
         */
        public Builder keyField(String value) {
            keyField = fieldName("--key-field", value);
            given.add("keyField");
            return this;
        }

        /**
         * {@code --scope-field}: JSON field of the event's scope (default tenant). Events only ({@link #build()}
         * refuses it otherwise).
         */
        public Builder scopeField(String value) {
            scopeField = fieldName("--scope-field", value);
            given.add("scopeField");
            return this;
        }

        /**
         * {@code --timestamp-field}: JSON field of the event time, epoch ms (default ts). Events only ({@link #build()}
         * refuses it otherwise).
         */
        public Builder timestampField(String value) {
            timestampField = fieldName("--timestamp-field", value);
            given.add("timestampField");
            return this;
        }

        /**
         * The traffic; checks the settings against each other. A setting given (its setter called, even with the
         * default value) that the chosen format or clock ignores is refused, naming it and the format or clock: a
         * packet setting ({@link SyntheticTraffic#PACKET_SETTINGS}) with {@link Format#EVENTS}, an event
         * setting ({@link SyntheticTraffic#EVENT_SETTINGS}) with {@link Format#PACKETS}, {@link #start(long)} or
         * {@link #eventRate(double)} with {@link Clock#WALL}. So is, for packets, a setting given with nothing to act
         * on, naming what it needs: {@link #attackShare(double)} with attack NONE, {@link #injectAfter(Duration)} with
         * neither a heavy hitter (share 0) nor an attack.
         */
        public SyntheticTraffic build() {
            refuseIgnored(format == Format.PACKETS ? EVENT_SETTINGS : PACKET_SETTINGS,
                    format == Format.PACKETS ? "format EVENTS" : "format PACKETS",
                    "format " + format + (given.contains("format") ? "" : " (the default)"));
            if (clock == Clock.WALL) {
                refuseIgnored(EVENT_CLOCK_SETTINGS, "clock EVENT",
                        "clock WALL, which stamps each packet or event with the wall clock when generated");
            }
            refuseNothingToActOn();
            if (attack != Attack.NONE && heavyHitterShare + attackShare > 1) {
                throw new IllegalArgumentException("--heavy-hitter + --attack-share must be <= 1, got "
                        + heavyHitterShare + " + " + attackShare);
            }
            if (format == Format.EVENTS && (keyField.equals(scopeField) || keyField.equals(timestampField)
                    || scopeField.equals(timestampField))) {
                throw new IllegalArgumentException("--key-field, --scope-field and --timestamp-field must differ, got "
                        + keyField + ", " + scopeField + ", " + timestampField);
            }
            if (clock == Clock.EVENT && format == Format.PACKETS
                    && (batchSize - 1) * 1000.0 / eventRate + 1 > PacketBatch.MAX_SPAN_MS) {
                throw new IllegalArgumentException("--event-rate " + eventRate + " is too slow for --batch-size "
                        + batchSize + ": a batch would span " + (long) Math.ceil((batchSize - 1) * 1000.0 / eventRate)
                        + " ms of event time, at most " + PacketBatch.MAX_SPAN_MS + " (raise --event-rate or lower"
                        + " --batch-size)");
            }
            SyntheticTraffic traffic = new SyntheticTraffic(this);
            if (clock == Clock.EVENT && count > 0 && traffic.eventTimeOf(count - 1) < 0) {
                throw new IllegalArgumentException("--count " + count + " at --event-rate " + eventRate + " from --start "
                        + java.time.Instant.ofEpochMilli(start) + " would stamp the last one after "
                        + java.time.Instant.ofEpochMilli(MAX_EVENT_TIME) + " (lower --count or raise --event-rate)");
            }
            return traffic;
        }

        /**
         * Refuses, all named at once, the packet settings given that have nothing to act on: an attack share without
         * an attack, an injection time with neither a heavy hitter nor an attack (generate refuses their options).
         */
        private void refuseNothingToActOn() {
            java.util.List<String> refused = new java.util.ArrayList<>();
            if (given.contains("attackShare") && attack == Attack.NONE) {
                refused.add("attackShare (--attack-share) applies to an injected attack only, and attack (--attack) is"
                        + " NONE: set attack SYN_FLOOD or PORT_SCAN, or leave attackShare out");
            }
            if (given.contains("injectAfter") && attack == Attack.NONE && heavyHitterShare == 0) {
                refused.add("injectAfter (--inject-after) says when the heavy hitter and the attack begin, and there"
                        + " is neither (heavyHitterShare (--heavy-hitter) 0, attack (--attack) NONE): set one, or"
                        + " leave injectAfter out");
            }
            if (!refused.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", refused));
            }
        }

        /** Refuses the {@code settings} given, which apply to {@code appliesTo} only, not to {@code chosen}. */
        private void refuseIgnored(java.util.Map<String, String> settings, String appliesTo, String chosen) {
            java.util.List<String> ignored = settings.entrySet().stream().filter(e -> given.contains(e.getKey()))
                    .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
            if (!ignored.isEmpty()) {
                boolean one = ignored.size() == 1;
                throw new IllegalArgumentException(String.join(", ", ignored) + (one ? " applies" : " apply") + " to "
                        + appliesTo + " only, not to " + chosen + ": leave " + (one ? "it" : "them") + " out");
            }
        }

        private static double share(String option, double value) {
            if (!(value >= 0 && value <= 1)) {
                throw new IllegalArgumentException(option + " must be in [0, 1], got " + value);
            }
            return value;
        }

        private static String fieldName(String option, String value) {
            if (value == null || !FIELD_NAME.matcher(value).matches()) {
                throw new IllegalArgumentException(option + " must be a JSON field name of letters, digits and _"
                        + " (not starting with a digit, at most 64), got '" + value + "'");
            }
            return value;
        }
    }
}
