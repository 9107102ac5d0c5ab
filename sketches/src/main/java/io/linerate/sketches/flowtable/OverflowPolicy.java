package io.linerate.sketches.flowtable;

/**
 * What a {@link FlowTable} does when a new flow finds all d of its buckets and the stash full. Either way
 * one flow is exported early as a record marked {@link ExportReason#EVICTED} and counted; no packet's
 * counts are lost.
 */
public enum OverflowPolicy {
    /**
     * The default: of the flows the new one could displace (the occupants of its d buckets and the stash),
     * the least recently updated is exported and the new flow takes a place. Keeps active flows whole.
     * O(d·bucketCapacity + stash) work.
     */
    EVICT_LEAST_RECENT,
    /** The new flow's packet is exported at once as a one-packet record; the table is left unchanged. */
    EXPORT_NEW;

    public static OverflowPolicy ofId(int id) {
        OverflowPolicy[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("overflow policy id must be in [0, " + (all.length - 1) + "], got "
                    + id);
        }
        return all[id];
    }
}
