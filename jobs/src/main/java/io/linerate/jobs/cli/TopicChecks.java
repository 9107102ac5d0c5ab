package io.linerate.jobs.cli;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;

import io.linerate.jobs.kafka.TopicPreflight;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The check every job command makes before it submits its job: the topics the job writes against what it may write
 * to them ({@link TopicPreflight}), warnings and a refusal on the command's error output.
 */
public final class TopicChecks {

  private TopicChecks() {
  }

  /** The admin client's properties for the broker of {@code topics}. */
  static Map<String, Object> adminProperties(JobTopics topics) {
    Map<String, Object> props = new HashMap<>();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    return props;
  }

  /**
   * Checks the topics {@code job} writes ({@link JobLauncher#writtenTopics}); prints each warning ("warning: …") and
   * a refusal to {@code spec}'s error output.
   *
   * @return whether the job may be submitted: false if a topic cannot take what the job may write to it
   */
  public static boolean allow(CommandSpec spec, JobLauncher job, JobTopics topics) {
    PrintWriter err = spec.commandLine().getErr();
    try {
      for (String warning : new TopicPreflight(adminProperties(topics), TopicPreflight.DEFAULT_TIMEOUT)
          .check(job.writtenTopics(topics))) {
        err.println("warning: " + warning);
      }
      return true;
    } catch (TopicPreflight.TopicsRefused e) {
      for (String warning : e.warnings()) {
        err.println("warning: " + warning);
      }
      err.println(spec.name() + ": the job is not submitted: " + e.getMessage());
      return false;
    } finally {
      err.flush();
    }
  }
}
