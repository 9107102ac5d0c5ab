package io.linerate.flink.state;

/**
 * A keyed function that keeps structures in a {@link WriteBackCache}: {@link WriteBackOperator} hands it the key
 * context before {@code open} and asks it to write back before every snapshot of the state and at the end.
 *
 * @param <K> the operator's key
 */
public interface WriteBackFunction<K> {

    /**
     * Called before {@code open}, with the operator's key context, or {@code null} when the state backend does not
     * store values serialized ({@link WriteBackCache#storesSerialized}): then nothing may be cached.
     */
    void bindKeys(WriteBackCache.KeyContext<K> keys);

    /** Writes every changed structure to the state. */
    void writeBack() throws Exception;
}
