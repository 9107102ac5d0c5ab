/**
 * The baselines of the pipeline benchmark: source → discard (and through a keyBy link), and the three jobs as a
 * Flink user would write them with the DataStream API — the batches unpacked into packets first
 * ({@link io.linerate.benchmarks.pipeline.Unbatch}, chained to the source), then one Flink key per flow, keyed
 * state and timers, the types Flink's POJO serializer handles (records), no tuning.
 */
package io.linerate.benchmarks.pipeline.plain;
