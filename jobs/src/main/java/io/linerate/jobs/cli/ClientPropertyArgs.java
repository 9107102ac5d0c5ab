package io.linerate.jobs.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.linerate.jobs.kafka.ClientProperties;
import io.linerate.jobs.kafka.ClientProperties.Client;
import io.linerate.jobs.kafka.KafkaJobOptions;
import io.linerate.jobs.kafka.ProducerLimits;

/**
 * The Kafka client properties of the command line ({@code --kafka-config}, {@code --kafka-property},
 * {@code --consumer-property}, {@code --producer-property}): {@code KEY=VALUE} arguments and properties files read,
 * and each property checked when it is given, for the clients it reaches: a key the command sets itself is refused
 * saying which option sets it or why the command owns it, a value the client would refuse is refused naming the
 * key. No message shows a secret value ({@link ClientProperties#secret}). Errors are {@link IllegalArgumentException}s
 * whose message starts with the option; {@link KafkaOptions} turns them into parameter errors.
 */
final class ClientPropertyArgs {

  private ClientPropertyArgs() {
  }

  /** A {@code KEY=VALUE} argument split at its first '='. */
  record Property(String key, String value) {
  }

  /**
   * {@code argument} split at its first '=', the key trimmed.
   *
   * @throws IllegalArgumentException naming {@code option} if there is no '=' or no key before it; the argument is
   *     not shown (it may hold a secret)
   */
  static Property parse(String option, String argument) {
    int eq = argument.indexOf('=');
    if (eq < 0) {
      throw new IllegalArgumentException(option + " must be KEY=VALUE, got an argument without '=' (not shown: it "
          + "may hold a secret)");
    }
    String key = argument.substring(0, eq).trim();
    if (key.isEmpty()) {
      throw new IllegalArgumentException(option + " must be KEY=VALUE with a key before the '=', got none");
    }
    return new Property(key, argument.substring(eq + 1));
  }

