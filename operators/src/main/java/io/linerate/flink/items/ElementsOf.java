package io.linerate.flink.items;

import java.io.Serializable;
import java.util.function.Consumer;

/**
 * The elements of a batch record: several packets or events of ONE scope (observation point, link, tenant)
 * carried by one Flink record, as the packet format carries a batch of packets per Kafka record.
 *
 * <p>A batch crosses {@code keyBy} as one record and costs the operator one state lookup and one state write, so
 * Flink's per-record costs (serialization across the network, key extraction, state access, timestamps) are paid
 * once per batch instead of once per packet. The operators' {@code applyToBatches} take a stream of batches
 * keyed by the batch's scope; every element of a batch is counted under that scope.
 *
 * <p>{@code forEach} may hand the same mutable element object to {@code each} for every element (a flyweight):
 * the operators read the element through their selectors while {@code each} runs and keep no reference to it
 * (an element emitted, to a side output or, by the dedup operator, to its main output, is copied or serialized by
 * Flink on the way out, unless object reuse is enabled and the next operator is chained: then Flink hands over the
 * object itself, and a flyweight is safe only if nothing downstream keeps it).
 */
@FunctionalInterface
public interface ElementsOf<B, T> extends Serializable {

    /** Calls {@code each} once for every element of {@code batch}, in order. */
    void forEach(B batch, Consumer<? super T> each);
}
