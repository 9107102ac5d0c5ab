package io.linerate.flink.heavyhitters;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * The heavy-hitters state of the current key (layout 2) seen as one {@link WindowRing}, so that the operator and its
 * {@code WriteBackCache} work on a ring while the state holds one entry per sub-window: the map state
 * {@code heavy-hitter-sub-windows} (sub-window index → {@link SubWindow}) and the value state
 * {@code heavy-hitter-open-sub-windows} (the open indexes, ascending).
 *
 * <p>{@link #value()} reads the index only; each sub-window is read when the operator first uses it
 * ({@link WindowRing#window}), so on a backend that stores values serialized (RocksDB) a record costs the read of its
 * own sub-window, not of the key's whole window. {@link #update} writes the sub-windows that changed, removes the
 * freed ones, and writes the index only if the set of open sub-windows changed. On the heap backend the ring is one
 * reused object (nothing may hold it past the call that asked for it: the heap's state objects are live), and the map
 * keys are boxed once and kept ({@link #box}): no allocation per record.
 */
final class RingState implements ValueState<WindowRing>, WindowRing.Loader {

    private final MapState<Long, SubWindow> windows;
    private final ValueState<long[]> open;
    /** On the heap backend: the ring handed out, refilled at every {@link #value()}; null on RocksDB. */
    private final WindowRing reused;
    /** Boxed sub-window indexes, direct-mapped by their low bits: the few a key uses at once stay boxed. */
    private final Long[] boxes = new Long[64];

    /**
     * @param serialized whether the backend stores values serialized (a ring per read, which a cache may keep) or
     *                   holds live objects (one reused ring)
     */
    RingState(MapState<Long, SubWindow> windows, ValueState<long[]> open, boolean serialized) {
        this.windows = windows;
        this.open = open;
        this.reused = serialized ? null : new WindowRing(0);
    }

    @Override
    public WindowRing value() throws IOException {
        long[] subs = open.value();
        if (subs == null || subs.length == 0) {
            return null;
        }
        WindowRing ring = reused;
        if (ring == null) {
            ring = new WindowRing(subs.length);
        } else {
            ring.reset(subs.length);
        }
        for (int i = 0; i < subs.length; i++) {
            ring.subWindows[i] = subs[i];
        }
        ring.loader = this;
        return ring;
    }

    /** The boxed map key of {@code sub}, from {@link #boxes} when it was boxed before. */
    private Long box(long sub) {
        int i = (int) sub & (boxes.length - 1);
        Long boxed = boxes[i];
        if (boxed == null || boxed != sub) {
            boxed = sub;
            boxes[i] = boxed;
        }
        return boxed;
    }

    /** Reads one sub-window of the current key (RocksDB: deserializes that entry only). */
    @Override
    public SubWindow load(long subWindow) {
        try {
            return windows.get(box(subWindow));
        } catch (Exception e) {
            throw new UncheckedIOException(new IOException("reading sub-window " + subWindow
                    + " of the heavy-hitters state", e));
        }
    }

    /** Writes what changed in {@code ring} since it was read or last written; clears the key if it is empty. */
    @Override
    public void update(WindowRing ring) throws IOException {
        try {
            if (ring.isEmpty()) {
                clear();
            } else {
                write(ring);
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("writing the heavy-hitters state", e);
        }
        ring.freedCount = 0;
        ring.openChanged = false;
    }

    private void write(WindowRing ring) throws Exception {
        for (int i = 0; i < ring.freedCount; i++) {
            windows.remove(box(ring.freed[i]));
        }
        for (int slot = 0; slot < ring.slots(); slot++) {
            if (ring.changed[slot]) {
                windows.put(box(ring.subWindows[slot]), ring.windows[slot]);
                ring.changed[slot] = false;
            }
        }
        if (ring.openChanged) {
            open.update(ring.openSubWindows());
        }
    }

    @Override
    public void clear() {
        windows.clear();
        open.clear();
    }
}
