package io.linerate.jobs.kafka;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Kafka client properties shared by the clients of a job: which client a property is for, the admin clients'
 * configuration, and which values are secrets that no message or log line may show.
 *
 * <p>A property meant for every client ({@link KafkaJobOptions#clientProperty}) reaches each client that can use it:
 * a key that some Kafka client (or Flink's Kafka source) knows but this client does not is left out (a producer is
 * not given {@code fetch.max.bytes}, an admin client no {@code linger.ms}); a key no client knows (a plugin's own,
 * {@code config.providers.<name>.class}) reaches every client.
 */
public final class ClientProperties {

  /**
   * Properties Flink's Kafka source reads itself, which Kafka's consumer does not know (the keys of Flink's
   * {@code KafkaSourceOptions}). Written out, not read from that class: the feeders use this class from the job jar,
   * which carries no Flink runtime ({@code ClientPropertiesTest} checks they match).
   */
  static final Set<String> FLINK_SOURCE_KEYS = Set.of("client.id.prefix", "partition.discovery.interval.ms",
      "register.consumer.metrics", "commit.offsets.on.checkpoint");

  /** Key names that hold secrets whatever their type: passwords, JAAS configurations, tokens, credentials. */
  private static final Pattern SECRET_NAME = Pattern.compile(".*(password|secret|jaas|token|credential|user\\.info).*");

  /** What a message shows instead of a secret value. */
  public static final String HIDDEN = "[hidden]";

  /** The clients a job creates. */
  public enum Client {
    /** The source's consumer (and Flink's Kafka source, which reads some properties itself). */
    CONSUMER,
    /** The sinks' (and feeders') producers. */
    PRODUCER,
    /** Admin clients: the bounded source's end offsets, topic creation and checks. */
    ADMIN;

    /** Whether this client (or, for the consumer, Flink's source) knows {@code key}. */
    boolean knows(String key) {
      return switch (this) {
        case CONSUMER -> ConsumerConfig.configNames().contains(key) || FLINK_SOURCE_KEYS.contains(key);
        case PRODUCER -> ProducerConfig.configNames().contains(key);
        case ADMIN -> AdminClientConfig.configNames().contains(key);
      };
    }
  }

  private ClientProperties() {
  }

  /**
   * The properties of {@code properties} that {@code client} is given: those it knows, and those no client knows
   * (a plugin's own settings, the config providers' classes), in their order.
   */
  public static Map<String, String> forClient(Client client, Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>();
    properties.forEach((key, value) -> {
      if (client.knows(key) || !knownToAnyClient(key)) {
        out.put(key, value);
      }
    });
    return out;
  }

  /** The clients that know {@code key} ({@link Client#CONSUMER}: Kafka's consumer or Flink's source), in order. */
  public static java.util.EnumSet<Client> knowing(String key) {
    java.util.EnumSet<Client> clients = java.util.EnumSet.noneOf(Client.class);
    for (Client c : Client.values()) {
      if (c.knows(key)) {
        clients.add(c);
      }
    }
    return clients;
  }

  private static boolean knownToAnyClient(String key) {
    for (Client c : Client.values()) {
      if (c.knows(key)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The configuration of an admin client of {@code bootstrapServers} with the {@code properties} it can use
   * ({@link #forClient} {@link Client#ADMIN}): {@code Admin.create(adminConfig(servers, properties))}. The jobs'
   * admin clients take {@link KafkaJobOptions#adminProperties()} (the properties of every client, security
   * settings among them), so they reach a cluster the consumer and producers reach.
   */
  public static Map<String, Object> adminConfig(String bootstrapServers, Map<String, String> properties) {
    Map<String, Object> config = new HashMap<>(forClient(Client.ADMIN, properties));
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return config;
  }

  /**
   * Whether {@code key}'s value is a secret: a password-typed setting of a Kafka client ({@code sasl.jaas.config},
   * {@code ssl.keystore.password}, …) or a key whose name says so (password, secret, jaas, token, credential).
   */
  public static boolean secret(String key) {
    for (ConfigDef def : new ConfigDef[] {ConsumerConfig.configDef(), ProducerConfig.configDef(),
        AdminClientConfig.configDef()}) {
      ConfigDef.ConfigKey k = def.configKeys().get(key);
      if (k != null && k.type == ConfigDef.Type.PASSWORD) {
        return true;
      }
    }
    return SECRET_NAME.matcher(key.toLowerCase(Locale.ROOT)).matches();
  }

  /** {@code value} as a message may show it: {@link #HIDDEN} if {@code key} holds a {@link #secret}. */
  public static String shown(String key, String value) {
    return secret(key) ? HIDDEN : value;
  }
}
