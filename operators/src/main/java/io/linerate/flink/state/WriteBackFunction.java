package io.linerate.flink.state;

/**
 * A keyed function that keeps structures in a {@link WriteBackCache}: {@link WriteBackOperator} hands it the key
 * context before {@code open} and asks it to write back before every snapshot of the state and at the end.
 *
 * @param <K> the operator's key
 */
public interface WriteBackFunction<K> {

    /**
     * Called before {@code open}, with the operator's key context, or {@code null} when a cache is not worth it
     * (a heap state backend: its values are the live objects already).
     */
    void bindKeys(WriteBackCache.KeyContext<K> keys);

    /** Writes every changed structure to the state. */
    void writeBack() throws Exception;
}
