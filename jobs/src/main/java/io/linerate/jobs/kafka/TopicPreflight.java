package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before a job is submitted, that the topic it reads exists and compares the topics it writes
 * ({@link WrittenTopics}) with what it may write to them, in one admin session ({@link TopicSurvey}).
 *
 * <p>Missing topics ({@link MissingTopics}): an input topic that does not exist is refused (Flink's Kafka source
 * would fail at partition discovery and the job restart without end), naming the existing topics with a close name.
 * A written topic that does not exist is refused if the broker's {@code auto.create.topics.enable} is false (the
 * sink would fail the job on its first write to it), and a warning naming the broker's defaults it would be created
 * with if true (refused if that {@code max.message.bytes} is below the job's largest record).
 *
 * <p>Configs, through one {@code DescribeConfigs} request (the effective values: a topic's override, else the
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
 * <p>A check that cannot be made (no {@code Describe} or {@code DescribeConfigs} permission, a missing written topic
 * when the broker's configs cannot be read, no answer within the timeout, a broker that cannot be reached) is a
 * warning, not a failure: the job runs as without the check.
 *
 * <p>The feeders check the topic they write the same way ({@link WrittenTopics#ofFeeder}): only whether it exists,
 * and if not, whether the broker will create it on their first write.
 */
public final class TopicPreflight {

  private static final Logger LOG = LoggerFactory.getLogger(TopicPreflight.class);

  /** How long the check waits for the broker unless told otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** The bound of Kafka versions before 3.6 ({@code before} and {@code after} in one), if a broker has no other. */
  static final String TIMESTAMP_DIFFERENCE_MAX_MS = "message.timestamp.difference.max.ms";

  private final Map<String, Object> adminProperties;
  private final Duration timeout;
  /** What would happen if the broker answers nothing and the command went on; null: that is only a warning. */
  private String unansweredConsequence;
  /** Whether, with {@link #unansweredConsequence}, an admin client that cannot be made is refused too. */
  private boolean refuseWithoutAdminClient;
  /** Why the last {@link #check} had no admin client ("cannot create an admin client: ..."); null if it had one. */
  private String noSurvey;

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

  /**
   * Refuses too when the broker does not answer at all (no topic's existence learnt for want of an answer, and, with
   * {@code withoutAdminClient}, no admin client at all), for a command whose Kafka clients run in this JVM and would
   * only wait for the broker: a job on the local cluster of the demo jar (without end: its clients' failures restart
   * it, so an admin client that cannot be made is refused too), a feeder's producer (for {@code max.block.ms}, then
   * fail; where no admin client can be made, the producer, made from the same properties, fails at once with its own
   * error, so that stays a warning). Elsewhere ({@code flink run}) the cluster may reach a broker the submitting
   * machine cannot, and that stays a warning (the default, {@code null}).
   *
   * @param consequence what the command's clients would do without the broker, for the refusal's message (e.g.
   *     "the job would run in this JVM, whose Kafka clients would wait for it without end"); null for a warning only
   * @param withoutAdminClient whether an admin client that cannot be made is refused as well
   */
  public TopicPreflight brokerMustAnswer(String consequence, boolean withoutAdminClient) {
    this.unansweredConsequence = consequence;
    this.refuseWithoutAdminClient = withoutAdminClient;
    return this;
  }

  /**
   * Topics the job cannot run with: a missing input topic, a missing written topic the broker will not create, a topic
   * that cannot take what the job may write to it. The message names each (one line each), why and the fixes.
   */
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
   * Checks the input and the topics of {@code written}; returns the warnings (also logged), empty when all is well.
   * One admin session: whether the topics exist and the written topics' configs (and the input's, for topics written
   * with its timestamps) in one round, then a broker's configs if a written topic is missing and the topic names if
   * the input is; answered in milliseconds by a reachable broker, given up after the timeout.
   *
   * @throws TopicsRefused if the input topic does not exist, if a written topic does not exist and the broker will
   *     not create it (its {@code auto.create.topics.enable} is false), or if a topic's
   *     {@code max.message.bytes} (or the one the broker would create it with) is below
   *     {@link WrittenTopics#largestRecordBytes()}
   */
  public List<String> check(WrittenTopics written) {
    String input = written.input();
    if (input == null && written.topics().isEmpty()) {
      return List.of();
    }
    Set<String> existence = new LinkedHashSet<>();
    if (input != null) {
      existence.add(input);
    }
    existence.addAll(written.topics());
    Set<String> described = new LinkedHashSet<>(written.topics());
    if (!written.keepingInputTimestamps().isEmpty()) {
      described.add(input);
    }
    List<String> warnings = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    TopicSurvey survey = survey(input, written.topics(), existence, described, warnings);
    if (survey != null) {
      judge(written, survey, described, refused, warnings);
    }
    if (unansweredConsequence != null && (survey == null ? refuseWithoutAdminClient : survey.unanswered())) {
      // no admin client: the command's own clients, made from the same properties, would most likely fail at once
      // rather than wait, so the consequence is not the one to give
      refused.add(survey == null ? "the broker cannot be reached from here (" + noSurvey + "): check "
          + "--bootstrap-servers and the client properties (--kafka-config, --kafka-property)"
          : "the broker does not answer here (no answer from " + adminProperties.get(
              AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) + " within " + timeout + "), and " + unansweredConsequence
          + ": check --bootstrap-servers and that the broker runs");
      // each warning then only says that a topic is not checked, for the reason the refusal gives: printed before
      // it, they said the command would go on ("... before generate writes to it") when it does not
      warnings.clear();
    }
    warnings.forEach(LOG::info); // returned too: the job commands print them as warnings (WARN here printed twice)
    if (!refused.isEmpty()) {
      throw new TopicsRefused(String.join("\n", refused), warnings);
    }
    return warnings;
  }

  /** Adds to {@code refused} and {@code warnings} what {@code survey} says of the topics of {@code written}. */
  private static void judge(WrittenTopics written, TopicSurvey survey, Set<String> described, List<String> refused,
      List<String> warnings) {
    String input = written.input();
    if (input != null && survey.exists(input) == null) {
      warnings.add("whether input topic '" + input + "' exists is not checked before the job runs: "
          + survey.whyUnknown(input));
    } else if (input != null && !survey.exists(input)) {
      refused.add(MissingTopics.input(input, survey));
    }
    for (String topic : described) {
      if (survey.exists(topic) == Boolean.FALSE) {
        if (written.topics().contains(topic)) {
          MissingTopics.written(written, topic, survey, refused, warnings);
        }
      } else if (written.feeder() != null) { // a feeder's topics: only whether they exist
        if (survey.exists(topic) == null) {
          warnings.add("whether " + written.describe(topic) + " exists is not checked before " + written.feeder()
              + " writes to it: " + survey.whyUnknown(topic));
        }
      } else if (survey.config(topic) == null) {
        warnings.add(notChecked(topic, survey.whyNoConfig(topic)));
      } else if (written.topics().contains(topic)) {
        tooSmall(written, topic, survey.config(topic), refused);
      }
    }
    for (String topic : written.keepingInputTimestamps()) {
      if (survey.config(topic) != null) {
        warnings.addAll(TimestampBounds.warnings(written.describe(topic), survey.config(topic),
            written.input(), survey.config(written.input())));
      }
    }
  }

  /** One admin session's answers; null, with a warning, if no admin client can be made. */
  private TopicSurvey survey(String input, Set<String> written, Set<String> existence, Set<String> described,
      List<String> warnings) {
    noSurvey = null;
    Map<String, Object> props = new HashMap<>(adminProperties);
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "linerate-topic-preflight");
    String servers = String.valueOf(props.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
    try (Admin admin = Admin.create(props)) {
      return TopicSurvey.take(admin, servers, timeout, input, written, existence, described);
    } catch (KafkaException e) { // e.g. bootstrap servers that do not resolve where the job is submitted
      noSurvey = "cannot create an admin client: " + causes(e);
      warnings.add("the topics " + existence + " (whether they exist, max.message.bytes, message.timestamp.*) are "
          + "not checked before the job runs: " + noSurvey);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      noSurvey = "interrupted";
      warnings.add("the topics " + existence + " are not checked before the job runs: interrupted");
    }
    return null;
  }

  /** {@code e}'s message and its causes' (the admin client's own says only "Failed to create new KafkaAdminClient"). */
  static String causes(Throwable e) {
    StringBuilder out = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !out.toString().contains(c.getMessage())) {
        out.append(": ").append(c.getMessage());
      }
    }
    return out.toString();
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
    refused.add(written.describe(topic) + " has max.message.bytes " + limit + " (" + source(e) + "), "
        + belowLargest(written, limit) + " Raise the topic's max.message.bytes to at least " + largest
        + " (kafka-configs.sh --alter --entity-type topics --entity-name " + topic + " --add-config max.message.bytes="
        + largest + "), or lower the sinks' max.request.size to at most " + limit + " (the job then dead-letters or "
        + "refuses what could be larger).");
  }

  /** Why a topic's {@code limit} (below the largest record) fails the job, e.g. "below the 1048576 bytes of …". */
  static String belowLargest(WrittenTopics written, long limit) {
    return "below the " + written.largestRecordBytes() + " bytes of the largest record the job may write to it ("
        + written.largestRecordSource() + ", the smaller of them: the producer's limit of a record batch, which the "
        + "job's size checks follow): the broker would refuse such a record (RecordTooLargeException) and fail the "
        + "job, again on every restart.";
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
