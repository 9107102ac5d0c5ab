package io.linerate.jobs.kafka;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigTransformer;

/**
 * Kafka config-provider placeholders ({@code ${provider:[path:]key}}, e.g. {@code ${env:KAFKA_LINGER}} or
 * {@code ${file:/etc/kafka/client.properties:linger}}) in client properties. Kafka's clients replace them when they
 * are created, through the providers {@code config.providers} names ({@code config.providers.<name>.class}); the
 * builders check the values so resolved, by resolving them here the same way ({@link AbstractConfig} with the
 * configured providers), and hand the client the placeholders, not the values (a secret stays out of the job graph).
 */
final class ConfigProviders {

  private ConfigProviders() {
  }

  /** Whether {@code value} holds a placeholder, as Kafka's {@link ConfigTransformer} finds them. */
  static boolean hasPlaceholder(String value) {
    return value != null && ConfigTransformer.DEFAULT_PATTERN.matcher(value).find();
  }

  /**
   * The properties as Kafka's client will see them, resolved by the providers of {@code config.providers}. Kafka
   * leaves a placeholder it cannot resolve as it is: this one does too, and lists its property in
   * {@link Resolved#unresolved} (a file or variable that exists where the tasks run need not exist where the job is
   * built), with why.
   *
   * @throws IllegalArgumentException naming the property if a value holds a placeholder but {@code config.providers}
   *     is not set, or does not name the placeholder's provider: Kafka would take the text itself as the value
   */
  static Resolved resolve(Map<String, String> properties) {
    List<String> keys = new ArrayList<>();
    properties.forEach((key, value) -> {
      if (hasPlaceholder(value)) {
        keys.add(key);
      }
    });
    if (keys.isEmpty()) {
      return new Resolved(properties, Map.of());
    }
    Set<String> providers = new LinkedHashSet<>();
    String configured = properties.get(AbstractConfig.CONFIG_PROVIDERS_CONFIG);
    if (configured != null) {
      for (String name : configured.split(",")) {
        if (!name.isBlank()) {
          providers.add(name.trim());
        }
      }
    }
    for (String key : keys) {
      Matcher m = ConfigTransformer.DEFAULT_PATTERN.matcher(properties.get(key));
      while (m.find()) {
        if (providers.isEmpty()) {
          throw new IllegalArgumentException(key + " is a config provider placeholder (" + m.group()
              + "), which needs config.providers: without it Kafka takes the text as the value (set config.providers="
              + m.group(1) + " and config.providers." + m.group(1) + ".class, e.g. "
              + "org.apache.kafka.common.config.provider.EnvVarConfigProvider or FileConfigProvider)");
        }
        if (!providers.contains(m.group(1))) {
          throw new IllegalArgumentException(key + " is a placeholder of the config provider '" + m.group(1) + "' ("
              + m.group() + "), which config.providers (" + configured + ") does not name: Kafka would take the "
              + "text as the value");
        }
      }
    }
    Map<String, String> resolved = new LinkedHashMap<>(properties);
    Map<String, String> unresolved = new LinkedHashMap<>();
    try {
      // Kafka's own resolution: the client's config class does exactly this before it parses any value
      Map<String, Object> values = new AbstractConfig(new ConfigDef(), properties, false).originals();
      for (String key : keys) {
        Object value = values.get(key);
        resolved.put(key, String.valueOf(value));
        if (hasPlaceholder(String.valueOf(value))) {
          unresolved.put(key, "its provider has no value for it here");
        }
      }
    } catch (KafkaException e) { // ConfigException among them: a file not readable here, a provider not loadable
      for (String key : keys) {
        unresolved.put(key, "the config providers cannot resolve it here: " + e.getMessage());
      }
    }
    return new Resolved(Collections.unmodifiableMap(resolved), Collections.unmodifiableMap(unresolved));
  }

  /**
   * Checks, with {@code check(key, value)}, every property of {@code properties} set as a placeholder, resolved as
   * the {@code client} will resolve it; one that cannot be resolved here is left to the client, with a warning
   * (the others are checked as they are set).
   *
   * @throws IllegalArgumentException naming the property and its placeholder if its resolved value fails the check
   */
  static void checkResolved(Map<String, String> properties, Resolved resolved, BiConsumer<String, String> check,
                            String client, org.slf4j.Logger log) {
    properties.forEach((key, value) -> {
      if (!hasPlaceholder(value)) {
        return;
      }
      if (!resolved.known(key)) {
        log.warn("{} ({}) is not checked before the job runs: {}; Kafka's {} resolves it when it is created", key,
            ClientProperties.shown(key, value), resolved.unresolved().get(key), client);
        return;
      }
      try {
        check.accept(key, resolved.values().get(key));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(key + " (" + ClientProperties.shown(key, value) + ", resolved by its "
            + "config provider): " + e.getMessage(), e);
      }
    });
  }

  /**
   * Resolved properties.
   *
   * @param values every property, with the placeholders Kafka's providers resolve here replaced
   * @param unresolved the properties whose placeholders could not be resolved here, each with why: their values
   *     cannot be checked before the client resolves them where the job runs
   */
  record Resolved(Map<String, String> values, Map<String, String> unresolved) {

    /** Whether {@code key}'s value is known here (set without a placeholder, or resolved). */
    boolean known(String key) {
      return !unresolved.containsKey(key);
    }
  }
}
