/**
 * The {@code flow-meter} job: packet batches from Kafka metered into flow records per observation point, exactly
 * once ({@link io.linerate.jobs.flowmeter.FlowMeterJob}, its command {@link io.linerate.jobs.flowmeter.FlowMeterCommand}).
 * Options and examples: {@code docs/jobs.md}.
 */
package io.linerate.jobs.flowmeter;
