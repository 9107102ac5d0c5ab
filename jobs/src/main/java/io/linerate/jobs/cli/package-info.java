/**
 * The {@code linerate} command line (picocli): {@link io.linerate.jobs.cli.Main} registers the sub-commands that
 * work with the classes at hand, and the option mixins every job shares, {@link io.linerate.jobs.cli.KafkaOptions}
 * and {@link io.linerate.jobs.cli.FlinkOptions}. See docs/cli.md.
 */
package io.linerate.jobs.cli;
