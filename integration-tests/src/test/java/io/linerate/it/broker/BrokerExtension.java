package io.linerate.it.broker;

import io.linerate.jobs.kafka.KafkaBroker;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Kafka broker per test class, chosen by {@link TestBrokers} (a container where Docker answers, else the
 * embedded broker), shared by the class's tests:
 * {@code @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();}.
 *
 * <p>Starts the broker before the class's first test, stops it after its last, and prints which broker ran, each
 * line prefixed with the class's display name.
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {

  private KafkaBroker broker;

  @Override
  public void beforeAll(ExtensionContext context) {
    String prefix = "[" + context.getDisplayName() + "] ";
    broker = TestBrokers.start(line -> System.out.println(prefix + line));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (broker != null) {
      System.out.println("[" + context.getDisplayName() + "] ran against " + broker.description()
          + " at " + broker.bootstrapServers());
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