  /**
   * The properties of a Java properties file (as Kafka's tools read {@code --command-config}), by key.
   *
   * @throws IllegalArgumentException naming the option and the file if it cannot be read, or holds an empty key
   */
  static Map<String, String> read(String option, Path file) {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(option + ": cannot read " + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw new IllegalArgumentException(option + ": cannot read " + file + ": permission denied");
    } catch (IOException | IllegalArgumentException e) { // a folder; a malformed \\uXXXX escape
      throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getMessage());
    }
    Map<String, String> out = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      if (key.isBlank()) {
        throw new IllegalArgumentException(option + " " + file + ": a property has an empty key");
      }
      out.put(key, p.getProperty(key));
    }
    return out;
  }

  /** Who the properties of an option reach, and so which keys it may not set. */
  enum Reach {
    /** Every client of a job: its consumer, its sinks' producers and its admin clients. */
    JOB_CLIENTS,
    /** A job's consumer. */
    JOB_CONSUMER,
    /** A job's sinks' producers. */
    JOB_PRODUCERS,
    /** A feeder's producer (and nothing else: a feeder has no other client). */
    FEEDER_PRODUCER;

    boolean reaches(Client client) {
      return switch (this) {
        case JOB_CLIENTS -> true;
        case JOB_CONSUMER -> client == Client.CONSUMER;
        case JOB_PRODUCERS, FEEDER_PRODUCER -> client == Client.PRODUCER;
      };
    }
  }

  /** A key a job or a feeder sets itself: the client it is for (null: every client), and what to do instead. */
  private record Owned(Client client, String why) {
  }

  private static final Map<String, Owned> OWNED = new LinkedHashMap<>();

  static {
    own("bootstrap.servers", null, "has its own option: use --bootstrap-servers");
    own("group.id", Client.CONSUMER, "is the job's: its consumer group is linerate-JOB, or linerate-JOB.NAME with "
        + "--job-name NAME (name the job instead)");
    own("isolation.level", Client.CONSUMER, "is read_committed for exactly-once input and cannot be changed");
    own("auto.offset.reset", Client.CONSUMER, "is set by Flink's Kafka source: a fresh start reads from the earliest "
        + "offsets, a restored job from its checkpoint's");
    own("key.deserializer", Client.CONSUMER, "is the job's: it decodes the records' bytes itself");
    own("value.deserializer", Client.CONSUMER, "is the job's: it decodes the records' bytes itself");
    own("transactional.id", Client.PRODUCER, "is the job's: the sinks' transactional ids are made of the job's kind, "
        + "--job-name and the topic, stable across restarts");
    own("transaction.timeout.ms", Client.PRODUCER, "has its own option: use --transaction-timeout");
    own("enable.idempotence", Client.PRODUCER, "stays true: the sinks' producers are transactional");
    own("key.serializer", Client.PRODUCER, "is the sinks': Flink's Kafka sink serializes the records itself");
    own("value.serializer", Client.PRODUCER, "is the sinks': Flink's Kafka sink serializes the records itself");
  }

  private static void own(String key, Client client, String why) {
    OWNED.put(key, new Owned(client, why));
  }

  /**
   * Refuses {@code key} if the clients {@code reach} names set it themselves, and {@code value} if one of them would
   * refuse it (the jobs' builders' checks: {@link KafkaJobOptions#checkClientProperty} and its kin).
   *
   * @throws IllegalArgumentException starting with {@code option}, naming the key; a secret value is not shown
   */
  static void check(String option, Reach reach, String key, String value) {
    Owned owned = OWNED.get(key);
    if (owned != null && (owned.client() == null || reach.reaches(owned.client()))) {
      String why = owned.why();
      if (reach == Reach.FEEDER_PRODUCER && owned.client() != null) {
        why = "is the feeder's own: its producer is idempotent, not transactional, and writes bytes";
      }
      throw new IllegalArgumentException(option + ": " + key + " " + why);
    }
    try {
      switch (reach) {
        case JOB_CLIENTS -> KafkaJobOptions.checkClientProperty(key, value);
        case JOB_CONSUMER -> KafkaJobOptions.checkSourceProperty(key, value);
        case JOB_PRODUCERS -> KafkaJobOptions.checkSinkProperty(key, value);
        // the feeders run from the job jar without Flink: the Flink-free producer checks
        case FEEDER_PRODUCER -> ProducerLimits.checkProducerValue(key, value, ProducerLimits.FEEDER);
        default -> throw new AssertionError(reach);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + hidden(key, value, e.getMessage()), e);
    }
  }

  /**
   * Refuses a key that only other clients than {@code reach}'s know ({@code linger.ms} given to the consumer): its
   * client would ignore it with no more than a logged warning. A key no Kafka client knows (a plugin's own) passes.
   * For the options of one client ({@code --consumer-property}, {@code --producer-property}); those of every client
   * (and a feeder's {@code --kafka-config}, which may be shared with consumers) give each client what it knows.
   *
   * @throws IllegalArgumentException starting with {@code option}, naming the key and the option that takes it
   */
  static void requireKnownTo(String option, Reach reach, String key) {
    Client client = switch (reach) {
      case JOB_CLIENTS -> null;
      case JOB_CONSUMER -> Client.CONSUMER;
      case JOB_PRODUCERS, FEEDER_PRODUCER -> Client.PRODUCER;
    };
    EnumSet<Client> knowing = ClientProperties.knowing(key);
    if (client == null || knowing.isEmpty() || knowing.contains(client)) {
      return;
    }
    String other = knowing.contains(Client.PRODUCER) ? "--producer-property"
        : knowing.contains(Client.CONSUMER) ? "--consumer-property" : "--kafka-property";
    String others = knowing.stream().map(c -> c.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(" and "));
    String mine = client == Client.CONSUMER ? "consumer" : "producer";
    throw new IllegalArgumentException(option + ": " + key + " is a setting of the " + others + ", not of the "
        + mine + " (which would ignore it)" + (reach == Reach.FEEDER_PRODUCER ? "" : ": use " + other));
  }

  /** {@code message} with a secret {@code value} of {@code key} replaced by {@link ClientProperties#HIDDEN}. */
  static String hidden(String key, String value, String message) {
    return ClientProperties.secret(key) && !value.isEmpty() ? message.replace(value, ClientProperties.HIDDEN)
        : message;
  }
}
