package io.linerate.jobs.format;

import org.apache.flink.api.java.functions.KeySelector;

/**
 * The scope key of a {@link PacketBatch}: its observation point (boxed once per batch). A class of its own, not a
 * constant of {@code PacketBatch}, so that the feeders, which run outside Flink from the job jar, can encode
 * batches without loading any Flink class.
 */
public final class ObservationPointKey implements KeySelector<PacketBatch, Integer> {

    private static final long serialVersionUID = 1L;

    public static final ObservationPointKey INSTANCE = new ObservationPointKey();

    private ObservationPointKey() {
    }

    @Override
    public Integer getKey(PacketBatch batch) {
        return batch.observationPoint();
    }
}
