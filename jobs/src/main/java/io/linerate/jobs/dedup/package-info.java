/**
 * The {@code dedup} job: JSON events from Kafka deduplicated per scope in event time, first occurrences and
 * probable duplicates to Kafka, exactly once ({@link io.linerate.jobs.dedup.DedupJob}, its command
 * {@link io.linerate.jobs.dedup.DedupCommand}; events with their scope: {@link io.linerate.jobs.dedup.ScopedEvent}
 * read by {@link io.linerate.jobs.dedup.ScopedEventFormat}). Options and examples: {@code docs/jobs.md}.
 */
package io.linerate.jobs.dedup;
