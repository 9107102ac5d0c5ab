package io.linerate.flink.heavyhitters;

/** Which heavy-hitter structure each sub-window keeps. */
public enum TrackerKind {
    /**
     * Space-Saving with m counters (default): deterministic, every item heavier than N/m is monitored, and every
     * reported item's bounds are within N/m of each other.
     */
    SPACE_SAVING,
    /**
     * A conservative-update Count-Min sketch plus m candidates (the CM-heap): bounds are deterministic, the no-miss
     * guarantee holds whenever the sketch's error stays below φ·N (reported as {@code complete}).
     */
    COUNT_MIN_HEAP
}
