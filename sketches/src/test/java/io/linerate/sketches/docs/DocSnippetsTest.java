package io.linerate.sketches.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.BloomFilters;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowRecord;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitter;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Java snippets of README.md and docs/flowtable.md, verbatim apart from sample inputs. */
class DocSnippetsTest {

    long secretSeed = 0x5eed;

    @Test
    void readmeBloomFilters() {
        byte[] flowKeyBytes = {1, 2, 3, 4};
        int src = 0x0a000001, dst = 0x0a000002, sport = 1234, dport = 443;
        long packetId = 77;
        long[] packetIds = {1, 2, 3, 4, 5};
        int count = packetIds.length;
        boolean absentBranch = false;

        BloomFilter seen = SplitBlockBloomFilter.create(10_000_000, 0.01, secretSeed);
        seen.put(flowKeyBytes, 0, flowKeyBytes.length);
        if (!seen.mightContain(FiveTuple.ipv4(src, dst, sport, dport, 6))) { absentBranch = true; }

        // one hash, several structures
        long h1 = seen.hasher().hash(packetId), h2 = ItemHasher.h2(h1);
        seen.put(h1, h2);

        // a batch (say, a Kafka record's packets): the group's cache misses overlap
        int added = seen.putAll(packetIds, 0, count);

        byte[] image = seen.toByteArray();              // versioned, checksummed
        BloomFilter back = BloomFilters.fromByteArray(image);

        assertThat(absentBranch).isTrue();
        assertThat(seen.mightContain(packetId)).isTrue();
        assertThat(added).isEqualTo(5);
        assertThat(back.mightContain(flowKeyBytes, 0, flowKeyBytes.length)).isTrue();
        assertThat(back.mightContain(3L)).isTrue();
    }

    @Test
    void readmeCountMinAndHeavyHitters() {
        FiveTuple flow = FiveTuple.ipv4(1, 2, 3, 4, 6);
        long packetBytes = 1500;

        CountMinSketch bytesPerFlow = CountMinSketch.fromErrors(0.001, 0.01, secretSeed);   // 5437 x 7, prime width
        bytesPerFlow.update(flow, packetBytes);
        long upper = bytesPerFlow.estimate(flow);          // >= true; <= true + eps*N with probability >= 1 - delta

        HeavyHitters top = SpaceSaving.withMemory(KeyKind.fiveTuples(), 64 * 1024, secretSeed);
        top.update(flow, packetBytes);
        List<Object> items = new ArrayList<>();
        for (HeavyHitter h : top.heavyHitters(0.001)) { items.add(h.item()); assertThat(h.lowerBound()).isLessThanOrEqualTo(h.upperBound()); }

        assertThat(bytesPerFlow.width()).isEqualTo(5437);
        assertThat(bytesPerFlow.depth()).isEqualTo(7);
        assertThat(upper).isEqualTo(1500);
        assertThat(items).containsExactly(flow);
    }

    List<Object[]> emitted = new ArrayList<>();

    void emit(FiveTuple key, long packets, long bytes, ExportReason reason) {
        emitted.add(new Object[] {key, packets, bytes, reason});
    }

    @Test
    void readmeFlowTable() {
        int src = 1, dst = 2, srcPort = 3, dstPort = 4, proto = 6, tcpFlags = 0x02, length = 60;
        long timestamp = 1000;
        FlowTable flows = FlowTable.builder()
                .capacity(1_000_000)                          // flows; multilevel hash table sized by thesis Table 5.1
                .keyFormat(FlowKeyFormat.IPV4_ONLY)           // or IPV4_AND_IPV6 (default)
                .idleTimeout(15_000).activeTimeout(1_800_000) // NetFlow-style, in your timestamp unit
                .exporter(record -> emit(record.key(), record.packets(), record.bytes(), record.reason()))
                .build();
        flows.updateIpv4(src, dst, srcPort, dstPort, proto, tcpFlags, length, timestamp);  // no allocation
        flows.flush();
        assertThat(emitted).hasSize(1);
        assertThat(emitted.get(0)).containsExactly(FiveTuple.ipv4(1, 2, 3, 4, 6), 1L, 60L, ExportReason.FLUSHED);
    }

    @Test
    void flowtableMd() {
        int src = 1, dst = 2, srcPort = 3, dstPort = 4, proto = 6, tcpFlags = 0x02, length = 60;
        long timestampMillis = 1000;
        List<FlowRecord> exported = new ArrayList<>();
        FlowTable flows = FlowTable.builder()
                .capacity(1_000_000)                       // n: sub-table i gets ⌊α_i·n⌋ buckets (Table 5.1)
                .keyFormat(FlowKeyFormat.IPV4_ONLY)        // 48 bytes per slot; IPV4_AND_IPV6 (default) is 72
                .idleTimeout(15_000).activeTimeout(1_800_000)   // timestamp units, here milliseconds
                .seed(secretSeed)
                .exporter(record -> exported.add(record.copy()))   // copy: the record is a reused view
                .build();

        int handle = flows.updateIpv4(src, dst, srcPort, dstPort, proto, tcpFlags, length, timestampMillis);
        flows.flush();                                     // end of input: every live flow exported as FLUSHED

        assertThat(handle).isGreaterThanOrEqualTo(0);
        assertThat(exported).hasSize(1);
        assertThat(exported.get(0).reason()).isEqualTo(ExportReason.FLUSHED);
        assertThat(exported.get(0).key()).isEqualTo(FiveTuple.ipv4(1, 2, 3, 4, 6));
        assertThat(exported.get(0).packets()).isEqualTo(1);
        assertThat(exported.get(0).bytes()).isEqualTo(60);
    }
    /** docs/operators/count-min.md's sizing table (w x d, counter bytes, eps = 2e/w, delta = e^-d). */
    @Test
    void countMinMdSizingTable() {
        Object[][] rows = {
            {CountMinSketch.fromErrors(0.01, 0.01, 1), 547, 5, 21_880L, 0.00994, 0.0067},
            {CountMinSketch.fromErrors(0.01, 1e-6, 1), 547, 15, 65_640L, 0.00994, 3.1e-7},
            {CountMinSketch.fromErrors(0.001, 0.001, 1), 5437, 7, 304_472L, 0.00100, 0.00091},
            {CountMinSketch.withMemory(16384, 4, 1), 509, 4, 16_288L, 0.0107, 0.018},
            {CountMinSketch.withMemory(65536, 4, 1), 2039, 4, 65_248L, 0.00267, 0.018},
        };
        for (Object[] r : rows) {
            CountMinSketch s = (CountMinSketch) r[0];
            int w = (int) r[1], d = (int) r[2];
            assertThat(s.width()).isEqualTo(w);
            assertThat(s.depth()).isEqualTo(d);
            assertThat(8L * w * d).isEqualTo((long) r[3]);
            assertThat(2 * Math.E / w).isCloseTo((double) r[4], org.assertj.core.data.Percentage.withPercentage(1));
            assertThat(Math.exp(-d)).isCloseTo((double) r[5], org.assertj.core.data.Percentage.withPercentage(3));
            assertThat(s.epsilon()).isCloseTo(2 * Math.E / w, org.assertj.core.data.Offset.offset(1e-12));
        }
    }
}
