package io.linerate.jobs.cli;

/**
 * Kafka's rule for topic names, shared by every option that names a topic: 1 to 249 characters of
 * {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..} (a name the broker refuses only fails once the job runs).
 */
public final class TopicNames {

  /** The rule as the error messages state it. */
  public static final String RULE = "a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -, not . or ..)";

  private TopicNames() {
  }

  /** Whether {@code topic} is a name Kafka accepts. */
  public static boolean valid(String topic) {
    return !topic.isEmpty() && topic.length() <= 249 && !topic.equals(".") && !topic.equals("..")
        && topic.chars().allMatch(c -> c < 128 && Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
  }
}
