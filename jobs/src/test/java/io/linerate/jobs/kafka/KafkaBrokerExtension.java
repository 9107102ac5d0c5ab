package io.linerate.jobs.kafka;

import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka broker per test class, shared by its tests:
 * {@code @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();}.
 *
 * <p>Starts the broker before the class's first test and stops it after its last, and prints which broker the
 * class used (the project's tests must say so). Always the {@linkplain EmbeddedKafka embedded KRaft broker}: the
 * unit tests must run without Docker. The integration tests choose at run time ({@code BrokerExtension} there).
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback {

  private final Map<String, String> properties;
  private KafkaBroker broker;

  /** A broker with the embedded broker's defaults. */
  public KafkaBrokerExtension() {
    this(Map.of());
  }

  /** A broker with {@code properties} over the defaults ({@link EmbeddedKafka.Builder#property}). */
  public KafkaBrokerExtension(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    EmbeddedKafka.Builder builder = EmbeddedKafka.builder()
        .progress(line -> System.out.println("[" + context.getDisplayName() + "] " + line));
    properties.forEach(builder::property);
    broker = builder.start();
    System.out.println("[" + context.getDisplayName() + "] Kafka broker used: " + broker.description()
        + " at " + broker.bootstrapServers());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }

  /** The running broker; only between the class's first and last test. */
  public KafkaBroker broker() {
    if (broker == null) {
      throw new IllegalStateException("the Kafka broker runs only while the test class runs");
    }
    return broker;
  }

  /** {@code bootstrap.servers} of the running broker. */
  public String bootstrapServers() {
    return broker().bootstrapServers();
  }
}
