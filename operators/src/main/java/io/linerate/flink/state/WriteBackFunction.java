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

    /**
     * Called by {@link WriteBackOperator} at the watermark {@code Long.MAX_VALUE}, after the timers it fired: event
     * time has ended, though records may still come (a source that emits it when idle for good). Default: nothing.
     */
    default void atEndOfEventTime(EveryKey keys) throws Exception {
    }

    /**
     * Called by {@link WriteBackOperator} when the input ends ({@code finish()}: a bounded input, or a job stopped
     * with {@code --drain}; not for a stop without drain or a cancellation), after a write-back, so that
     * {@code keys} also walks the keys whose state was only cached. Whatever it changes is written back after it.
     * Default: nothing.
     */
    default void atEndOfInput(EveryKey keys) throws Exception {
    }

    /** Walks the keys of this subtask that hold a value in one keyed state. */
    @FunctionalInterface
    interface EveryKey {
        /**
         * Runs {@code action} once per key holding a value in {@code state} (in the keyed state backend), with that key
         * set as the current one. Does nothing in BATCH execution, whose state backend holds one key at a time.
         */
        void forEach(org.apache.flink.api.common.state.StateDescriptor<?, ?> state, Action action) throws Exception;
    }

    /** One key's part of an {@link EveryKey} walk. */
    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }
}
