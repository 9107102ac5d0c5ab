package io.linerate.jobs.dedup;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code dedup} command's options reaching the job (its other checks: {@code JobCommandsTest}). */
class DedupCommandTest {

  /** --transaction-timeout reaches the dedup job's sinks: a 12 min interval passes their check. */
  @Test
  void theTransactionTimeoutReachesTheSinks() {
    DedupCommand dedup = new DedupCommand();
    new CommandLine(dedup).parseArgs("--checkpoint-interval", "12m", "--transaction-timeout", "15m");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(Duration.ofMinutes(12).toMillis());
    dedup.job().define(env, dedup.topics());
  }

  /**
   * --key-field repeated makes a composite key, in the order given; once, a plain key; never, the default id. A
   * blank one is refused naming the option.
   */
  @Test
  void repeatedKeyFieldsMakeACompositeKey() throws Exception {
    DedupCommand composite = new DedupCommand();
    new CommandLine(composite).parseArgs("--key-field", "tenant", "--key-field", "/event/id");
    org.assertj.core.api.Assertions.assertThat(composite.job().events().keyFields())
        .containsExactly("tenant", "/event/id");
    DedupCommand single = new DedupCommand();
    new CommandLine(single).parseArgs("--key-field", "event_id");
    org.assertj.core.api.Assertions.assertThat(single.job().events().keyFields()).containsExactly("event_id");
    DedupCommand none = new DedupCommand();
    new CommandLine(none).parseArgs();
    org.assertj.core.api.Assertions.assertThat(none.job().events().keyFields()).containsExactly("id");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new CommandLine(new DedupCommand()).parseArgs("--key-field", "a", "--key-field", " "))
        .hasMessageContaining("--key-field must not be blank");
    DedupCommand twice = new DedupCommand();
    new CommandLine(twice).parseArgs("--key-field", "a", "--key-field", "/a");
    org.assertj.core.api.Assertions.assertThatThrownBy(twice::job)
        .hasMessage("--key-field: keyField names one field twice: \"a\" and \"/a\"");
  }

  /**
   * A scope field and a constant scope exclude each other (the constant was silently ignored): the builder and the
   * command refuse both, naming both; each alone reaches the job, and neither gives every event the default scope.
   */
  @Test
  void aScopeFieldAndAConstantScopeExcludeEachOther() throws Exception {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DedupJob.builder().scopeField("tenant").constantScope("all").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("set either scopeField or constantScope, not both: the scope field gives each event's scope"
            + " (got scopeField 'tenant' and constantScope 'all')");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DedupJob.builder().constantScope("all").scopeField("tenant").build())
        .hasMessageStartingWith("set either scopeField or constantScope, not both");
    DedupCommand both = new DedupCommand();
    new CommandLine(both).parseArgs("--scope-field", "tenant", "--scope", "all");
    org.assertj.core.api.Assertions.assertThatThrownBy(both::job)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("set either --scope-field or --scope, not both: the scope field gives each event's scope"
            + " (got --scope-field tenant and --scope all)");
    byte[] event = "{\"id\":\"a\",\"timestamp\":1,\"tenant\":\"t1\"}".getBytes(StandardCharsets.UTF_8);
    DedupCommand field = new DedupCommand();
    new CommandLine(field).parseArgs("--scope-field", "tenant");
    org.assertj.core.api.Assertions.assertThat(field.job().format().decode(event).scope).isEqualTo("t1");
    DedupCommand constant = new DedupCommand();
    new CommandLine(constant).parseArgs("--scope", "site-3");
    org.assertj.core.api.Assertions.assertThat(constant.job().format().decode(event).scope).isEqualTo("site-3");
    DedupCommand neither = new DedupCommand();
    new CommandLine(neither).parseArgs();
    org.assertj.core.api.Assertions.assertThat(neither.job().format().decode(event).scope)
        .isEqualTo(DedupJob.DEFAULT_SCOPE);
    org.assertj.core.api.Assertions.assertThat(DedupJob.builder().scopeField(null).constantScope("x").build().format()
        .decode(event).scope).isEqualTo("x");
  }

  /** --job-name reaches the dedup job (its name is its consumer group and transactional id prefix too). */
  @Test
  void theJobNameReachesTheJob() {
    DedupCommand dedup = new DedupCommand();
    new CommandLine(dedup).parseArgs("--job-name", "dedup-tenant-a");
    org.assertj.core.api.Assertions.assertThat(dedup.job().name()).isEqualTo("dedup-tenant-a");
  }

  /**
   * The duplicates topic may not be the input (the job would read its own output); with raw output, dead letters
   * may share neither the output nor the duplicates topic (raw events could not be told from them).
   */
  @Test
  void writtenTopicsAreCheckedAgainstTheInputAndRawOutput() {
    DedupCommand loop = new DedupCommand();
    new CommandLine(loop).parseArgs("--input-topic", "events", "--duplicates-topic", "events");
    org.assertj.core.api.Assertions.assertThatThrownBy(loop::job)
        .hasMessageStartingWith("--duplicates-topic must differ from --input-topic ('events')");
    DedupCommand raw = new DedupCommand();
    new CommandLine(raw).parseArgs("--output-format", "raw", "--duplicates-topic", "dups", "--dead-letter-topic",
        "dups");
    org.assertj.core.api.Assertions.assertThatThrownBy(raw::job)
        .hasMessageStartingWith("--output-format raw needs a --dead-letter-topic other than the output and"
            + " duplicates topics");
    DedupJob api = DedupJob.builder().duplicatesTopic("in").build();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.define(
            StreamExecutionEnvironment.getExecutionEnvironment(),
            new io.linerate.jobs.local.JobTopics("localhost:9092", "in", "out", "dead")))
        .hasMessage("duplicates topic 'in' is the input topic: the job would read what it writes, without end");
  }

  /** A sizing error names the option it is about, not the first parameter its details quote. */
  @Test
  void sizingErrorsNameTheirOption() {
    DedupCommand rate = new DedupCommand();
    new CommandLine(rate).parseArgs("--expected-rate", "1e12", "--horizon", "1h");
    org.assertj.core.api.Assertions.assertThatThrownBy(rate::job)
        .hasMessageStartingWith("--expected-rate: expectedRate times the generation span");
    DedupCommand big = new DedupCommand();
    new CommandLine(big).parseArgs("--expected-rate", "1e6", "--horizon", "1h", "--fpp", "1e-9");
    org.assertj.core.api.Assertions.assertThatThrownBy(big::job)
        .hasMessageStartingWith("--expected-rate/--fpp/--horizon: the state limit of ");
    DedupCommand seed = new DedupCommand();
    new CommandLine(seed).parseArgs("--seed", "0x10");
    io.linerate.jobs.heavyhitters.HeavyHittersCommand hh = new io.linerate.jobs.heavyhitters.HeavyHittersCommand();
    new CommandLine(hh).parseArgs("--seed", "0x10"); // decimal or 0x-hex in every command
  }
}
