/**
 * The linerate operators in the pipeline benchmark: the same jobs as the plain-Flink baselines, keyed by the link
 * (one structure per observation point) instead of by flow. Each takes the source's batches whole through the
 * operator's {@code applyToBatches}: Flink's per-record costs are paid once per batch of one link's packets.
 */
package io.linerate.benchmarks.pipeline.linerate;
