package io.linerate.flink.heavyhitters;

import io.linerate.sketches.frequency.HeavyHitters;

/**
 * One open sub-window of a scope key: its tracker and, when alerts are on, the hashes of the items already alerted
 * in it. The unit of the heavy-hitters state since layout 2: one entry of the map state per sub-window
 * ({@link SubWindowSerializer}), so a record reads and writes the tracker of its own sub-window only.
 */
public final class SubWindow {

    final HeavyHitters tracker;
    AlertedItems alerted; // null until an item alerts

    SubWindow(HeavyHitters tracker) {
        this(tracker, null);
    }

    SubWindow(HeavyHitters tracker, AlertedItems alerted) {
        this.tracker = tracker;
        this.alerted = alerted;
    }

    /** Records that {@code hash}'s item alerted here, unless it already did or {@code limit} items did. */
    WindowRing.Mark markAlerted(long hash, int limit) {
        if (alerted == null) {
            alerted = new AlertedItems();
        } else if (alerted.contains(hash)) {
            return WindowRing.Mark.ALREADY_ALERTED;
        }
        return alerted.add(hash, limit) ? WindowRing.Mark.ADDED : WindowRing.Mark.SET_FULL;
    }

    /** A deep copy: the tracker's own {@code copy()} and the alerted hashes. */
    SubWindow copy() {
        return new SubWindow(tracker.copy(), alerted == null ? null : AlertedItems.of(alerted.toArray()));
    }

    /** Bytes of the tracker's and the alerted set's primitive arrays. */
    long memoryBytes() {
        return tracker.memoryBytes() + (alerted == null ? 0 : alerted.memoryBytes());
    }
}
