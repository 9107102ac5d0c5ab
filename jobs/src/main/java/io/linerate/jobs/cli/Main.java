package io.linerate.jobs.cli;

import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code linerate} command: {@code java -jar linerate-jobs-<version>-demo.jar <sub-command> [options]}, or the
 * job jar through {@code flink run}. Sub-commands are registered by name in {@link #commandLine()}; only those that
 * work with the classes at hand are registered ({@code demo} needs the embedded broker and Flink's runtime, which
 * only the demo jar carries).
 */
@Command(name = "linerate", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = "Bounded-memory stream summaries for Apache Flink: jobs from Kafka to Kafka and a local demo.",
    synopsisSubcommandLabel = "COMMAND")
public final class Main implements Runnable {

  /** A class of the Kafka broker, present in the demo jar and absent from the job jar. */
  static final String BROKER_CLASS = "kafka.server.KafkaRaftServer";
  /** A class of Flink's local cluster, present in the demo jar and provided on a Flink cluster. */
  static final String MINI_CLUSTER_CLASS = "org.apache.flink.runtime.minicluster.MiniCluster";

  @CommandLine.Spec
  private CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    io.linerate.jobs.local.CommonPool.prepare(); // first: the JDK reads it once, when the pool is first used
    Slf4jWithoutBinding.initialize(); // the job jar under java -jar: no "SLF4J: Failed to load class ..." lines
    System.exit(commandLine().execute(args));
  }

  /** The command line with every sub-command that works here registered, ready to {@code execute(args)}. */
  public static CommandLine commandLine() {
    return commandLine(present("org.apache.flink.streaming.api.environment.StreamExecutionEnvironment"),
        demoAvailable());
  }

  /**
   * The command line for a class path with ({@code flinkAtHand}: {@code flink run}, the demo jar) or without (the job
   * jar under {@code java -jar}) Flink's DataStream API, and with or without the demo's broker and local cluster.
   * Without Flink the job commands are registered hidden as {@link JobNeedsFlink}, which says where they run.
   */
  static CommandLine commandLine(boolean flinkAtHand, boolean demoAtHand) {
    CommandLine cl = new CommandLine(new Main());
    cl.setParameterExceptionHandler(Main::shortUsageError);
    io.linerate.jobs.feed.FeedCommands.register(cl);
    if (flinkAtHand) {
      cl.addSubcommand("heavy-hitters", new io.linerate.jobs.heavyhitters.HeavyHittersCommand());
      cl.addSubcommand("flow-meter", new io.linerate.jobs.flowmeter.FlowMeterCommand());
      cl.addSubcommand("dedup", new io.linerate.jobs.dedup.DedupCommand());
    } else {
      for (String job : JobNeedsFlink.JOBS) {
        CommandLine needsFlink = new CommandLine(new JobNeedsFlink(job, version()));
        needsFlink.getCommandSpec().usageMessage().hidden(true);
        cl.addSubcommand(job, needsFlink);
      }
    }
    if (demoAtHand) {
      cl.addSubcommand("demo", new DemoCommand());
      // the README's Maven command passes --duration itself, then -Ddemo.args: a --duration there wins
      cl.getSubcommands().get("demo").setOverwrittenOptionsAllowed(true)
          .setCaseInsensitiveEnumValuesAllowed(true); // --job dedup, as generate's --format takes any case
    } else {
      String jar = "linerate-jobs-" + version();
      List<String> footer = new ArrayList<>();
      footer.add("");
      footer.add("The demo command is in " + jar + "-demo.jar (java -jar ... demo).");
      if (!flinkAtHand) {
        footer.add("The jobs (" + String.join(", ", JobNeedsFlink.JOBS) + ") run on Flink: on a cluster with");
        footer.add("  flink run " + jar + ".jar JOB ...");
        footer.add("or on a local cluster in the JVM with");
        footer.add("  java -jar " + jar + "-demo.jar JOB ...");
      }
      cl.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
    }
    return cl;
  }

  /**
   * A bad option or value of a command: its message and where the options are (exit code 2), not the command's whole
   * usage (100 lines and more for the jobs, which pushed the message off the screen); {@code linerate} alone or with
   * an unknown command still gets the list of commands.
   */
  static int shortUsageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    java.io.PrintWriter err = cl.getErr();
    err.println(cl.getColorScheme().errorText(e.getMessage()));
    if (cl.getParent() == null) {
      cl.usage(err, cl.getColorScheme());
    } else {
      CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
      err.println("Try 'linerate " + cl.getCommandName() + " --help' for its options.");
    }
    err.flush();
    return cl.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** {@code linerate} alone: "a command is required", the usage help, exit code 2. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  /** Whether the embedded broker and Flink's runtime are on the class path (the demo jar, the tests). */
  static boolean demoAvailable() {
    return present(BROKER_CLASS) && present(MINI_CLUSTER_CLASS);
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Main.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** {@code Implementation-Version} of the jar's manifest; "(development build)" outside a jar. */
  static String version() {
    String v = Main.class.getPackage().getImplementationVersion();
    return v == null ? "(development build)" : v;
  }

  /** The version line of {@code --version}, from the jar's manifest. */
  public static final class ManifestVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"linerate " + version() + " (Java " + Runtime.version() + ")"};
    }
  }
}
