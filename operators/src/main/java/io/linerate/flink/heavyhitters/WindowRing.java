package io.linerate.flink.heavyhitters;

import io.linerate.sketches.frequency.HeavyHitters;
import java.util.Arrays;

/**
 * The open sub-windows of one scope key, as the operator works on them: sub-window {@code s} covers event times
 * {@code [s·slide, (s+1)·slide)}; a window of {@code n·slide} is the union of {@code n} consecutive sub-windows
 * (tumbling windows: {@code n = 1}). Each open slot holds the sub-window's index and its {@link SubWindow} (tracker and
 * alerted items).
 *
 * <p>Since state layout 2 the ring is a view of the key's state ({@link RingState}), not the state itself: the
 * sub-windows are entries of a map state and the ring lists their indexes. On a backend that stores values serialized
 * (RocksDB) a slot's sub-window is read when first used ({@link #window}), so a record reads its own sub-window's
 * tracker only; the ring records which slots changed, and which sub-windows were freed, so that a write writes those
 * only. A layout-1 checkpoint held the whole ring as one value ({@link WindowRingSerializer}); it is read into this
 * class once, at the restore, and written out per sub-window.
 *
 * <p>A slot is freed when the last window containing its sub-window has been reported. The ring grows by one slot when
 * a sub-window opens and no slot is free, never beyond the limit the operator passes to {@link #canOpen}.
 */
public final class WindowRing {

    /** Sub-window index of a free slot. */
    static final long FREE = Long.MIN_VALUE;
    private static final long[] NONE = new long[0];

    long[] subWindows;
    /** The open slots' sub-windows; null for a free slot and for one not read yet. */
    SubWindow[] windows;
    /** Slots whose sub-window changed since the ring was last written. */
    boolean[] changed;
    /** Sub-windows freed since the ring was last written: their map entries go then. */
    long[] freed = NONE;
    int freedCount;
    /** Whether the set of open sub-windows changed since the ring was last written. */
    boolean openChanged;
    /** Reads a slot's sub-window when first used or again after {@link #unloadUnchanged}; null: every slot is read. */
    Loader loader;
    /** Slot of the latest lookup: consecutive records of a key mostly share a sub-window. Not state. */
    private int recent;

    /** Reads one sub-window of the ring's key from the state. */
    interface Loader {
        SubWindow load(long subWindow);
    }

    WindowRing(int slots) {
        subWindows = new long[slots];
        Arrays.fill(subWindows, FREE);
        windows = new SubWindow[slots];
        changed = new boolean[slots];
    }

    /**
     * Empties the ring to at least {@code slots} free slots, keeping its arrays if they are large enough: the heap
     * backend's view is refilled for every batch ({@link RingState}).
     */
    void reset(int slots) {
        if (subWindows.length < slots) {
            subWindows = new long[slots];
            windows = new SubWindow[slots];
            changed = new boolean[slots];
        } else {
            Arrays.fill(windows, null);
            Arrays.fill(changed, false);
        }
        Arrays.fill(subWindows, FREE);
        freedCount = 0;
        openChanged = false;
        loader = null;
        recent = 0;
    }

    /** Sets slot {@code slot} to an open sub-window as read from the state ({@code window} null: not read yet). */
    void restoreSlot(int slot, long sub, SubWindow window) {
        subWindows[slot] = sub;
        windows[slot] = window;
    }

    /** The slot holding sub-window {@code sub}, or -1. */
    int find(long sub) {
        if (subWindows.length > 0 && subWindows[recent] == sub) {
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
            windows = Arrays.copyOf(windows, slots);
            changed = Arrays.copyOf(changed, slots);
        }
        subWindows[slot] = sub;
        windows[slot] = new SubWindow(tracker);
        changed[slot] = true;
        openChanged = true;
        unfree(sub);
        recent = slot;
        return slot;
    }

    /** Closes {@code slot}; its map entry is removed at the next write. */
    void free(int slot) {
        if (freedCount == freed.length) {
            freed = Arrays.copyOf(freed, Math.max(4, 2 * freedCount));
        }
        freed[freedCount++] = subWindows[slot];
        subWindows[slot] = FREE;
        windows[slot] = null;
        changed[slot] = false;
        openChanged = true;
    }

