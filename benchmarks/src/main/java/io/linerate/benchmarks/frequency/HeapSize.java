package io.linerate.benchmarks.frequency;

import org.openjdk.jol.info.GraphLayout;

/**
 * Retained heap size of an object graph (every object reachable from the root, headers and padding included),
 * measured with JOL ({@code GraphLayout.parseInstance(root).totalSize()}) in the running JVM. Used to compare
 * memory across libraries that report it differently or not at all.
 */
final class HeapSize {

    private HeapSize() {
    }

    /** Bytes reachable from {@code root}, or −1 if JOL cannot walk the graph in this JVM. */
    static long of(Object root) {
        try {
            return GraphLayout.parseInstance(root).totalSize();
        } catch (RuntimeException | LinkageError e) {
            System.err.println("heap size of " + root.getClass().getName() + " not measured: " + e);
            return -1;
        }
    }
}
