package io.linerate.it.broker;

import java.util.Locale;
import java.util.function.Consumer;

import io.linerate.jobs.kafka.EmbeddedKafka;
import io.linerate.jobs.kafka.KafkaBroker;
import org.testcontainers.DockerClientFactory;

/**
 * Chooses the Kafka broker of an integration test at run time: a {@link ContainerKafka} where a Docker engine
 * answers, else the {@link EmbeddedKafka} in this JVM.
 *
 * <p>The system property {@value #BROKER_PROPERTY} ({@code auto}, the default; {@code embedded}; {@code container})
 * forces one kind. The Kafka version of the container is {@value #VERSION_PROPERTY} (set by failsafe to
 * {@code kafka.version} of the build), else the version of the embedded broker's classes; so both kinds run the same
 * Kafka.
 */
public final class TestBrokers {

  /** {@code auto}, {@code embedded} or {@code container}. */
  public static final String BROKER_PROPERTY = "linerate.it.broker";
  /** The {@code apache/kafka} image tag of the container broker. */
  public static final String VERSION_PROPERTY = "linerate.kafka.version";

  private TestBrokers() {}

  /**
   * Starts the broker chosen as above and logs one line saying which it is, where, and why it was chosen.
   *
   * @param log where this line and the broker's progress lines go
   * @throws IllegalArgumentException if {@value #BROKER_PROPERTY} holds another value
   * @throws IllegalStateException if {@code container} is forced and Docker does not answer
   */
  public static KafkaBroker start(Consumer<String> log) {
    String mode = System.getProperty(BROKER_PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
    KafkaBroker broker;
    String reason;
    switch (mode) {
      case "embedded":
        broker = EmbeddedKafka.builder().progress(log).start();
        reason = BROKER_PROPERTY + "=embedded";
        break;
      case "container":
        String unavailable = dockerUnavailableReason();
        if (unavailable != null) {
          throw new IllegalStateException(BROKER_PROPERTY + "=container, but " + unavailable);
        }
        broker = ContainerKafka.start(kafkaVersion(), log);
        reason = BROKER_PROPERTY + "=container";
        break;
      case "auto":
      case "":
        String noDocker = dockerUnavailableReason();
        if (noDocker == null) {
          broker = ContainerKafka.start(kafkaVersion(), log);
          reason = "a Docker engine answered";
        } else {
          broker = EmbeddedKafka.builder().progress(log).start();
          reason = noDocker;
        }
        break;
      default:
        throw new IllegalArgumentException(BROKER_PROPERTY + " must be auto, embedded or container, got '" + mode + "'");
    }
    log.accept("Kafka broker used: " + broker.description() + " at " + broker.bootstrapServers()
        + " (chosen because " + reason + ")");
    return broker;
  }

  /** {@code null} if Docker answers, else why not. Never throws: no Docker is a normal case here. */
  static String dockerUnavailableReason() {
    try {
      return DockerClientFactory.instance().isDockerAvailable() ? null : "no Docker engine answered";
    } catch (Throwable e) { // also a NoClassDefFoundError or the like from a Docker client that cannot load
      return "no Docker engine answered (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
    }
  }

  /** The Kafka version of the container: {@value #VERSION_PROPERTY}, else the embedded broker's. */
  static String kafkaVersion() {
    String version = System.getProperty(VERSION_PROPERTY);
    return version == null || version.isBlank() ? EmbeddedKafka.kafkaVersion() : version.trim();
  }
}
