/**
 * The traffic feeders: {@link io.linerate.jobs.feed.SyntheticTraffic} (synthetic packet batches of Zipf flows with
 * an optional heavy hitter or attack, or JSON events with duplicates, reproducible from a seed) and
 * {@link io.linerate.jobs.feed.PcapReplay} (capture files to packet batches, paced, looping). Both write to a Kafka
 * topic with an idempotent producer, are {@link io.linerate.jobs.local.Feeder}s for the demo, and are the
 * {@code generate} and {@code replay} sub-commands ({@link io.linerate.jobs.feed.FeedCommands}). Options, formats
 * and guarantees in {@code docs/feeding.md}.
 */
package io.linerate.jobs.feed;
