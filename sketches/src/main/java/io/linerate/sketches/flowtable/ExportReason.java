package io.linerate.sketches.flowtable;

/** Why a {@link FlowTable} handed a flow record to its exporter. */
public enum ExportReason {
    /** No packet for at least the idle (inactive) timeout. */
    IDLE_TIMEOUT,
    /** The flow lasted at least the active timeout; its next packet starts a new record (NetFlow-style). */
    ACTIVE_TIMEOUT,
    /** Exported early because a new flow found no room (see {@link OverflowPolicy}). */
    EVICTED,
    /** Removed by the caller ({@link FlowTable#remove}). */
    REMOVED,
    /** Exported by {@link FlowTable#flush}, e.g. at end of input. */
    FLUSHED
}
