/**
 * The linerate operators in the pipeline benchmark: the same jobs as the plain-Flink baselines, keyed by the link
 * (one structure per observation point) instead of by flow.
 */
package io.linerate.benchmarks.pipeline.linerate;
