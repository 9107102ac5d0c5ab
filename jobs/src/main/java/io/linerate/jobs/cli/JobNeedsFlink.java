package io.linerate.jobs.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * A job command ({@code heavy-hitters}, {@code flow-meter}, {@code dedup}) where Flink's runtime is not on the class
 * path: the job jar run with {@code java -jar}. Whatever follows the command's name, it says where the job runs
 * ({@code flink run} with this jar, or the demo jar) and exits with code 2, instead of picocli's "Unmatched argument
 * ... Did you mean: linerate generate?".
 */
@Command(name = "job-needs-flink")
final class JobNeedsFlink implements Callable<Integer> {

  /** The job commands, as {@link Main} registers them where Flink is at hand. */
  static final List<String> JOBS = List.of("heavy-hitters", "flow-meter", "dedup");

  private final String job;
  private final String version;

  @Spec
  private CommandSpec spec;

  /** The arguments after the command's name, whatever they are (options included): not used. */
  @Unmatched
  private List<String> arguments = new ArrayList<>();

  JobNeedsFlink(String job, String version) {
    this.job = Objects.requireNonNull(job, "job");
    this.version = Objects.requireNonNull(version, "version");
  }

  /** Why the job cannot run here and where it does; exit code 2, as for a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().getErr().println(message(job, version));
    return 2;
  }

  /** The error for {@code job} run from the job jar of version {@code version}. */
  static String message(String job, String version) {
    String jar = "linerate-jobs-" + version;
    return job + " is a Flink job, and Flink's runtime is not in this jar (" + jar + ".jar carries only what a "
        + "Flink cluster does not): submit it to a cluster with flink run " + jar + ".jar " + job
        + " [options], or run it on a local cluster in the JVM from the demo jar: java -jar " + jar + "-demo.jar "
        + job + " [options]";
  }
}
