package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.common.utils.Exit;
import org.junit.jupiter.api.Test;

/**
 * The JVM-exit guard is JVM-global (Kafka's {@code Exit} procedures are static), but every broker passes its own
 * progress consumer to it: a fatal fault must reach the consumers of the brokers running now, whichever broker
 * of the JVM was started first.
 */
class EmbeddedKafkaExitGuardTest {

  @Test
  void aFatalFaultReachesTheProgressOfABrokerStartedAfterTheFirst() {
    List<String> first = new CopyOnWriteArrayList<>();
    List<String> second = new CopyOnWriteArrayList<>();
    // what Builder.startOnce does for each broker: the first broker of the JVM, then a second one
    Runnable firstClosed = EmbeddedKafka.guardJvmExit(first::add);
    Runnable secondClosed = EmbeddedKafka.guardJvmExit(second::add);
    try {
      firstClosed.run(); // the first broker is closed; the second is still running when it faults
      assertThatThrownBy(() -> Exit.halt(1, "fatal fault in the metadata loader of the second broker"))
          .isInstanceOf(IllegalStateException.class);
      assertThat(second).as("progress lines of the running broker")
          .anySatisfy(line -> assertThat(line).contains("fatal fault in the metadata loader of the second broker"));
      assertThat(first).as("progress lines of the closed broker").isEmpty();
    } finally {
      secondClosed.run();
    }
  }
}
