package io.linerate.sketches.flowtable;

/** Receives the flow records a {@link FlowTable} exports (timeouts, evictions, removals, flush). */
@FunctionalInterface
public interface FlowExporter {

    /**
     * Called once per exported record. {@code record} is a view into the table that is valid only during
     * this call (no object per record); copy what you keep, e.g. with {@link FlowRecord#key()}.
     * Must not modify the table.
     */
    void export(FlowRecord record);
}
