package io.linerate.jobs.kafka;

import java.util.Comparator;
import java.util.List;
import java.util.Set;

import org.apache.commons.text.similarity.LevenshteinDistance;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;

/**
 * What {@link TopicPreflight} says of a topic the job reads or writes that does not exist:
 * <ul>
 *   <li>the input topic: a refusal. Flink's Kafka source only describes it (which never creates a topic, whatever
 *       the broker's {@code auto.create.topics.enable}); with it missing the source fails at partition discovery
 *       ("Failed to get metadata for topics [..]") and the job restarts without end, printing nothing where it was
 *       submitted. The refusal names the existing topics whose names are close (same letters ignoring case, or at
 *       most {@link #MAX_EDITS} edits away): a typo is the likely cause.
 *   <li>a written topic: the sinks' producers create it on their first write if the broker's
 *       {@code auto.create.topics.enable} is true, with the broker's defaults ({@code num.partitions},
 *       {@code message.max.bytes}): a warning saying so, or a refusal if that {@code max.message.bytes} could not take
 *       the job's largest record. If false, the producer waits for the topic ({@code max.block.ms}) and fails the job
 *       on its first write, again on every restart: a refusal. If the broker's configs cannot be read, a warning.
 *       A feeder's topic ({@link WrittenTopics#ofFeeder}) is judged the same way; its producer would wait
 *       {@code max.block.ms} (60 s by default) and then fail.
 * </ul>
 * Both name the existing topics whose names are close (same letters ignoring case, or at most {@link #MAX_EDITS}
 * edits away): a typo is the likely cause.
 */
final class MissingTopics {

  /** The broker config that makes producers' writes create a missing topic. */
  static final String AUTO_CREATE = "auto.create.topics.enable";
  /** The partitions of a topic the broker creates. */
  static final String NUM_PARTITIONS = "num.partitions";
  /** The broker's default of the topics' {@code max.message.bytes}. */
  static final String MESSAGE_MAX_BYTES = "message.max.bytes";
  /** How many single-letter edits (insert, delete, replace) apart a name may be to be named as close. */
  static final int MAX_EDITS = 2;
  /** How many close names the refusal names at most. */
  static final int MAX_SUGGESTIONS = 5;

  private MissingTopics() {
  }

  /** The refusal of a missing input topic {@code topic}. */
  static String input(String topic, TopicSurvey survey) {
    String suggestion = closeNames(topic, survey);
    return "input topic '" + topic + "' does not exist on " + survey.servers() + ": Flink's Kafka source would fail "
        + "to find its partitions (\"Failed to get metadata for topics [" + topic + "]\") and the job would restart "
        + "without end (a broker's auto.create.topics.enable does not create a topic that is only read)."
        + suggestion + " Check --input-topic, or create the topic first: " + create(topic, survey.servers())
        + " (the feeders generate and replay write to it but do not create it).";
  }

