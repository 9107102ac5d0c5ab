package io.linerate.flink.heavyhitters;

import io.linerate.sketches.frequency.HeavyHitters;
import java.util.Arrays;

/**
 * The whole state of one scope key: a ring of sub-window trackers. Sub-window {@code s} covers event times
 * {@code [s·slide, (s+1)·slide)}; a window of {@code n·slide} is the union of {@code n} consecutive sub-windows
 * (tumbling windows: {@code n = 1}). Each open slot holds the sub-window's index, its tracker and, when alerts are on,
 * the hashes of the items already alerted in it.
 *
 * <p>The ring starts with {@code n} slots; a slot is freed when the last window containing its sub-window has been
 * reported. It grows by one slot only if records run more than a window ahead of the watermark (more than
 * {@code n} sub-windows unreported at once), and never beyond the limit the operator passes to {@link #canOpen}.
 */
public final class WindowRing {

    /** Sub-window index of a free slot. */
    static final long FREE = Long.MIN_VALUE;

    long[] subWindows;
    HeavyHitters[] trackers;
    AlertedItems[] alerted;
    /** Slot of the latest lookup: consecutive records of a key mostly share a sub-window. Not state. */
    private transient int recent;

    WindowRing(int slots) {
        subWindows = new long[slots];
        Arrays.fill(subWindows, FREE);
        trackers = new HeavyHitters[slots];
        alerted = new AlertedItems[slots];
    }

    /** The slot holding sub-window {@code sub}, or -1. */
    int find(long sub) {
        if (subWindows[recent] == sub) {
            return recent;
        }
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] == sub) {
                recent = i;
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether one more sub-window may be open at once under {@code maxSlots}: counts the open ones, since a ring
     * restored from a configuration with a higher limit may have more slots (free ones among them) than
     * {@code maxSlots}.
     */
    boolean canOpen(int maxSlots) {
        return subWindows.length < maxSlots || openCount() < maxSlots;
    }

    /** Sub-windows open now (slots holding one). */
    int openCount() {
        int open = 0;
        for (long s : subWindows) {
            if (s != FREE) {
                open++;
            }
        }
        return open;
    }

    /** Opens a slot for sub-window {@code sub} holding {@code tracker} (growing by one if none is free). */
    int open(long sub, HeavyHitters tracker) {
        int slot = -1;
        for (int i = 0; i < subWindows.length && slot < 0; i++) {
            if (subWindows[i] == FREE) {
                slot = i;
            }
        }
        if (slot < 0) {
            slot = subWindows.length;
            int slots = slot + 1;
            subWindows = Arrays.copyOf(subWindows, slots);
            trackers = Arrays.copyOf(trackers, slots);
            alerted = Arrays.copyOf(alerted, slots);
        }
        subWindows[slot] = sub;
        trackers[slot] = tracker;
        alerted[slot] = null;
        recent = slot;
        return slot;
    }

    void free(int slot) {
        subWindows[slot] = FREE;
        trackers[slot] = null;
        alerted[slot] = null;
    }

    int slots() {
        return subWindows.length;
    }

    long subWindow(int slot) {
        return subWindows[slot];
    }

    HeavyHitters tracker(int slot) {
        return trackers[slot];
    }

    /** What {@link #markAlerted} did. */
    enum Mark { ADDED, ALREADY_ALERTED, SET_FULL }

    /** Records that {@code hash}'s item was alerted in {@code slot}, unless it already was or {@code limit} were. */
    Mark markAlerted(int slot, long hash, int limit) {
        if (alerted[slot] == null) {
            alerted[slot] = new AlertedItems();
        } else if (alerted[slot].contains(hash)) {
            return Mark.ALREADY_ALERTED;
        }
        return alerted[slot].add(hash, limit) ? Mark.ADDED : Mark.SET_FULL;
    }

    boolean isEmpty() {
        for (long s : subWindows) {
            if (s != FREE) {
                return false;
            }
        }
        return true;
    }

    /** Bytes of the primitive arrays of every open tracker and alert set. */
    long memoryBytes() {
        long bytes = 8L * subWindows.length;
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE) {
                bytes += trackers[i].memoryBytes() + (alerted[i] == null ? 0 : alerted[i].memoryBytes());
            }
        }
        return bytes;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("WindowRing[");
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE) {
                out.append(' ').append(subWindows[i]).append(':').append(trackers[i].totalWeight());
            }
        }
        return out.append(" ]").toString();
    }
}
