package io.linerate.sketches.hotpath;

import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import io.linerate.sketches.hotpath.SketchHotPathAllocationTest.Case;
import java.util.ArrayList;
import java.util.List;

final class FlowTableCases {

    static long exported;

    private FlowTableCases() {
    }

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (InsertionScheme scheme : InsertionScheme.values()) {
            for (boolean summary : new boolean[] {false, true}) {
                String name = "FlowTable[" + scheme + (summary ? ",summary" : "") + "]";
                FlowTable existing = FlowTable.builder().capacity(4096).scheme(scheme).summary(summary).seed(5)
                        .exporter(r -> exported += r.packets()).build();
                for (int f = 0; f < 2000; f++) {
                    existing.updateIpv4(f, ~f, f & 0xFFFF, 80, 6, 0, 60, 0);
                }
                long[] clock = {0};
                cases.add(new Case(name + ".updateIpv4 existing flow", n -> {
                    for (int i = 0; i < n; i++) {
                        int f = (i * 7) % 2000;
                        existing.updateIpv4(f, ~f, f & 0xFFFF, 80, 6, 0x10, 60, ++clock[0] / 1000);
                    }
                }));
                FlowTable churn = FlowTable.builder().capacity(4096).scheme(scheme).summary(summary).seed(5)
                        .idleTimeout(50).exporter(r -> exported += r.packets()).build();
                long[] clock2 = {0};
                int[] next = {0};
                cases.add(new Case(name + ".updateIpv4/Ipv6 new flows (insert, evict, expire)", n -> {
                    for (int i = 0; i < n; i++) {
                        int f = next[0]++;
                        long t = ++clock2[0] / 8;
                        if ((i & 3) == 0) {
                            churn.updateIpv6(f, ~f, 7, f * 31L, f & 0xFFFF, 443, 17, 0, 100, t);
                        } else {
                            churn.updateIpv4(f * 0x9E3779B9, f, f & 0xFFFF, 53, 17, 0, 100, t);
                        }
                    }
                }));
            }
        }
        FlowTable full = FlowTable.builder().capacity(1024).keyFormat(FlowKeyFormat.IPV4_ONLY)
                .overflowPolicy(OverflowPolicy.EXPORT_NEW).idleTimeout(Long.MAX_VALUE)
                .activeTimeout(Long.MAX_VALUE).seed(5).exporter(r -> exported += r.packets()).build();
        int[] next = {0};
        cases.add(new Case("FlowTable[IPV4_ONLY, EXPORT_NEW].updateIpv4 into a full table", n -> {
            for (int i = 0; i < n; i++) {
                int f = next[0]++;
                full.updateIpv4(f, f ^ 0x5555, f & 0xFFFF, 53, 17, 0, 100, i);
            }
        }));
        FlowTable evict = FlowTable.builder().capacity(1024).idleTimeout(Long.MAX_VALUE)
                .activeTimeout(Long.MAX_VALUE).seed(5).exporter(r -> exported += r.packets()).build();
        int[] next2 = {0};
        cases.add(new Case("FlowTable[EVICT_LEAST_RECENT].updateIpv4 into a full table", n -> {
            for (int i = 0; i < n; i++) {
                int f = next2[0]++;
                evict.updateIpv4(f, f ^ 0x5555, f & 0xFFFF, 53, 17, 0, 100, i);
            }
        }));
        FlowTable tuples = FlowTable.builder().capacity(8192).seed(5).build();
        cases.add(new Case("FlowTable.update(FiveTuple)", n -> {
            for (int i = 0; i < n; i++) {
                tuples.update(SketchHotPathAllocationTest.TUPLES[i & 4095], 0, 10, i);
                tuples.update(SketchHotPathAllocationTest.TUPLES6[i & 4095], 0, 10, i);
            }
        }));
        return cases;
    }
}
