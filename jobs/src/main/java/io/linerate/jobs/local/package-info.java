/**
 * Everything on one machine: a Flink cluster in this JVM ({@link io.linerate.jobs.local.LocalFlink}) and the
 * demo's orchestration ({@link io.linerate.jobs.local.Demo}) of an embedded broker, a
 * {@link io.linerate.jobs.local.Feeder} and a {@link io.linerate.jobs.local.JobLauncher}. See docs/cli.md.
 */
package io.linerate.jobs.local;
