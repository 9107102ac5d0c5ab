package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What one admin session learnt of the cluster before a job is submitted, for {@link TopicPreflight}: which topics
 * exist ({@code DescribeTopics}), the configs of those it describes ({@code DescribeConfigs}), and only when they are
 * needed, a broker's configs (a topic the job writes is missing: does the broker create it?) and the names of the
 * topics (a topic is missing: which names are close? and is the input among them after all, created a moment ago?). The first three requests go out together; every answer is
 * awaited until one deadline, {@code timeout} after the start. What could not be learnt is kept with the reason.
 */
final class TopicSurvey {

  private final String servers;
  private final Duration timeout;
  private final Map<String, Boolean> exists = new HashMap<>();
  private final Map<String, String> existenceUnknown = new HashMap<>();
  private final Map<String, Config> configs = new HashMap<>();
  private final Map<String, Throwable> configFailures = new HashMap<>();
  private final Map<String, String> configsUnknown = new HashMap<>();
  private Config broker;
  private String brokerName = "the broker";
  private String brokerUnknown = "not asked";
  private Set<String> names = Set.of();

  private TopicSurvey(String servers, Duration timeout) {
    this.servers = servers;
    this.timeout = timeout;
  }

  /**
   * Asks {@code admin} whether {@code existenceOf} exist and for the configs of {@code configsOf}; then, if one of
   * {@code written} does not exist, a broker's configs, and if {@code input} does not exist, the topic names.
   *
   * @param servers the {@code bootstrap.servers} asked, for the messages
   */
  static TopicSurvey take(Admin admin, String servers, Duration timeout, String input, Set<String> written,
      Set<String> existenceOf, Set<String> configsOf) throws InterruptedException {
    TopicSurvey s = new TopicSurvey(servers, timeout);
    long deadline = System.nanoTime() + timeout.toNanos();
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    KafkaFuture<Collection<Node>> nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(millis))
        .nodes();
    Map<String, KafkaFuture<TopicDescription>> descriptions = admin.describeTopics(existenceOf,
        new DescribeTopicsOptions().timeoutMs(millis)).topicNameValues();
    List<ConfigResource> resources = configsOf.stream()
        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, KafkaFuture<Config>> answers = admin.describeConfigs(resources,
        new DescribeConfigsOptions().timeoutMs(millis)).values();
    for (String topic : existenceOf) {
      try {
        descriptions.get(topic).get(left(deadline), TimeUnit.NANOSECONDS);
        s.exists.put(topic, true);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          s.exists.put(topic, false);
        } else {
          s.existenceUnknown.put(topic, s.why(e.getCause(), "to describe it (Describe on the topic)"));
        }
      } catch (TimeoutException e) {
        s.existenceUnknown.put(topic, s.noAnswer());
      }
    }
    for (ConfigResource r : resources) {
      try {
        s.configs.put(r.name(), answers.get(r).get(left(deadline), TimeUnit.NANOSECONDS));
      } catch (ExecutionException e) {
        s.configFailures.put(r.name(), e.getCause());
        s.configsUnknown.put(r.name(), e.getCause() instanceof UnknownTopicOrPartitionException
            ? "it does not exist (yet)"
            : s.why(e.getCause(), "to describe its configs (DescribeConfigs on the topic)"));
      } catch (TimeoutException e) {
        s.configsUnknown.put(r.name(), s.noAnswer());
      }
    }
    boolean writtenMissing = written.stream().anyMatch(t -> s.exists(t) == Boolean.FALSE);
    if (writtenMissing) {
      s.readBroker(admin, nodes, deadline, millis);
    }
    boolean inputMissing = input != null && s.exists(input) == Boolean.FALSE;
    if (inputMissing || writtenMissing) {
      s.readNames(admin, deadline, millis);
    }
    if (inputMissing && s.names.contains(input)) { // created just before: a broker that answered may not have known it
      s.exists.put(input, true);
    }
    return s;
  }

  private static long left(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  private void readBroker(Admin admin, KafkaFuture<Collection<Node>> nodes, long deadline, int millis)
      throws InterruptedException {
    try {
      Node node = nodes.get(left(deadline), TimeUnit.NANOSECONDS).stream().min(Comparator.comparingInt(Node::id))
          .orElse(null);
      if (node == null) {
        brokerUnknown = "the cluster named no broker";
        return;
      }
      brokerName = "broker " + node.id();
      ConfigResource r = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(node.id()));
      broker = admin.describeConfigs(List.of(r), new DescribeConfigsOptions().timeoutMs(millis)).values().get(r)
          .get(left(deadline), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      brokerUnknown = "cannot read " + brokerName + "'s configs: "
          + why(e.getCause(), "to describe them (DescribeConfigs on the cluster)");
    } catch (TimeoutException e) {
      brokerUnknown = "cannot read " + brokerName + "'s configs: " + noAnswer();
    }
  }

  private void readNames(Admin admin, long deadline, int millis) throws InterruptedException {
    try {
      names = new TreeSet<>(admin.listTopics(new ListTopicsOptions().timeoutMs(millis)).names()
          .get(left(deadline), TimeUnit.NANOSECONDS));
    } catch (ExecutionException | TimeoutException e) {
      names = Set.of(); // the suggestions are a help, not a check: none then
    }
  }

  private String why(Throwable cause, String what) {
    if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
      return noAnswer(); // the admin client's own timeout, the same as this survey's: no answer in time
    }
    if (cause instanceof AuthorizationException) {
      return "not authorized " + what + ": " + cause.getMessage();
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  /** Whether the broker answered nothing: no topic's existence learnt, every one for want of an answer in time. */
  boolean unanswered() {
    return exists.isEmpty() && !existenceUnknown.isEmpty()
        && existenceUnknown.values().stream().allMatch(noAnswer()::equals);
  }

  private String noAnswer() {
    return "no answer from " + servers + " within " + timeout;
  }

  /** Whether {@code topic} exists: true, false, or null if that could not be learnt ({@link #whyUnknown}). */
  Boolean exists(String topic) {
    Boolean known = exists.get(topic);
    if (known == null && configFailures.get(topic) instanceof UnknownTopicOrPartitionException) {
      return false;
    }
    return known;
  }

  /** Why {@link #exists} is null for {@code topic}. */
  String whyUnknown(String topic) {
    return existenceUnknown.getOrDefault(topic, "not asked");
  }

  /** {@code topic}'s effective configs, or null ({@link #whyNoConfig}). */
  Config config(String topic) {
    return configs.get(topic);
  }

  /** Why {@link #config} is null for {@code topic}. */
  String whyNoConfig(String topic) {
    return configsUnknown.getOrDefault(topic, "not asked");
  }

  /** A broker's configs (asked only if a written topic is missing), or null ({@link #whyNoBroker}). */
  Config broker() {
    return broker;
  }

  /** Which broker {@link #broker} describes, e.g. "broker 1". */
  String brokerName() {
    return brokerName;
  }

  /** Why {@link #broker} is null. */
  String whyNoBroker() {
    return brokerUnknown;
  }

  /** The names of the topics the client may see (asked only if a topic is missing; empty if not answered). */
  Set<String> names() {
    return names;
  }

  /** The {@code bootstrap.servers} asked. */
  String servers() {
    return servers;
  }
}
