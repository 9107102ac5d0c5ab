/**
 * The {@code flow-meter} job: packet batches from Kafka metered into flow records per observation point, exactly
 * once ({@link io.linerate.jobs.flowmeter.FlowMeterJob}, its command {@link io.linerate.jobs.flowmeter.FlowMeterCommand}),
 * and {@link io.linerate.jobs.flowmeter.JsonTopics}, the JSON output side the jobs share (one exactly-once sink per
 * topic). Options and examples: {@code docs/jobs.md}.
 */
package io.linerate.jobs.flowmeter;
