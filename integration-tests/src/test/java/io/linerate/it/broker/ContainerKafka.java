package io.linerate.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotModifiedException;
import io.linerate.jobs.kafka.KafkaBroker;
import io.linerate.jobs.kafka.TopicCreation;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Kafka broker (KRaft, one node) in a Docker container: Testcontainers' Kafka module with the {@code apache/kafka}
 * image of the version given at construction (the tests pass the version of the embedded broker, so both kinds run
 * the same Kafka).
 *
 * <p><b>Fixed host port.</b> The client port 9092 is published on a host port chosen free when the broker starts,
 * not on one Docker picks. The reason is {@link #restart(Duration)}: Docker assigns a dynamic host port anew on
 * every start of a container, and the broker's advertised listener (written into the container once, at its first
 * start, by Testcontainers) names the host port, so a port that moved would leave clients with a bootstrap address
 * that no longer answers and a broker advertising a stale one. With the port fixed, the container stops and starts
 * again (the same container: its file system, thus the Kafka data, is kept) behind the same address. The port is
 * checked free on this machine; with a remote Docker engine it is free there with high likelihood only.
 *
 * <p>Only constructed by {@link TestBrokers} after Docker answered; it cannot run without a Docker engine.
 */
public final class ContainerKafka implements KafkaBroker {

  private static final int KAFKA_PORT = 9092;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final long GRACEFUL_STOP_SECONDS = 30;

  private final KafkaContainer container;
  private final String image;
  private final String bootstrapServers;
  private final Consumer<String> log;
  private Admin admin;
  private boolean closed;

  private ContainerKafka(KafkaContainer container, String image, Consumer<String> log) {
    this.container = container;
    this.image = image;
    this.bootstrapServers = container.getBootstrapServers();
    this.log = log;
  }

  /**
   * Starts an {@code apache/kafka:<kafkaVersion>} container (pulling the image if needed) and returns once the
   * broker answers an admin request.
   *
   * @throws RuntimeException (of Testcontainers) if Docker cannot start it; the container is removed then
   */
  public static ContainerKafka start(String kafkaVersion, Consumer<String> log) {
    String image = "apache/kafka:" + kafkaVersion;
    int hostPort = freePort();
    KafkaContainer container = new KafkaContainer(DockerImageName.parse(image));
    container.setPortBindings(List.of(hostPort + ":" + KAFKA_PORT));
    long begin = System.nanoTime();
    ContainerKafka kafka = null;
    try {
      container.start();
      kafka = new ContainerKafka(container, image, log);
      kafka.awaitReady();
    } catch (RuntimeException e) {
      if (kafka != null) {
        kafka.close();
      } else {
        container.stop();
      }
      throw e;
    }
    log.accept(String.format(Locale.ROOT, "Kafka container %s (%s) on %s (started in %.1f s)",
        image, shortId(container.getContainerId()), kafka.bootstrapServers, (System.nanoTime() - begin) / 1e9));
    return kafka;
  }

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public String description() {
    return "Testcontainers Kafka (" + image + ") in Docker";
  }

  @Override
  public void createTopic(String name, int partitions) {
    createTopics(partitions, name);
  }

  @Override
  public synchronized void createTopics(int partitions, String... names) {
    ensureOpen();
    TopicCreation.create(admin(), REQUEST_TIMEOUT, partitions, names);
  }


  /**
   * {@inheritDoc}
   *
   * <p>Asks Kafka in the container to shut down cleanly ({@code kafka-server-stop.sh}: the container's first
   * process is a shell that would not pass Docker's SIGTERM on), waits for the container to stop (after
   * {@value #GRACEFUL_STOP_SECONDS} s Docker stops it the hard way), sleeps {@code downtime} and starts the same
   * container again through the Docker client. Its file system, with the Kafka data and the start script holding the
   * advertised listener, is kept; the host port is fixed (see the class comment), so the address stays the same.
   */
  @Override
  public synchronized void restart(Duration downtime) {
    if (downtime == null || downtime.isNegative()) {
      throw new IllegalArgumentException("downtime must not be null or negative, got " + downtime);
    }
    ensureOpen();
    long begin = System.nanoTime();
    closeAdmin();
    DockerClient docker = container.getDockerClient();
    String id = container.getContainerId();
    stopContainer(docker, id);
    log.accept(String.format(Locale.ROOT, "Kafka container %s on %s stopped for restart (down for %.1f s)",
        shortId(id), bootstrapServers, downtime.toNanos() / 1e9));
    try {
      Thread.sleep(downtime.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the restart's downtime; the Kafka container stays stopped", e);
    }
    long up = System.nanoTime();
    docker.startContainerCmd(id).exec();
    awaitReady();
    log.accept(String.format(Locale.ROOT, "Kafka container %s on %s restarted in %.1f s (%.1f s in all with the downtime)",
        shortId(id), bootstrapServers, (System.nanoTime() - up) / 1e9, (System.nanoTime() - begin) / 1e9));
  }

  private void stopContainer(DockerClient docker, String id) {
    boolean asked;
    try {
      asked = container.execInContainer("/opt/kafka/bin/kafka-server-stop.sh").getExitCode() == 0;
    } catch (IOException | RuntimeException e) {
      asked = false; // the docker stop below still stops it, less gently
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the Kafka container", e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACEFUL_STOP_SECONDS);
    while (asked && isRunning(docker, id) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while stopping the Kafka container", e);
      }
    }
    try {
      docker.stopContainerCmd(id).withTimeout(10).exec();
    } catch (NotModifiedException alreadyStopped) {
      // Kafka shut down and the container ended with it: the usual case
    }
  }

  private static boolean isRunning(DockerClient docker, String id) {
    Boolean running = docker.inspectContainerCmd(id).exec().getState().getRunning();
    return Boolean.TRUE.equals(running);
  }

  /** Stops and removes the container (Testcontainers' {@code stop()}). Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeAdmin();
    container.stop();
    log.accept("Kafka container on " + bootstrapServers + " stopped and removed");
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the Kafka container on " + bootstrapServers + " is closed");
    }
  }

  private Admin admin() {
    if (admin == null) {
      admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
          AdminClientConfig.CLIENT_ID_CONFIG, "container-kafka-admin"));
    }
    return admin;
  }

  private void closeAdmin() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }

  private void awaitReady() {
    try {
      admin().describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the Kafka container on " + bootstrapServers + " did not answer within " + READY_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Kafka container", e);
    }
  }

  /** A port free on every interface of this machine now (Docker publishes on all of them). */
  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port for the Kafka container", e);
    }
  }

  private static String shortId(String id) {
    return id == null ? "?" : id.substring(0, Math.min(12, id.length()));
  }
}
