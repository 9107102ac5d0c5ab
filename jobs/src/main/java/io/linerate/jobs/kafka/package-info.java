/**
 * The Kafka plumbing the jobs share: the exactly-once source and sink ({@link io.linerate.jobs.kafka.ExactlyOnceSource},
 * {@link io.linerate.jobs.kafka.ExactlyOnceSink}), a job's decoded and watermarked input
 * ({@link io.linerate.jobs.kafka.KafkaInput}), its JSON output, one sink per topic
 * ({@link io.linerate.jobs.kafka.JsonTopics}), the options every job has
 * ({@link io.linerate.jobs.kafka.KafkaJobOptions}) and the embedded broker.
 */
package io.linerate.jobs.kafka;
