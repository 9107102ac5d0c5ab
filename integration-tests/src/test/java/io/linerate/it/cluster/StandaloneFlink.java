package io.linerate.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A standalone Flink session cluster as separate JVMs, started the way flink-dist's scripts start one: a JobManager
 * ({@code StandaloneSessionClusterEntrypoint --configDir conf}) and one TaskManager ({@code TaskManagerRunner
 * --configDir conf}) with {@value #SLOTS} slots, on the class path of {@link FlinkDistClassPath}, configured by
 * {@code conf/config.yaml} (loopback addresses, free ports for RPC, REST and blobs, small memory) and
 * {@code conf/log4j.properties}. Each process writes its output to {@code logs/<name>.log} in the folder; what
 * fails carries the tails of those logs. {@link #flink} runs Flink's CLI ({@code CliFrontend}, as {@code bin/flink}
 * does) in a third JVM with {@code FLINK_CONF_DIR} pointing at the same configuration.
 *
 * <p>{@link #close()} destroys the processes (and any children), also from a shutdown hook should the test JVM
 * exit first; the caller removes the folder.
 */
final class StandaloneFlink implements AutoCloseable {

  static final int SLOTS = 2;
  /** Java 17 options of flink-dist's config.yaml ({@code env.java.opts.all}) that Flink's runtime relies on. */
  private static final List<String> JAVA_OPTS = List.of(
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
      "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path folder;
  private final Path conf;
  private final Path logs;
  private final String classPath;
  private final int restPort;
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Thread shutdownHook = new Thread(this::destroyAll, "standalone-flink-shutdown");
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private StandaloneFlink(Path folder, String classPath) throws IOException {
    this.folder = folder;
    this.conf = Files.createDirectories(folder.resolve("conf"));
    this.logs = Files.createDirectories(folder.resolve("logs"));
    this.classPath = classPath;
    this.restPort = freePort();
    writeConfiguration();
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts the JobManager and the TaskManager (returns at once; {@link #awaitReady} waits for them). */
  static StandaloneFlink start(Path folder, String classPath) throws IOException {
    StandaloneFlink flink = new StandaloneFlink(folder, classPath);
    try {
      flink.launch("jobmanager", "384m", "128m", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
      // heap = framework heap + task heap, direct = framework off-heap + task off-heap + network (config.yaml)
      flink.launch("taskmanager", "384m", "160m", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
    } catch (IOException | RuntimeException e) {
      flink.close();
      throw e;
    }
    return flink;
  }

  int restPort() {
    return restPort;
  }

  private void writeConfiguration() throws IOException {
    List<String> yaml = List.of(
        "jobmanager.rpc.address: localhost",
        "jobmanager.rpc.port: " + freePort(),
        "jobmanager.bind-host: localhost",
        "jobmanager.memory.heap.size: 384m",
        "taskmanager.host: localhost",
        "taskmanager.bind-host: localhost",
        "taskmanager.rpc.port: 0",
        "taskmanager.data.port: 0",
        "taskmanager.numberOfTaskSlots: " + SLOTS,
        // what flink-dist's scripts compute (BashJavaUtils) and pass as dynamic properties: TaskManagerRunner
        // started directly requires the resource spec (cores, task heap and off-heap, network, managed) in full
        "taskmanager.cpu.cores: " + SLOTS,
        "taskmanager.memory.framework.heap.size: 128m",
        "taskmanager.memory.task.heap.size: 256m",
        "taskmanager.memory.managed.size: 64m",
        "taskmanager.memory.framework.off-heap.size: 128m",
        "taskmanager.memory.task.off-heap.size: 0m",
        "taskmanager.memory.network.min: 32m",
        "taskmanager.memory.network.max: 32m",
        "taskmanager.memory.jvm-metaspace.size: 256m",
        "taskmanager.memory.jvm-overhead.min: 64m",
        "taskmanager.memory.jvm-overhead.max: 64m",
        "rest.address: localhost",
        "rest.bind-address: localhost",
        "rest.port: " + restPort,
        "blob.server.port: 0", // any free port: the TaskManager learns it from the JobManager
        "io.tmp.dirs: " + Files.createDirectories(folder.resolve("io")),
        "web.tmpdir: " + Files.createDirectories(folder.resolve("web")),
        "parallelism.default: 1");
    Files.write(conf.resolve("config.yaml"), yaml, StandardCharsets.UTF_8);
    Files.write(conf.resolve("log4j.properties"), List.of(
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.console.ref = console",
        "appender.console.type = Console",
        "appender.console.name = console",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1.} [%t] - %m%n",
        "logger.kafka.name = org.apache.kafka",
        "logger.kafka.level = WARN"), StandardCharsets.UTF_8);
  }

  private Process launch(String name, String heap, String direct, String mainClass, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xms" + heap);
    command.add("-Xmx" + heap);
    command.add("-XX:MaxDirectMemorySize=" + direct);
    command.add("-XX:MaxMetaspaceSize=256m");
    command.addAll(JAVA_OPTS);
    command.add("-Djava.io.tmpdir=" + Files.createDirectories(folder.resolve("tmp-" + name)));
    command.add("-Dlog.file=" + logs.resolve(name + ".log"));
    command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    if (args.length == 0) {
      command.add("--configDir");
      command.add(conf.toString());
    } else {
      command.addAll(List.of(args));
    }
    ProcessBuilder pb = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true)
        .redirectOutput(logs.resolve(name + ".out").toFile());
    pb.environment().put("FLINK_CONF_DIR", conf.toString());
    Process p = pb.start();
    processes.put(name, p);
    return p;
  }

  /** Waits until the TaskManager has registered its slots with the JobManager (REST {@code /overview}). */
  void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      for (Map.Entry<String, Process> e : processes.entrySet()) {
        if (!e.getValue().isAlive()) {
          throw failure("the " + e.getKey() + " exited with code " + e.getValue().exitValue() + " during start");
        }
      }
      try {
        JsonNode overview = get("/overview");
        last = overview.toString();
        if (overview.path("taskmanagers").asInt() == 1 && overview.path("slots-total").asInt() == SLOTS) {
          return;
        }
      } catch (IOException notYet) {
        last = notYet.toString();
      }
      Thread.sleep(200);
    }
    throw failure("the cluster did not start within " + timeout + " (last /overview: " + last + ")");
  }

  /** GET of the REST API, parsed. */
  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + restPort + path))
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET " + path + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }

  /**
   * Runs Flink's CLI ({@code flink <args>}) in a JVM of its own with {@code FLINK_CONF_DIR} set, as
   * {@code bin/flink} does; waits for it and returns its exit code (its output is in {@code logs/cli.out}).
   */
  int flink(Duration timeout, String... args) throws Exception {
    Process cli = launch("cli", "256m", "128m", "org.apache.flink.client.cli.CliFrontend", args);
    if (!cli.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      destroy(cli);
      throw failure("flink " + String.join(" ", args) + " did not end within " + timeout);
    }
    return cli.exitValue();
  }

  /** An AssertionError saying {@code what}, with the last lines of every process's output. */
  AssertionError failure(String what) {
    StringBuilder sb = new StringBuilder(what);
    for (String name : processes.keySet()) {
      Path out = logs.resolve(name + ".out");
      sb.append(String.format(Locale.ROOT, "%n---- first errors in %s ----%n", out)).append(firstErrors(out, 20));
      sb.append(String.format(Locale.ROOT, "%n---- last lines of %s ----%n", out)).append(tail(out, 40));
    }
    return new AssertionError(sb.toString());
  }

  /** The last {@code lines} lines of a process's output file. */
  static String tail(Path file, int lines) {
    try {
      if (!Files.exists(file)) {
        return "(no output)";
      }
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** The first {@code max} lines of a process's output that report an error or an exception. */
  static String firstErrors(Path file, int max) {
    try {
      if (!Files.exists(file)) {
        return "(no output)";
      }
      List<String> errors = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .filter(l -> !l.contains("FlinkYarnSessionCli"))
          .filter(l -> l.contains(" ERROR ") || l.matches(".*(Exception|Error)(: .*)?$") || l.startsWith("Caused by"))
          .limit(max).collect(java.util.stream.Collectors.toList());
      return errors.isEmpty() ? "(none)" : String.join(System.lineSeparator(), errors);
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  Path log(String name) {
    return logs.resolve(name + ".out");
  }

  /**
   * A port that was free a moment ago, for the ports the processes must be told in advance (RPC, REST). Taken below
   * Linux's ephemeral range (32768 and up by default), where the OS also picks the local ports of outgoing
   * connections, so that one of those (a Kafka client, the REST poll) cannot take it before the process binds it: a
   * port from {@code new ServerSocket(0)} once lost the BLOB server that race ("Unable to open BLOB Server in
   * specified port range").
   */
  private static int freePort() throws IOException {
    java.util.SplittableRandom random = new java.util.SplittableRandom(System.nanoTime());
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20_000 + random.nextInt(12_000);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void destroy(Process p) {
    p.descendants().forEach(ProcessHandle::destroy);
    p.destroy();
    try {
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private void destroyAll() {
    List<String> names = new ArrayList<>(processes.keySet());
    for (int i = names.size() - 1; i >= 0; i--) {
      destroy(processes.get(names.get(i)));
    }
  }

  /** Destroys the processes, TaskManager before JobManager (SIGTERM, then SIGKILL after 15 s). */
  @Override
  public void close() {
    destroyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs or ran
    }
  }
}
