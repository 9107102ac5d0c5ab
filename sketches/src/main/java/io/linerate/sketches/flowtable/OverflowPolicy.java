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
     *
     * <p>One case has nothing to displace: with {@code stashCapacity(0)}, a new flow whose d buckets hold only
     * lazily deleted slots (removed flows, awaiting {@link FlowTable#rebuild()}) has no live candidate. Its packet
     * is then exported at once as a one-packet record, as under {@link #EXPORT_NEW}, and {@code update} returns
     * −1. A rebuild frees those slots; a stash of any size avoids the case.
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
