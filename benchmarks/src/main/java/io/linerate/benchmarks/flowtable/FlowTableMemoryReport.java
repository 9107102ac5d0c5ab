package io.linerate.benchmarks.flowtable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes per flow of every contender of {@link FlowCounters} in the states {@link FlowTableBenchmark} measures:
 * the table sized for n flows, every one of F = 50% or 90% of n flows inserted, then the benchmark's whole
 * packet stream fed once.
 *
 * <p>Two measures: the retained heap of the table object's whole graph, measured with JOL in the running JVM
 * ({@code GraphLayout.parseInstance(table).totalSize()}: for the maps the map, its table array(s), its entries,
 * keys and values; for {@code FlowTable} its arrays and helper objects), and for {@code FlowTable} its own
 * {@code memoryBytes()} (its arrays without object headers). Each divided by F. Also prints the flow table's
 * state: stash use, overflows (new flows that found their d buckets full) and evictions.
 *
 * <p>Usage: {@code java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar
 * io.linerate.benchmarks.flowtable.FlowTableMemoryReport [capacity...]} (default 1000000 100000).
 */
public final class FlowTableMemoryReport {

    static final int[] LOADS = {50, 90};

    private FlowTableMemoryReport() {
    }

    record Row(String impl, int capacity, int load, int flows, long heapBytes, long reportedBytes, long evictions,
               String state) {
        double heapPerFlow() {
            return heapBytes / (double) flows;
        }

        double reportedPerFlow() {
            return reportedBytes < 0 ? Double.NaN : reportedBytes / (double) flows;
        }
    }

    public static void main(String[] args) {
        List<Integer> capacities = new ArrayList<>();
        for (String a : args) {
            capacities.add(Integer.parseInt(a));
        }
        if (capacities.isEmpty()) {
            capacities = List.of(1_000_000, 100_000);
        }
        System.out.printf(Locale.ROOT, "Flow tables: bytes per flow after inserting F flows and %,d packets "
                + "(Zipf %.1f)%n", Packets.LENGTH, Packets.S);
        System.out.printf(Locale.ROOT, "JDK %s, %d cores, max heap %d MB%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        List<Row> rows = new ArrayList<>();
        for (int capacity : capacities) {
            for (int load : LOADS) {
                Packets packets = Packets.standard(FlowTableBenchmark.flows(capacity, load));
                for (String impl : FlowCounters.ALL) {
                    rows.add(measure(impl, capacity, load, packets));
                }
            }
        }
        print(rows);
    }

    static Row measure(String impl, int capacity, int load, Packets packets) {
        FlowCounter table = FlowCounters.create(impl, capacity);
        long clock = FlowTableBenchmark.warm(table, packets);
        packets.feed(table, clock);
        long heap = GraphLayout.parseInstance(table.unwrap()).totalSize();
        return new Row(impl, capacity, load, packets.flows(), heap, table.reportedBytes(), table.evictions(),
                table.describe());
    }

    static void print(List<Row> rows) {
        System.out.println();
        String header = String.format(Locale.ROOT, "%-17s %9s %5s %9s %14s %10s %14s %12s %10s %9s", "table",
                "capacity", "load", "flows", "heap bytes", "heap/flow", "reported bytes", "reported/flow",
                "vs hashmap", "evictions");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Row r : rows) {
            double hashMapPerFlow = rows.stream()
                    .filter(h -> h.impl().equals("hashmap") && h.capacity() == r.capacity() && h.load() == r.load())
                    .mapToDouble(Row::heapPerFlow).findFirst().orElse(Double.NaN);
            System.out.printf(Locale.ROOT, "%-17s %,9d %4d%% %,9d %,14d %10.1f %,14d %12.1f %10.3f %9d%n", r.impl(),
                    r.capacity(), r.load(), r.flows(), r.heapBytes(), r.heapPerFlow(), r.reportedBytes(),
                    r.reportedPerFlow(), r.heapPerFlow() / hashMapPerFlow, r.evictions());
        }
        System.out.println();
        System.out.println("state after the stream:");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "  n=%,d load %d%%: %s%n", r.capacity(), r.load(), r.state());
        }
    }
}
