package io.linerate.jobs.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker and KRaft controller (combined mode, one node) running in this JVM from the
 * {@code org.apache.kafka:kafka_2.13} classes: for the {@code demo} command and the tests, never for production.
 *
 * <p>{@link #start()} picks two free loopback ports (clients' {@code PLAINTEXT} listener, the controller's
 * {@code CONTROLLER} listener), formats a fresh temporary folder as the log and metadata directory, starts the
 * server and returns once the broker is unfenced and answers an admin request. Every replication factor is 1 and
 * the transaction state log takes min ISR 1, so transactional producers (Flink's exactly-once Kafka sink) work on
 * this single node. {@link #close()} stops the broker and controller, waits for their threads and deletes the
 * folder; a JVM shutdown hook does the same if the owner never calls it (unless the owner takes that on:
 * {@link Builder#shutdownHook(boolean) shutdownHook(false)}, for an owner whose own hook stops, in order, what uses
 * the broker before the broker — JVM hooks run concurrently, in no order). {@link #restart(Duration)} stops the server
 * but keeps the folder, and starts a new server on the same ports from the same folder (no second format).
 *
 * <p>The broker code ({@code kafka_2.13} and its dependencies, about 43 MB with the Scala library) is a
 * {@code provided} dependency of the jobs module: it is on the class path of the tests and of the local demo run,
 * never inside the job jar submitted to a Flink cluster. Kafka's own logging goes through slf4j to whatever binding
 * the class path has (in the tests: Flink's test log4j2 configuration, which turns it off); the progress of this
 * class goes to the {@code progress} consumer instead, one line per event.
 */
public final class EmbeddedKafka implements KafkaBroker {

  /** The node id of the one broker+controller. */
  static final int NODE_ID = 1;

  private static final String LISTENER = "PLAINTEXT";
  private static final String CONTROLLER_LISTENER = "CONTROLLER";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** The broker's consumer offsets topic, created by {@link #startGroupCoordinator(Duration)}. */
  public static final String OFFSETS_TOPIC = "__consumer_offsets";

  /** The group {@link #startGroupCoordinator(Duration)} asks the offsets of (none: no group is created). */
  static final String COORDINATOR_PROBE_GROUP = "linerate-embedded-kafka-probe";

  /** The running server; {@code null} while stopped by {@link #restart} or after a failed restart. */
  private volatile KafkaRaftServer server;
  /** The configuration every start uses: same ports, same folder. */
  private final KafkaConfig config;
  private final Duration restartBindWindow;
  private final Path folder;
  private final int brokerPort;
  private final int controllerPort;
  private final Consumer<String> progress;
  /** The JVM shutdown hook that closes this broker; {@code null} when the owner closes it on shutdown. */
  private final Thread shutdownHook;
  /** Removes {@link #progress} from the consumers of the JVM-exit guard ({@link #guardJvmExit}). */
  private final Runnable unguard;
  private volatile Duration startupTime = Duration.ZERO;
  private Admin admin;
  private boolean closed;

  private EmbeddedKafka(
      KafkaRaftServer server, KafkaConfig config, Duration restartBindWindow, Path folder, int brokerPort,
      int controllerPort, Consumer<String> progress, Runnable unguard, boolean withShutdownHook) {
    this.server = server;
    this.unguard = unguard;
    this.config = config;
    this.restartBindWindow = restartBindWindow;
    this.folder = folder;
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.progress = progress;
    if (withShutdownHook) {
      this.shutdownHook = new Thread(this::closeFromHook, "embedded-kafka-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    } else {
      this.shutdownHook = null;
    }
  }

  /** Starts a broker with the default settings, printing its progress lines on {@code System.out}. */
  public static EmbeddedKafka start() {
    return builder().start();
  }

  /** Options: extra broker properties, where progress lines go. */
  public static Builder builder() {
    return new Builder();
  }

  /** The version of the Kafka classes this broker runs, e.g. {@code 4.2.0}. */
  public static String kafkaVersion() {
    return AppInfoParser.getVersion();
  }

  @Override
  public String bootstrapServers() {
    return loopback() + ":" + brokerPort;
  }

  @Override
  public String description() {
    return "embedded KRaft broker " + kafkaVersion();
  }

  /** The clients' ({@code PLAINTEXT}) port on 127.0.0.1. */
  public int brokerPort() {
    return brokerPort;
  }

  /** The KRaft controller's port on 127.0.0.1 (clients never use it). */
  public int controllerPort() {
    return controllerPort;
  }

  /** The temporary folder holding the logs and the metadata log; deleted by {@link #close()}. */
  public Path folder() {
    return folder;
  }

  /** How long {@link #start()} took, from formatting the folder to the first answered admin request. */
  public Duration startupTime() {
    return startupTime;
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
   * Creates the broker's consumer offsets topic ({@value #OFFSETS_TOPIC}) and waits for its group coordinator,
   * rather than let the first request for a group coordinator have the broker create it, and returns how long that
   * took (about 0.25 s). The broker creates the topic when a request for a coordinator finds it missing; another such
   * request after the creation ended but before the broker's metadata holds the topic (the job's second reader at
   * parallelism 2, or a client's retry: the admin client asks again at once, 16 to 24 times during one creation)
   * has it create the topic again, and it logs {@code WARN DefaultAutoTopicCreationManager: Auto topic creation
   * failed for __consumer_offsets with error 'TOPIC_ALREADY_EXISTS'}. Here the admin client creates the topic as
   * the broker would ({@link #offsetsTopic()}), waits until the broker serves it, and only then asks for the
   * offsets of an unused group ({@value #COORDINATOR_PROBE_GROUP}: no group is created) until the coordinator
   * answers. Not part of {@link #start()}: most users of the broker have at most one group client at a time.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws IllegalStateException if the topic cannot be created, or the coordinator does not answer, within
   *     {@code timeout} (the message says which), or the broker is closed
   */
  public synchronized Duration startGroupCoordinator(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("timeout must be > 0 and at most " + Integer.MAX_VALUE + " ms, got " + timeout);
    }
    ensureOpen();
    long begin = System.nanoTime();
    long deadline = begin + timeout.toNanos();
    ListTopicsOptions internal = new ListTopicsOptions().listInternal(true);
    try {
      if (!admin().listTopics(internal).names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).contains(OFFSETS_TOPIC)) {
        try {
          admin().createTopics(List.of(offsetsTopic())).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) { // else a client's request had it created meanwhile
            throw e;
          }
        }
        // a request for a coordinator before the broker's metadata holds the topic would have it created again
        TopicCreation.awaitLeaders(admin(), timeout, List.of(OFFSETS_TOPIC));
      }
      // the broker knows the topic: this waits for the coordinator to load, without creating the topic again
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      admin().listConsumerGroupOffsets(COORDINATOR_PROBE_GROUP,
              new ListConsumerGroupOffsetsOptions().timeoutMs((int) left))
          .partitionsToOffsetAndMetadata().get(left, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("the group coordinator of the embedded Kafka broker on " + bootstrapServers()
          + " did not start within " + timeout + ": " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the group coordinator of the embedded Kafka broker on "
          + bootstrapServers(), e);
    }
    return Duration.ofNanos(System.nanoTime() - begin);
  }

  /**
   * {@value #OFFSETS_TOPIC} as the broker creates it on a request for a coordinator (Kafka 4.2's
   * {@code DefaultAutoTopicCreationManager} with {@code GroupCoordinatorService.groupMetadataTopicConfigs}): the
   * configured partitions and replication factor, compacted, the producer's compression, the configured segment size.
   * {@code EmbeddedKafkaLifecycleTest} compares it with the topic the broker creates itself.
   */
  private NewTopic offsetsTopic() {
    GroupCoordinatorConfig group = config.groupCoordinatorConfig();
    return new NewTopic(OFFSETS_TOPIC, group.offsetsTopicPartitions(), group.offsetsTopicReplicationFactor())
        .configs(Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.COMPRESSION_TYPE_CONFIG, "producer",
            TopicConfig.SEGMENT_BYTES_CONFIG, Integer.toString(group.offsetsTopicSegmentBytes())));
  }


  /**
   * {@inheritDoc}
   *
   * <p>Shuts the broker and controller down and waits for their threads, keeps the folder, sleeps {@code downtime},
   * then starts a new server from the same configuration (same ports, same folder, not formatted again). If
   * another process took one of the two ports meanwhile, binding is tried again for up to about 10 s before giving
   * up. Holds this broker's lock throughout: {@link #createTopics}, {@link #close()} and the shutdown hook wait for
   * the restart to end.
   */
  @Override
  public synchronized void restart(Duration downtime) {
    Objects.requireNonNull(downtime, "downtime");
    if (downtime.isNegative()) {
      throw new IllegalArgumentException("downtime must not be negative, got " + downtime);
    }
    ensureOpen();
    long begin = System.nanoTime();
    closeAdmin();
    shutdownServer();
    progress.accept(String.format(Locale.ROOT, "embedded Kafka broker on %s stopped for restart (down for %.1f s)",
        bootstrapServers(), downtime.toNanos() / 1e9));
    try {
      Thread.sleep(downtime.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the restart's downtime; the broker on "
          + bootstrapServers() + " stays stopped", e);
    }
    long up = System.nanoTime();
    server = startAgain();
    awaitReady();
    progress.accept(String.format(Locale.ROOT, "embedded Kafka broker on %s restarted in %.1f s (%.1f s in all with the downtime)",
        bootstrapServers(), (System.nanoTime() - up) / 1e9, (System.nanoTime() - begin) / 1e9));
  }

  /**
   * A new server from the same configuration and folder. The ports were free a moment ago but the OS may have given
   * one to another process while the broker was down: then binding is retried until {@code restartBindWindow} ends.
   */
  private KafkaRaftServer startAgain() {
    long deadline = System.nanoTime() + restartBindWindow.toNanos();
    while (true) {
      KafkaRaftServer restarted = null;
      try {
        // reads meta.properties and the metadata log the first start formatted: the cluster id and data stay
        KafkaRaftServer created = AsciiCaseLocale.underAsciiCaseMapping(() -> new KafkaRaftServer(config, Time.SYSTEM));
        restarted = created;
        AsciiCaseLocale.underAsciiCaseMapping(created::startup);
        return restarted;
      } catch (RuntimeException e) {
        if (restarted != null) {
          try {
            restarted.shutdown();
            restarted.awaitShutdown();
          } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        if (!causedByBindFailure(e)) {
          throw new IllegalStateException("the embedded Kafka broker on " + bootstrapServers()
              + " cannot start again: " + e.getMessage(), e);
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the embedded Kafka broker cannot start again on " + takenPorts()
              + ": taken by another process while the broker was down (tried for "
              + String.format(Locale.ROOT, "%.1f", restartBindWindow.toNanos() / 1e9) + " s); the broker stays stopped", e);
        }
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while restarting the embedded Kafka broker on " + bootstrapServers(), e);
      }
    }
  }

  /** Which of the two ports cannot be bound now, e.g. {@code "port 40123 (clients)"}; both if neither fails now. */
  private String takenPorts() {
    String taken = takenPorts(brokerPort, controllerPort);
    return taken != null ? taken
        : "port " + brokerPort + " (clients) or " + controllerPort + " (controller) of " + loopback();
  }

  /** Which of the two ports cannot be bound now, e.g. {@code "port 40123 (clients) of 127.0.0.1"}; null if none. */
  private static String takenPorts(int brokerPort, int controllerPort) {
    List<String> taken = new ArrayList<>();
    if (!isFree(brokerPort)) {
      taken.add("port " + brokerPort + " (clients)");
    }
    if (!isFree(controllerPort)) {
      taken.add("port " + controllerPort + " (controller)");
    }
    return taken.isEmpty() ? null : String.join(" and ", taken) + " of " + loopback();
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true); // as Kafka's acceptor: connections in TIME_WAIT do not count as taken
      socket.bind(new InetSocketAddress(InetAddress.getByName(loopback()), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Stops the broker and the controller, waits until their threads have ended, and deletes the data folder.
   * Idempotent; safe to call from any thread.
   */
  @Override
  public void close() {
    stop(false);
    if (shutdownHook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting: the hook runs (or ran) close itself
    }
  }

  private void closeFromHook() {
    stop(true);
  }

  private synchronized void stop(boolean fromHook) {
    if (closed) {
      return;
    }
    closed = true;
    long begin = System.nanoTime();
    closeAdmin();
    try {
      shutdownServer();
    } finally {
      unguard.run(); // after the shutdown: a fatal fault while stopping still reaches this broker's progress
      deleteFolder(folder);
    }
    progress.accept(String.format(Locale.ROOT, "embedded Kafka broker on %s stopped%s in %.1f s, %s removed",
        bootstrapServers(), fromHook ? " (JVM shutdown)" : "", (System.nanoTime() - begin) / 1e9, folder));
  }

  private void closeAdmin() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }

  /** Shuts the running server down and waits for its threads; nothing if it is stopped already. */
  private void shutdownServer() {
    KafkaRaftServer running = server;
    if (running != null) {
      server = null;
      running.shutdown();
      running.awaitShutdown();
    }
  }

  private Admin admin() {
    if (admin == null) {
      admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
          AdminClientConfig.CLIENT_ID_CONFIG, "embedded-kafka-admin"));
    }
    return admin;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the embedded Kafka broker on " + bootstrapServers() + " is closed");
    }
  }

  private static String loopback() {
    return "127.0.0.1";
  }

  /** Options of an {@link EmbeddedKafka}. */
  public static final class Builder {
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private Consumer<String> progress = System.out::println;
    private IntFunction<int[]> portChooser = EmbeddedKafka::freePorts;
    private Duration restartBindWindow = RESTART_BIND_WINDOW;
    private boolean shutdownHook = true;

    private Builder() {}

    /**
     * Whether the broker registers a JVM shutdown hook that closes it (default true). {@code false} for an owner
     * that closes it on shutdown itself, after what uses it: the JVM runs its hooks concurrently, so a broker hook
     * may stop the broker under clients still flushing or a Flink job still committing, which then wait for
     * timeouts (the demo's Ctrl-C took 11–30 s that way).
     */
    public Builder shutdownHook(boolean shutdownHook) {
      this.shutdownHook = shutdownHook;
      return this;
    }

    /** Replaces how ports are chosen (tests of the retry on a taken port). */
    Builder portChooser(IntFunction<int[]> portChooser) {
      this.portChooser = Objects.requireNonNull(portChooser, "portChooser");
      return this;
    }

    /** Replaces how long a restart retries binding a taken port (tests of that failure). */
    Builder restartBindWindow(Duration window) {
      this.restartBindWindow = Objects.requireNonNull(window, "window");
      return this;
    }

    /**
     * Sets a broker property over the defaults (replication factors 1, one partition for internal topics, no
     * automatic topic creation, two network and two I/O threads). The listeners, the node id, the process roles
     * and the directories belong to this class and cannot be set.
     */
    public Builder property(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (OWNED_PROPERTIES.contains(key)) {
        throw new IllegalArgumentException("property " + key + " is set by EmbeddedKafka itself (ports, folder, roles)");
      }
      overrides.put(key, value);
      return this;
    }

    /** Where the progress lines go (one at start, one at stop, two per restart); default {@code System.out::println}. */
    public Builder progress(Consumer<String> progress) {
      this.progress = Objects.requireNonNull(progress, "progress");
      return this;
    }

    /**
     * Formats a fresh temporary folder and starts the broker; returns once it answers. If another process took
     * one of the chosen ports before the broker bound it, starts again on new ports (at most
     * {@value #BIND_ATTEMPTS} attempts).
     *
     * @throws IllegalStateException or another runtime exception of Kafka's if the broker cannot start; whatever
     *     the attempt created is removed first
     */
    public EmbeddedKafka start() {
      long begin = System.nanoTime();
      for (int attempt = 1; ; attempt++) {
        try {
          return startOnce(begin);
        } catch (RuntimeException e) {
          if (attempt >= BIND_ATTEMPTS || !causedByBindFailure(e)) {
            throw e;
          }
          progress.accept("embedded Kafka broker: a chosen port was taken meanwhile (" + e.getMessage()
              + "), starting again on new ports");
        }
      }
    }

    private EmbeddedKafka startOnce(long begin) {
      Runnable unguard = guardJvmExit(progress);
      Path folder;
      try {
        folder = Files.createTempDirectory("linerate-kafka-");
      } catch (IOException e) {
        unguard.run();
        throw new UncheckedIOException("cannot create the embedded Kafka broker's temporary folder", e);
      }
      KafkaRaftServer server = null;
      EmbeddedKafka kafka = null;
      int[] ports = null;
      try {
        ports = portChooser.apply(2);
        Properties properties = defaultProperties(ports[0], ports[1], folder.resolve("logs"));
        properties.putAll(overrides);
        KafkaConfig config = AsciiCaseLocale.underAsciiCaseMapping(() -> new KafkaConfig(properties, false));
        format(config, folder.resolve("logs"));
        KafkaRaftServer created = AsciiCaseLocale.underAsciiCaseMapping(() -> new KafkaRaftServer(config, Time.SYSTEM));
        server = created;
        AsciiCaseLocale.underAsciiCaseMapping(created::startup);
        kafka = new EmbeddedKafka(server, config, restartBindWindow, folder, ports[0], ports[1], progress,
            unguard, shutdownHook);
        kafka.awaitReady();
      } catch (RuntimeException | Error e) {
        // a fatal fault handler (Kafka's controller startup has one) halts without a message, its cause only logged
        boolean refused = ports != null && refusedExit(e);
        try {
          if (kafka != null) {
            kafka.close();
          } else {
            try {
              if (server != null) {
                server.shutdown();
                server.awaitShutdown();
              }
            } finally {
              unguard.run();
            }
            deleteFolder(folder);
          }
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        RuntimeException named = refused ? takenPortFailure(e, ports) : null; // after the cleanup: ports freed
        if (named != null) {
          throw named;
        }
        throw e;
      }
      kafka.startupTime = Duration.ofNanos(System.nanoTime() - begin);
      progress.accept(String.format(Locale.ROOT, "embedded Kafka broker (KRaft) %s on %s, data in %s (started in %.1f s)",
          kafkaVersion(), kafka.bootstrapServers(), folder, kafka.startupTime.toNanos() / 1e9));
      return kafka;
    }
  }

  private static final int BIND_ATTEMPTS = 3;
  private static final AtomicBoolean EXIT_GUARDED = new AtomicBoolean();
  /** The progress consumers of the brokers of this JVM that are started and not closed. */
  private static final List<Consumer<String>> EXIT_LISTENERS = new CopyOnWriteArrayList<>();

  /**
   * Kafka's server code ends the process on a fatal fault ({@code Exit.exit(1)}, or {@code Exit.halt(1)}, which
   * skips shutdown hooks and prints nothing). In-process, that would take the demo or the whole test JVM (and its
   * Flink cluster) down with no trace. Once per JVM, before the first broker starts, both are replaced by a
   * procedure that prints the status, the message and the stack of the caller to standard error and on the
   * progress consumers of the brokers running in this JVM (Kafka's {@code Exit} is JVM-global: it cannot tell
   * which broker asked), then throws an {@link IllegalStateException} into the caller: the broker fails, the JVM
   * stays, and the failure can be read. Kafka's clients never call these. Every broker registers its consumer here;
   * the returned action removes it (when the broker is closed).
   */
  static Runnable guardJvmExit(Consumer<String> progress) {
    Objects.requireNonNull(progress, "progress");
    synchronized (EXIT_GUARDED) { // a second broker starting at the same time must not start unguarded
      if (EXIT_GUARDED.compareAndSet(false, true)) {
        Exit.setExitProcedure((status, message) -> refuseExit("exit", status, message));
        Exit.setHaltProcedure((status, message) -> refuseExit("halt", status, message));
      }
    }
    EXIT_LISTENERS.add(progress);
    AtomicBoolean removed = new AtomicBoolean();
    return () -> {
      if (removed.compareAndSet(false, true)) {
        EXIT_LISTENERS.remove(progress);
      }
    };
  }

  /** The exception {@link #refuseExit} throws into Kafka's code: its fault, with no cause. */
  private static final class ExitRefused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ExitRefused(String message) {
      super(message);
    }
  }

  private static boolean refusedExit(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ExitRefused) {
        return true;
      }
    }
    return false;
  }

  /**
   * A start that ended in a refused halt (the cause went to Kafka's log only), named by what can still be found
   * out once the attempt is cleaned up: a chosen port another process holds. The failure then has a
   * {@link BindException} cause, so the start is tried again on new ports. Null when both ports are free.
   */
  private static RuntimeException takenPortFailure(Throwable refused, int[] ports) {
    String taken = takenPorts(ports[0], ports[1]);
    if (taken == null) {
      return null;
    }
    IllegalStateException e = new IllegalStateException("the embedded Kafka broker cannot start: " + taken
        + " is in use (Kafka's fault handler asked to halt the JVM instead of failing with the cause; refused)",
        new BindException(taken + " is in use"));
    e.addSuppressed(refused);
    return e;
  }

  private static void refuseExit(String kind, int status, String message) {
    IllegalStateException e = new ExitRefused("the embedded Kafka broker asked to " + kind
        + " the JVM with status " + status + (message == null ? "" : ": " + message)
        + "; refused (an embedded broker must not end its host process)");
    e.printStackTrace();
    for (Consumer<String> progress : EXIT_LISTENERS) {
      try {
        progress.accept(e.getMessage());
      } catch (RuntimeException failed) {
        e.addSuppressed(failed); // the refusal is what the caller must get
      }
    }
    throw e;
  }
  private static final Duration RESTART_BIND_WINDOW = Duration.ofSeconds(10);

  private static boolean causedByBindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  private void awaitReady() {
    try {
      admin().describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the embedded Kafka broker on " + bootstrapServers()
          + " did not answer within " + READY_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the embedded Kafka broker", e);
    }
  }

  private static final Set<String> OWNED_PROPERTIES = Set.of(
      "process.roles", "node.id", "controller.quorum.voters", "controller.quorum.bootstrap.servers", "listeners",
      "advertised.listeners", "controller.listener.names", "listener.security.protocol.map",
      "inter.broker.listener.name", "log.dirs", "log.dir", "metadata.log.dir");

  /**
   * The broker's settings: one node in combined mode on loopback, replication factor 1 everywhere, one partition
   * for the internal topics (faster start of the first consumer group and the first transaction), no initial
   * rebalance delay, few network and I/O threads (a demo machine, not a server).
   */
  static Properties defaultProperties(int brokerPort, int controllerPort, Path logs) {
    Properties p = new Properties();
    String host = loopback();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(NODE_ID));
    p.put("controller.quorum.voters", NODE_ID + "@" + host + ":" + controllerPort);
    p.put("listeners", LISTENER + "://" + host + ":" + brokerPort + "," + CONTROLLER_LISTENER + "://" + host + ":" + controllerPort);
    p.put("advertised.listeners", LISTENER + "://" + host + ":" + brokerPort);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("listener.security.protocol.map", LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.put("inter.broker.listener.name", LISTENER);
    p.put("log.dirs", logs.toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("num.recovery.threads.per.data.dir", "1");
    p.put("log.cleaner.threads", "1");
    p.put("auto.create.topics.enable", "false");
    return p;
  }

  private static void format(KafkaConfig config, Path logs) {
    try {
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setClusterId(Uuid.randomUuid().toString())
          .setNodeId(NODE_ID)
          .setControllerListenerName(CONTROLLER_LISTENER)
          .setMetadataLogDirectory(logs.toString())
          .setDirectories(List.of(logs.toString()))
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format the embedded Kafka broker's folder " + logs + ": " + e.getMessage(), e);
    }
  }

  /** Distinct free ports on the loopback address (bound, read and released; the usual small race applies). */
  static int[] freePorts(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(loopback()));
        socket.setReuseAddress(true);
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports for the embedded Kafka broker", e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // nothing was sent on it
        }
      }
    }
  }

  static void deleteFolder(Path folder) {
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the embedded Kafka broker's folder " + folder, e);
    }
  }
}
