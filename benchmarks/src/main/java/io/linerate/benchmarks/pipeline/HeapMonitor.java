package io.linerate.benchmarks.pipeline;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap while a run lasts: the largest heap in use right after a garbage collection (the sum over memory pools
 * of {@code GcInfo.getMemoryUsageAfterGc()}, from the collectors' notifications: what survived, so close to the
 * live data) and the largest heap in use at all (sampled every {@value #SAMPLE_MILLIS} ms, garbage included).
 *
 * <p>After a young collection the old generation still holds whatever garbage it had, so "after GC" is an upper
 * bound of the live heap; it is the number to compare pipelines by. A run with no collection at all has no after-GC
 * value ({@link #peakAfterGc()} is -1).
 */
public final class HeapMonitor implements AutoCloseable {

    static final long SAMPLE_MILLIS = 50;

    private final AtomicLong peakAfterGc = new AtomicLong(-1);
    private final AtomicLong peakUsed = new AtomicLong(-1);
    private final AtomicLong collections = new AtomicLong();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Set<String> heapPools = new HashSet<>();
    private final NotificationListener listener = this::onNotification;
    private final Thread sampler;
    private volatile boolean running = true;

    private HeapMonitor() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
        sampler = new Thread(this::sample, "heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Starts watching the heap. */
    public static HeapMonitor start() {
        return new HeapMonitor();
    }

    /** The heap in use now (bytes), right after a full collection requested with {@code System.gc()}. */
    public static long usedAfterFullGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The heap in use now (bytes), garbage included. */
    public static long usedNow() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) { // the map has non-heap pools (metaspace, code cache) too
                used += pool.getValue().getUsed();
            }
        }
        peakAfterGc.accumulateAndGet(used, Math::max);
        collections.incrementAndGet();
    }

    private void sample() {
        while (running) {
            peakUsed.accumulateAndGet(usedNow(), Math::max);
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The largest heap in use right after a collection since {@link #start()}, bytes; -1 if none ran. */
    public long peakAfterGc() {
        return peakAfterGc.get();
    }

    /** The largest heap in use sampled since {@link #start()}, bytes (garbage included). */
    public long peakUsed() {
        return peakUsed.get();
    }

    /** Collections since {@link #start()}. */
    public long collections() {
        return collections.get();
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException ignored) {
                // already gone
            }
        }
    }
}
