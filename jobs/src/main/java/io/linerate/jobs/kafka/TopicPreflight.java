package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares, before a job is submitted, the configs of the topics it writes ({@link WrittenTopics}) with what it may
 * write to them, through one {@code DescribeConfigs} request (the effective values: a topic's override, else the
 * broker's default). Two mismatches make a job fail at run time on one record, and again on every restart, since the
 * restored job meets the same record again:
 * <ul>
 *   <li>{@code max.message.bytes} below the largest record the job's sinks may write
 *       ({@link WrittenTopics#largestRecordBytes()}): the broker refuses it ({@code RecordTooLargeException}). The
 *       broker compares each record batch it is sent, header included, with {@code max.message.bytes}; the largest
 *       record the producer sends is one whose batch of one (its upper-bound estimate, header included) is at most
 *       {@code max.request.size} and {@code buffer.memory}, and a batch of several records that is too large is
 *       split by the producer and sent again. So the job is refused when {@code max.message.bytes} is below
 *       {@link WrittenTopics#largestRecordBytes()}: {@link #check} throws {@link TopicsRefused}. The job's own
 *       limit is not lowered to the topic's instead: that would turn records into dead letters by a broker setting
 *       read once at submission, unasked; lowering {@code max.request.size} does it on request.
 *   <li>{@code message.timestamp.type=CreateTime} with a finite {@code message.timestamp.before.max.ms} or
 *       {@code after.max.ms} on a topic written with the input records' own timestamps: a record too old (or too far
 *       ahead) for the broker's clock when it is written is refused ({@code InvalidTimestampException}). A warning
 *       only: whether a record is refused depends on the broker's clock when it appends it, which the job cannot
 *       read. The {@code after} bound is not warned of when the input topic's timestamps cannot be further ahead
 *       ({@code LogAppendTime}, or a bound no looser than the output's).
 * </ul>
 *
 * <p>A check that cannot be made (no {@code DescribeConfigs} permission, a topic that does not exist yet, no answer
 * within the timeout) is a warning, not a failure: the job runs as without the check.
 */
public final class TopicPreflight {

  private static final Logger LOG = LoggerFactory.getLogger(TopicPreflight.class);

  /** How long the check waits for the broker unless told otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** The bound of Kafka versions before 3.6 ({@code before} and {@code after} in one), if a broker has no other. */
  static final String TIMESTAMP_DIFFERENCE_MAX_MS = "message.timestamp.difference.max.ms";

  private final Map<String, Object> adminProperties;
  private final Duration timeout;

  /**
   * @param adminProperties the admin client's properties: {@code bootstrap.servers} and the cluster's security
   *     settings, as the job's clients have them
   * @param timeout how long to wait for the broker's answer; past it the check is skipped with a warning
   */
  public TopicPreflight(Map<String, ?> adminProperties, Duration timeout) {
    this.adminProperties = new HashMap<>(Objects.requireNonNull(adminProperties, "adminProperties"));
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
    }
  }

  /** Topics that cannot take what the job may write to them; the message names each, both values and the fixes. */
  public static final class TopicsRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final List<String> warnings;

    TopicsRefused(String message, List<String> warnings) {
      super(message);
      this.warnings = List.copyOf(warnings);
    }

    /** The warnings of the same check ({@link #check} returns them when it does not throw). */
    public List<String> warnings() {
      return warnings;
    }
  }

  /**
   * Checks the topics of {@code written}; returns the warnings (also logged), empty when all is well. One request
   * for all the topics (and the input's, for topics written with its timestamps), answered in milliseconds by a
   * reachable broker.
   *
   * @throws TopicsRefused if a topic's {@code max.message.bytes} is below {@link WrittenTopics#largestRecordBytes()}
   */
  public List<String> check(WrittenTopics written) {
    if (written.topics().isEmpty()) {
      return List.of();
    }
    Set<String> described = new LinkedHashSet<>(written.topics());
    if (!written.keepingInputTimestamps().isEmpty()) {
      described.add(written.input());
    }
    List<String> warnings = new ArrayList<>();
    Map<String, Config> configs = describe(described, warnings);
    List<String> refused = new ArrayList<>();
    for (String topic : written.topics()) {
      Config config = configs.get(topic);
      if (config != null) {
        tooSmall(written, topic, config, refused);
      }
    }
    for (String topic : written.keepingInputTimestamps()) {
      if (configs.containsKey(topic)) {
        warnings.addAll(TimestampBounds.warnings(written.describe(topic), configs.get(topic),
            written.input(), configs.get(written.input())));
      }
    }
    warnings.forEach(LOG::warn);
    if (!refused.isEmpty()) {
      throw new TopicsRefused(String.join("\n", refused), warnings);
    }
    return warnings;
  }

  /** The configs of {@code topics} that could be read; a warning for each that could not. */
  private Map<String, Config> describe(Set<String> topics, List<String> warnings) {
    Map<String, Object> props = new HashMap<>(adminProperties);
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "linerate-topic-preflight");
    Map<String, Config> configs = new HashMap<>();
    List<ConfigResource> resources = topics.stream()
        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    try (Admin admin = Admin.create(props)) {
      Map<ConfigResource, KafkaFuture<Config>> answers = admin.describeConfigs(resources,
          new DescribeConfigsOptions().timeoutMs(millis)).values();
      long deadline = System.nanoTime() + timeout.toNanos();
      for (ConfigResource r : resources) {
        try {
          long left = Math.max(0, deadline - System.nanoTime());
          configs.put(r.name(), answers.get(r).get(left, TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          warnings.add(notChecked(r.name(), e.getCause()));
        } catch (TimeoutException e) {
          warnings.add(notChecked(r.name(), "no answer from " + props.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
              + " within " + timeout));
        }
      }
    } catch (KafkaException e) { // e.g. bootstrap servers that do not resolve where the job is submitted
      warnings.add("the configs of the topics " + topics + " are not checked before the job runs: cannot create "
          + "an admin client: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      warnings.add("the configs of the topics " + topics + " are not checked before the job runs: interrupted");
    }
    return configs;
  }

  private static String notChecked(String topic, Throwable cause) {
    if (cause instanceof AuthorizationException) {
      return notChecked(topic, "not authorized to describe its configs (DescribeConfigs on the topic): "
          + cause.getMessage());
    }
    if (cause instanceof UnknownTopicOrPartitionException) {
      return notChecked(topic, "it does not exist (yet)");
    }
    return notChecked(topic, cause.getClass().getSimpleName() + ": " + cause.getMessage());
  }

  private static String notChecked(String topic, String why) {
    return "the configs of topic '" + topic + "' (max.message.bytes, message.timestamp.*) are not checked before the "
        + "job runs: " + why;
  }

  /** Adds the refusal of {@code topic} to {@code refused} if it cannot take the job's largest record. */
  private static void tooSmall(WrittenTopics written, String topic, Config config, List<String> refused) {
    ConfigEntry e = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    if (e == null || e.value() == null) {
      return;
    }
    long limit = Long.parseLong(e.value().trim());
    long largest = written.largestRecordBytes();
    if (limit >= largest) {
      return;
    }
    refused.add(written.describe(topic) + " has max.message.bytes " + limit + " (" + source(e) + "), below the "
        + largest + " bytes of the largest record the job may write to it (" + written.largestRecordSource()
        + ", the smaller of them: the producer's limit of a record batch, which the job's size checks follow): the "
        + "broker would refuse such a record (RecordTooLargeException) and fail the job, again on every restart. "
        + "Raise the topic's max.message.bytes to at least " + largest + " (kafka-configs.sh --alter --entity-type "
        + "topics --entity-name " + topic + " --add-config max.message.bytes=" + largest + "), or lower the sinks' "
        + "max.request.size to at most " + limit + " (the job then dead-letters or refuses what could be larger).");
  }

  /** Where a config's value comes from, in words. */
  static String source(ConfigEntry e) {
    return switch (e.source()) {
      case DYNAMIC_TOPIC_CONFIG -> "set on the topic";
      case DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG -> "the broker's default";
      case DEFAULT_CONFIG -> "Kafka's default";
      default -> "source " + e.source();
    };
  }
}
