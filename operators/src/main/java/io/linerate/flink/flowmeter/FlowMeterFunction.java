package io.linerate.flink.flowmeter;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.serializers.FlowTableSerializer;
import io.linerate.flink.serializers.FlowTableTypeInfo;
import io.linerate.flink.state.WriteBackCache;
import io.linerate.flink.state.WriteBackFunction;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowExporter;
import io.linerate.sketches.flowtable.FlowRecord;
import io.linerate.sketches.flowtable.FlowTable;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The flow meter's keyed process function: one {@link FlowTable} per scope key in a {@link ValueState} typed
 * by {@link FlowTableTypeInfo}. Its input records are of type {@code B}: batch records whose elements (packets of
 * type {@code T}) an {@link ElementsOf} lists, or single packets ({@code B = T}, a batch of one, what
 * {@link FlowMeter#function} builds). Per input record: one {@code value()} of the scope's table and, if any
 * packet was metered, one {@code update()}. Per packet: one table update (allocation-free for primitive
 * selectors), the table's amortised expiry sweep, and at most one timer registration per scope per tick.
 *
 * <p><b>Timers</b> (event time, per scope, never per flow): a tick timer at the end of the tick that holds the
 * scope's "now" (registered when now crosses into a new tick, or when a packet arrives at an empty table);
 * when it fires at T it advances the table to the latest tick boundary not after the watermark and sweeps the
 * whole table once, exporting every flow idle for {@code idleTimeout} or older than {@code activeTimeout}, and
 * re-arms one tick later while the table holds flows. One end-of-input timer at {@code Long.MAX_VALUE}, set
 * when the scope's table is created, fires on the final watermark of a bounded input and flushes the table
 * (records marked {@link ExportReason#FLUSHED}); the scope's state is then cleared. A scope whose table a tick
 * timer freed keeps only its now until the final watermark ({@link #atEndOfEventTime}).
 *
 * <p><b>Late packets</b> ({@code lateRecords}): timestamp behind the current watermark on arrival. They are
 * metered all the same (no packet is dropped), by their flow: one whose flow has a record in the table, not expired
 * at the scope's now, joins it (its first timestamp may move back before the range of a record of the flow
 * exported earlier); otherwise it starts a new record.
 *
 * <p><b>Batches</b>: each packet of a batch gets its own timestamp ({@link FlowMeter.Builder#timestamps}, else
 * the batch record's Flink timestamp) and its own malformed / late decision. A batch whose {@link ElementsOf}
 * itself throws goes to the {@link FlowMeter#malformedBatchesTag} side output (counted in
 * {@code malformedBatches}); the packets it handed over before failing stay metered.
 */
public final class FlowMeterFunction<B, T, K> extends KeyedProcessFunction<K, B, MeteredFlow<K>>
        implements WriteBackFunction<K> {

    private static final long serialVersionUID = 1L;
    private static final long END_OF_INPUT = Long.MAX_VALUE;

    private final FlowMeter<T, K> meter;
    private final ElementsOf<B, T> elements;
    private final OutputTag<Rejected<T>> malformed;
    private final OutputTag<Rejected<B>> malformedBatches; // null for single packets: they cannot fail to list

    // the scopes' tables: on a heap backend (or without FlowMeter's operator) straight from the ValueState; on
    // RocksDB the tables of recent scopes stay live between checkpoints (FlowMeter.Builder#stateCacheBytes)
    private transient WriteBackCache<K, FlowTable> tables;
    // the now of a scope whose table a timer freed (8 bytes instead of a full-capacity table): its next table starts
    // there, so late packets are judged against the scope's now and not against their own timestamps; cleared at
    // the end of event time (atEndOfEventTime)
    private transient ValueState<Long> freedNow;
    private transient ValueStateDescriptor<Long> freedNowDescriptor;
    private transient WriteBackCache.KeyContext<K> keys;
    private transient PacketFields fields;
    private transient Emitter emitter;
    private transient Consumer<T> meterPacket; // this::meterPacket, made once: no lambda per batch
    private transient Counter itemsProcessed;
    private transient Counter malformedRecords;
    private transient Counter malformedBatchRecords;
    private transient Counter lateRecords;
    private transient Counter flowsExported;
    private transient Counter[] exportsByReason;
    // gauges of the last table touched: plain fields, a reporter may read a slightly stale value
    // read by metric reporters on their own threads: volatile, and written only when they change (observe)
    private transient volatile int lastActiveFlows;
    private transient volatile int lastStashSize;
    private transient volatile long lastStateBytes;

    // the current input record's context, set by processElement before the packets are metered
    private transient Context ctx;
    private transient FlowTable table; // the scope's table as read; null until a packet creates it
    private transient boolean changed; // a packet was metered: the table must be written back
    private transient boolean hasRecordTimestamp;
    private transient long recordTimestamp;
    private transient long watermark;
    private transient long lastTimer; // the tick timer last registered for this record (no duplicate calls)
    private transient boolean inPacket; // an exception escaping forEach came from the meter, not ElementsOf
    private transient int packetsSeen;

    FlowMeterFunction(FlowMeter<T, K> meter, ElementsOf<B, T> elements, OutputTag<Rejected<T>> malformed,
                      OutputTag<Rejected<B>> malformedBatches) {
        this.meter = meter;
        this.elements = elements;
        this.malformed = malformed;
        this.malformedBatches = malformedBatches;
    }

    @Override
    public void open(OpenContext context) {
        // the expected shape makes a restore into a table of another capacity, scheme, key format or seed fail,
        // naming the field; the timeouts and overflow policy are not shape: adopt() applies the current ones
        ValueState<FlowTable> state = getRuntimeContext().getState(new ValueStateDescriptor<>("flowTable",
                FlowTableSerializer.expecting(meter.tablePlan()))); // no full-capacity table built to say it
        tables = new WriteBackCache<>(state, keys, meter.cachedScopes(),
                "flow tables of " + meter.tableBytes() + " bytes");
        freedNowDescriptor = new ValueStateDescriptor<>("freedNow", Types.LONG);
        freedNow = getRuntimeContext().getState(freedNowDescriptor);
        fields = new PacketFields();
        emitter = new Emitter();
        meterPacket = this::meterPacket;
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        itemsProcessed = metrics.counter("itemsProcessed");
        malformedRecords = metrics.counter("malformedRecords");
        malformedBatchRecords = metrics.counter("malformedBatches");
        lateRecords = metrics.counter("lateRecords");
        flowsExported = metrics.counter("flowsExported");
        exportsByReason = new Counter[ExportReason.values().length];
        exportsByReason[ExportReason.IDLE_TIMEOUT.ordinal()] = metrics.counter("flowsIdleTimeout");
        exportsByReason[ExportReason.ACTIVE_TIMEOUT.ordinal()] = metrics.counter("flowsActiveTimeout");
        exportsByReason[ExportReason.EVICTED.ordinal()] = metrics.counter("evictions");
        exportsByReason[ExportReason.FLUSHED.ordinal()] = metrics.counter("flowsFlushed");
        exportsByReason[ExportReason.REMOVED.ordinal()] = new SimpleCounter(); // the meter never removes flows
        metrics.gauge("activeFlows", (Gauge<Integer>) () -> lastActiveFlows);
        metrics.gauge("stashOccupancy", (Gauge<Integer>) () -> lastStashSize);
        metrics.gauge("stateBytesPerKey", (Gauge<Long>) () -> lastStateBytes);
        tables.registerMetrics(metrics);
    }

    @Override
    public void bindKeys(WriteBackCache.KeyContext<K> keys) {
        this.keys = keys;
    }

    @Override
    public void writeBack() throws Exception {
        if (tables != null) { // null if open() failed (a refused restore): nothing was cached
            tables.flush();
        }
    }

    /**
     * The watermark {@code Long.MAX_VALUE} has fired every timer: every freed scope's now is removed, so that the
     * state of a job with churning scope keys does not keep one long per scope key it ever saw.
     *
     * <p>Why not earlier. A packet needs the freed now only if it is late for it (timestamp t &lt; now; a packet at
     * or after it moves the new table's now to t anyway), and then for the record boundaries and the amortised
     * expiry: its record is "expired at now" when {@code now − t} reaches a timeout, so the flow's next late packet
     * starts a new record, as in the emptied table, had it stayed (an empty table has no timer, so its now would
     * stay where it was until the next packet). That holds however far the watermark has moved on since: with an
     * idle timeout of 10 s, a scope freed at now 20 s, and two packets of a flow at 5 s and 5.5 s arriving when the
     * watermark is at 100 s, the freed now makes two records, a new table starting at 5 s one. So no watermark
     * short of the end makes it unneeded, and an event-time timer per freed scope to clear it would cost more
     * state than the long. After the final watermark no timer of the scope fires again, its tables are flushed,
     * and a packet that still comes starts a table whose timers never fire (flow-meter.md, End of input): such a
     * table now starts at that packet's own time, which changes only how packets after the end of event time are
     * cut into records that no timer will export.
     */
    @Override
    public void atEndOfEventTime(EveryKey every) throws Exception {
        every.forEach(freedNowDescriptor, freedNow::clear);
    }

    /** Meters every packet of {@code record} (a batch, or one packet) with one state read and at most one write. */
    @Override
    public void processElement(B record, Context ctx, Collector<MeteredFlow<K>> out) throws Exception {
        this.ctx = ctx;
        if (meter.timestamps == null) {
            readRecordTimestamp(ctx);
        }
        watermark = ctx.timerService().currentWatermark();
        lastTimer = Long.MIN_VALUE;
        changed = false;
        inPacket = false;
        packetsSeen = 0;
        table = tables.value();
        if (table != null) {
            table.setExporter(emitter); // the exporter is not state: a restored or deserialized table has none
            meter.adopt(table);
        }
        emitter.to(ctx.getCurrentKey(), out);
        try {
            elements.forEach(record, meterPacket);
        } catch (RuntimeException e) {
            if (inPacket || malformedBatches == null) {
                throw e; // the meter's own failure (or downstream's, through the collector): not the batch's fault
            }
            malformedBatchRecords.inc();
            ctx.output(malformedBatches, new Rejected<>(record, "elements of the batch failed after " + packetsSeen
                    + " packets: " + e));
        } finally {
            this.ctx = null;
        }
        if (changed) {
            tables.update(table);
            observe(table);
        }
        table = null;
    }

    /** The record's Flink timestamp into fields; a small method, so the JIT inlines it and removes the box. */
    private void readRecordTimestamp(Context ctx) {
        Long ts = ctx.timestamp(); // boxed by Flink's API; escape analysis removes it (FlowMeterAllocationTest)
        hasRecordTimestamp = ts != null;
        recordTimestamp = hasRecordTimestamp ? ts : 0;
    }

    /** The per-packet path, the same for a packet record and for each packet of a batch. */
    private void meterPacket(T packet) {
        inPacket = true;
        packetsSeen++;
        String problem = select(packet);
        if (problem != null) {
            reject(packet, problem);
            inPacket = false;
            return;
        }
        FlowTable t = table;
        TimerService timers = ctx.timerService();
        PacketFields p = fields;
        if (t == null) {
            try { // before building a full-capacity table for a packet it would refuse
                FlowTable.checkPacket(meter.keyFormat, p.ipv6, p.srcPort, p.dstPort, p.protocol, p.tcpFlags,
                        p.length);
            } catch (IllegalArgumentException | IllegalStateException e) {
                reject(packet, e.getMessage());
                inPacket = false;
                return;
            }
            t = meter.newTable(emitter);
            Long now = readFreedNow();
            if (now != null) {
                t.advanceTime(now, 0); // the scope's now, kept when a timer freed its last table
            }
            table = t; // written back only once a packet is metered into it
            timers.registerEventTimeTimer(END_OF_INPUT);
        }
        long before = t.now();
        boolean wasEmpty = t.size() == 0;
        try {
            if (p.ipv6) {
                t.updateIpv6(p.srcHigh, p.srcLow, p.dstHigh, p.dstLow, p.srcPort, p.dstPort, p.protocol,
                        p.tcpFlags, p.length, p.timestamp);
            } else {
                t.updateIpv4((int) p.srcLow, (int) p.dstLow, p.srcPort, p.dstPort, p.protocol, p.tcpFlags,
                        p.length, p.timestamp);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            reject(packet, e.getMessage()); // range checks run before the table changes: nothing accounted
            inPacket = false;
            return;
        }
        changed = true;
        itemsProcessed.inc();
        if (p.timestamp < watermark) {
            lateRecords.inc();
        }
        long now = t.now();
        if (wasEmpty || Math.floorDiv(now, meter.tick) != Math.floorDiv(before, meter.tick)) {
            long end = tickEnd(now);
            if (end != lastTimer) { // at most one registration per scope per tick
                timers.registerEventTimeTimer(end);
                lastTimer = end;
            }
        }
        inPacket = false;
    }

    /** The now a freed table of this scope left, removed from state (the new table holds it from here on). */
    private Long readFreedNow() {
        try {
            Long now = freedNow.value();
            if (now != null) {
                freedNow.clear();
            }
            return now;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Reads the packet's fields into {@link #fields}; the reason it is malformed, or null. */
    private String select(T packet) {
        PacketFields p = fields;
        try {
            if (meter.timestamps != null) {
                p.timestamp = meter.timestamps.timestampOf(packet);
            } else if (hasRecordTimestamp) {
                p.timestamp = recordTimestamp;
            } else {
                return "timestamp missing: the flow meter runs on event time (assign timestamps with a "
                        + "WatermarkStrategy or set timestamps(selector))";
            }
            p.reset();
            meter.packets.select(packet, p);
            if (p.calls != 1) {
                return "packets selector must hand over exactly one 5-tuple, handed " + p.calls;
            }
            p.length = meter.bytes.weightOf(packet);
            p.tcpFlags = meter.tcpFlags != null ? meter.tcpFlags.tcpFlagsOf(packet) : 0;
            return null;
        } catch (RuntimeException e) { // a user selector's failure is the packet's problem, not the job's
            return "selector failed: " + e;
        }
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<MeteredFlow<K>> out) throws Exception {
        FlowTable table = tables.value();
        if (table == null) {
            return; // flushed already (a tick timer left over after the end of input)
        }
        table.setExporter(emitter);
        meter.adopt(table);
        emitter.to(ctx.getCurrentKey(), out);
        long watermark = ctx.timerService().currentWatermark();
        if (time == END_OF_INPUT) {
            table.flush();
            observe(table);
            tables.clear();
            return;
        }
        if (watermark == END_OF_INPUT) {
            // the final watermark fires every tick timer: sweep at the timer's own time, then let the
            // end-of-input timer flush what is left (records keep their FLUSHED reason)
            table.advanceTime(time, table.slots());
            if (table.size() == 0) {
                // every flow exported: clear the state instead of writing an empty table back for the end-of-input
                // timer to clear (that timer is removed: nothing is left to flush)
                observe(table);
                tables.clear();
                ctx.timerService().deleteEventTimeTimer(END_OF_INPUT);
                return;
            }
        } else {
            long sweepAt = Math.max(time, Math.floorDiv(watermark, meter.tick) * meter.tick);
            table.advanceTime(sweepAt, table.slots());
            if (table.size() == 0) {
                // every flow exported: free the scope's state (a quiet scope would otherwise keep a full-capacity
                // table); its next packet creates a new table, and the end-of-input timer finds none
                observe(table);
                tables.clear();
                freedNow.update(table.now());
                ctx.timerService().deleteEventTimeTimer(END_OF_INPUT);
                return;
            }
            long next = sweepAt + meter.tick;
            if (next < sweepAt || next >= END_OF_INPUT) {
                next = END_OF_INPUT - 1; // overflow near Long.MAX_VALUE: the last tick before the end of input
            }
            if (next > watermark) { // a timer at or before the watermark would fire again at once, without end
                ctx.timerService().registerEventTimeTimer(next);
            }
        }
        tables.update(table);
        observe(table);
    }

    private long tickEnd(long now) {
        long end = (Math.floorDiv(now, meter.tick) + 1) * meter.tick;
        return end < now ? END_OF_INPUT - 1 : end; // overflow near Long.MAX_VALUE
    }

    private void observe(FlowTable table) {
        // a volatile read is a plain load; a volatile write is a fence, so it is made only when the value changed
        int flows = table.size();
        if (flows != lastActiveFlows) {
            lastActiveFlows = flows;
        }
        int stash = table.stashSize();
        if (stash != lastStashSize) {
            lastStashSize = stash;
        }
        long bytes = table.memoryBytes();
        if (bytes != lastStateBytes) {
            lastStateBytes = bytes;
        }
    }

    private void reject(T packet, String reason) {
        malformedRecords.inc();
        ctx.output(malformed, new Rejected<>(packet, reason));
    }

    /** The exporter every table of this operator gets: copies each record into a {@link MeteredFlow}. */
    private final class Emitter implements FlowExporter {
        private K scope;
        private Collector<MeteredFlow<K>> out;

        void to(K scope, Collector<MeteredFlow<K>> out) {
            this.scope = scope;
            this.out = out;
        }

        @Override
        public void export(FlowRecord record) {
            flowsExported.inc();
            exportsByReason[record.reason().ordinal()].inc();
            out.collect(MeteredFlow.copyOf(scope, record));
        }
    }
}
