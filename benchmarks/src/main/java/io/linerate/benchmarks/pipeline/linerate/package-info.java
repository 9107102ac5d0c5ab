/**
 * The linerate operators in the pipeline benchmark: the same jobs as the plain-Flink baselines, keyed by the link
 * (one structure per observation point) instead of by flow. Each takes the source's batches in one method,
 * {@code applyTo(operator, batches, links)}: per packet for now, the operator's {@code applyToBatches} once it is
 * there (see that method's comment).
 */
package io.linerate.benchmarks.pipeline.linerate;