  /**
   * What to say of the written topic {@code topic}, missing: a refusal added to {@code refused} or a warning to
   * {@code warnings}.
   */
  static void written(WrittenTopics written, String topic, TopicSurvey survey, List<String> refused,
      List<String> warnings) {
    String missing = written.describe(topic) + " does not exist on " + survey.servers();
    String writer = written.feeder() == null ? "the job" : written.feeder();
    String close = closeNames(topic, survey);
    Config broker = survey.broker();
    ConfigEntry autoCreate = broker == null ? null : broker.get(AUTO_CREATE);
    if (autoCreate == null || autoCreate.value() == null) {
      String why = broker == null ? survey.whyNoBroker() : survey.brokerName() + " does not show " + AUTO_CREATE;
      warnings.add(missing + " (yet), and whether the broker creates it on " + writer + "'s first write to it is not "
          + "known (" + why + ")" + (written.feeder() == null ? ": its configs (max.message.bytes, "
          + "message.timestamp.*) are not checked before the job runs." : ".") + close);
      return;
    }
    if (!Boolean.parseBoolean(autoCreate.value().trim())) {
      String consequence = written.feeder() == null
          ? "the job's sink would wait for it (max.block.ms) and fail the job on its first write to it (\"Topic "
              + topic + " not present in metadata\"), again on every restart."
          : writer + "'s producer would wait for it (max.block.ms, 60 s by default) and then fail (\"Topic " + topic
              + " not present in metadata\").";
      refused.add(missing + ", and the broker does not create topics on a write (" + AUTO_CREATE + " false, "
          + brokerSource(autoCreate, survey.brokerName()) + "): " + consequence + close
          + " Create it first: " + create(topic, survey.servers()) + ".");
      return;
    }
    ConfigEntry maxBytes = broker.get(MESSAGE_MAX_BYTES);
    Long limit = maxBytes == null || maxBytes.value() == null ? null : Long.valueOf(maxBytes.value().trim());
    String created = "the broker will create it on " + writer + "'s first write to it (" + AUTO_CREATE + " true on "
        + survey.brokerName() + ") with the broker's defaults";
    if (limit != null && limit < written.largestRecordBytes()) {
      long largest = written.largestRecordBytes();
      refused.add(missing + " (yet): " + created + ", max.message.bytes " + limit + " among them (" + MESSAGE_MAX_BYTES
          + ", " + brokerSource(maxBytes, "the broker") + "), " + TopicPreflight.belowLargest(written, limit) + close
          + " Create it first with a limit of at least " + largest + " (" + create(topic, survey.servers())
          + " --config max.message.bytes=" + largest + "), or lower the sinks' max.request.size to at most " + limit
          + " (the job then dead-letters or refuses what could be larger).");
      return;
    }
    ConfigEntry partitions = broker.get(NUM_PARTITIONS);
    warnings.add(missing + " (yet): " + created + ": " + NUM_PARTITIONS + " "
        + (partitions == null ? "unknown" : partitions.value()) + ", max.message.bytes "
        + (limit == null ? "unknown (" + MESSAGE_MAX_BYTES + " not shown)" : limit + " (" + MESSAGE_MAX_BYTES + ")")
        + "." + close + " To choose them, create it first: " + create(topic, survey.servers()) + ".");
  }

  /** " Topics with a close name: 'a', 'b'." for the existing topics close to {@code topic}; empty if none. */
  private static String closeNames(String topic, TopicSurvey survey) {
    List<String> close = similar(topic, survey.names());
    return close.isEmpty() ? ""
        : " Topics with a close name: " + String.join(", ", close.stream().map(n -> "'" + n + "'").toList()) + ".";
  }

  /** The command that creates {@code topic}. */
  private static String create(String topic, String servers) {
    return "kafka-topics.sh --bootstrap-server " + servers + " --create --topic " + topic + " --partitions N";
  }

  /** Where a broker config's value comes from, in words: "Kafka's default on broker 1", "set on the broker". */
  private static String brokerSource(ConfigEntry e, String broker) {
    return (e.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG ? "Kafka's default on " : "set on ") + broker;
  }

  /**
   * The names among {@code names} close to {@code topic} (not {@code topic} itself): equal ignoring case, or at most
   * {@link #MAX_EDITS} edits away; the closest first, at most {@link #MAX_SUGGESTIONS}.
   */
  static List<String> similar(String topic, Set<String> names) {
    return names.stream().filter(n -> !n.equals(topic))
        .filter(n -> n.equalsIgnoreCase(topic) || edits(n, topic, MAX_EDITS) <= MAX_EDITS)
        .sorted(Comparator.comparingInt((String n) -> n.equalsIgnoreCase(topic) ? 0 : edits(n, topic, MAX_EDITS))
            .thenComparing(Comparator.naturalOrder()))
        .limit(MAX_SUGGESTIONS).toList();
  }

  /**
   * The edit (Levenshtein) distance of {@code a} and {@code b}: single-character inserts, deletes and replacements;
   * {@code max + 1} once it exceeds {@code max} (commons-text's bounded {@link LevenshteinDistance}, which stops
   * there).
   */
  static int edits(String a, String b, int max) {
    int distance = new LevenshteinDistance(max).apply(a, b);
    return distance < 0 ? max + 1 : distance;
  }
}