    /** A sub-window opened again before the ring was written is not removed from the state then. */
    private void unfree(long sub) {
        for (int i = 0; i < freedCount; i++) {
            if (freed[i] == sub) {
                freed[i] = freed[--freedCount];
                return;
            }
        }
    }

    int slots() {
        return subWindows.length;
    }

    long subWindow(int slot) {
        return subWindows[slot];
    }

    /** The slot's sub-window, read from the state when first used. */
    SubWindow window(int slot) {
        SubWindow w = windows[slot];
        if (w == null) {
            if (loader == null || subWindows[slot] == FREE) {
                throw new IllegalStateException("slot " + slot + " of " + this + " holds no sub-window");
            }
            w = loader.load(subWindows[slot]);
            if (w == null) {
                throw new IllegalStateException("the open sub-windows of this key list " + subWindows[slot]
                        + ", which its state does not hold");
            }
            windows[slot] = w;
        }
        return w;
    }

    HeavyHitters tracker(int slot) {
        return window(slot).tracker;
    }

    /**
     * Forgets the sub-windows read from the state that no record can change any more and that are unchanged since the
     * ring was last read or written: those up to {@code last}, the last sub-window of the window just reported (a
     * later record of them is late). A report reads its window's n sub-windows, so without this a ring held by the
     * state cache between reports weighed n trackers where its records use one; a later report reads them again (a
     * state read each, on RocksDB). Changed ones stay until the ring is written. Nothing without a {@link #loader}.
     */
    void unloadUnchanged(long last) {
        if (loader == null) {
            return;
        }
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE && subWindows[i] <= last && !changed[i]) {
                windows[i] = null;
            }
        }
    }

    /** Marks the slot's sub-window changed (its tracker counted a record): written at the next write. */
    void touch(int slot) {
        changed[slot] = true;
    }

    /** Marks every open slot changed, and the set of open sub-windows: the next write writes all of it. */
    void touchAll() {
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE) {
                window(i);
                changed[i] = true;
            }
        }
        openChanged = true;
    }

    /** What {@link #markAlerted} did. */
    enum Mark { ADDED, ALREADY_ALERTED, SET_FULL }

    /** Records that {@code hash}'s item was alerted in {@code slot}, unless it already was or {@code limit} were. */
    Mark markAlerted(int slot, long hash, int limit) {
        Mark mark = window(slot).markAlerted(hash, limit);
        if (mark == Mark.ADDED) {
            changed[slot] = true;
        }
        return mark;
    }

    boolean isEmpty() {
        for (long s : subWindows) {
            if (s != FREE) {
                return false;
            }
        }
        return true;
    }

    /** The open sub-windows, ascending: the index the state keeps. */
    long[] openSubWindows() {
        long[] open = new long[openCount()];
        int n = 0;
        for (long s : subWindows) {
            if (s != FREE) {
                open[n++] = s;
            }
        }
        Arrays.sort(open);
        return open;
    }

    /** Bytes of the slot indexes and of the primitive arrays of every sub-window read so far (the cache's weight). */
    long memoryBytes() {
        return stateBytes(0);
    }

    /**
     * Bytes of the key's state: 8 per open sub-window, and each one's tracker and alerted set, counted as
     * {@code unreadBytes} for a sub-window not read yet.
     */
    long stateBytes(long unreadBytes) {
        long bytes = 0;
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE) {
                bytes += 8 + (windows[i] == null ? unreadBytes : windows[i].memoryBytes());
            }
        }
        return bytes;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("WindowRing[");
        for (int i = 0; i < subWindows.length; i++) {
            if (subWindows[i] != FREE) {
                out.append(' ').append(subWindows[i]).append(':')
                        .append(windows[i] == null ? "unread" : Long.toString(windows[i].tracker.totalWeight()));
            }
        }
        return out.append(" ]").toString();
    }
}
