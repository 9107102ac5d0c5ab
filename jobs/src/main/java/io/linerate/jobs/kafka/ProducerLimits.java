package io.linerate.jobs.kafka;

import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/**
 * A Kafka producer's record limits and value checks, with nothing of Flink: the feeders run from the job jar, which
 * carries no Flink runtime, and use these as the jobs' sinks do ({@link ExactlyOnceSink} delegates here).
 */
public final class ProducerLimits {

  /**
   * Bytes a record adds to its key and value in the producer's size estimate
   * ({@code AbstractRecords.estimateSizeInBytesUpperBound} of a record without key, value and headers, plus the 4
   * bytes of its value length).
   */
  public static final int RECORD_OVERHEAD = AbstractRecords.estimateSizeInBytesUpperBound(
      RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, (byte[]) null, new byte[0], Record.EMPTY_HEADERS) + 4;

  /** What {@link #checkProducerValue}'s messages call a feeder's producer. */
  public static final String FEEDER = "for the feeder's producer (it is idempotent)";

  private ProducerLimits() {
  }

  /**
   * The longest record value a producer with {@code properties} sends: the smaller of its {@code max.request.size}
   * and {@code buffer.memory} (as set, config-provider placeholders resolved, else Kafka's defaults) less
   * {@link #RECORD_OVERHEAD}.
   *
   * @throws IllegalArgumentException naming the property if either is a placeholder that cannot be resolved here
   */
  public static int maxValueBytes(Map<String, String> properties) {
    return maxValueBytes(properties, "here", "");
  }

  /**
   * {@link #maxValueBytes(Map)}, its refusal of an unresolvable placeholder saying {@code where} the value was needed
   * and {@code why} (empty, or a clause starting with ": ").
   */
  static int maxValueBytes(Map<String, String> properties, String where, String why) {
    ConfigProviders.Resolved resolved = ConfigProviders.resolve(properties);
    long maxRequest = ((Number) sizeSetting(properties, resolved, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, where, why))
        .longValue();
    long buffer = ((Number) sizeSetting(properties, resolved, ProducerConfig.BUFFER_MEMORY_CONFIG, where, why))
        .longValue();
    return (int) Math.min(maxRequest, buffer) - RECORD_OVERHEAD;
  }

  /**
   * {@link #effective} of a setting the record-size checks need ({@code max.request.size}, {@code buffer.memory}):
   * unlike other properties, an unresolvable placeholder cannot be left to the producer with a warning.
   *
   * @throws IllegalArgumentException naming {@code key} if it is a placeholder that cannot be resolved here
   */
  static Object sizeSetting(Map<String, String> properties, ConfigProviders.Resolved resolved, String key,
                            String where, String why) {
    if (!resolved.known(key)) {
      throw new IllegalArgumentException(key + " (" + properties.get(key) + ") cannot be resolved " + where + " ("
          + resolved.unresolved().get(key) + "), but the record-size checks need its value " + where + why
          + "; give the number, or make its config provider resolvable " + where + " too");
    }
    return effective(resolved, key);
  }

  /**
   * The value a producer takes for {@code key}: as set (its placeholders resolved; the caller checks they are), else
   * Kafka's default.
   */
  static Object effective(ConfigProviders.Resolved resolved, String key) {
    ConfigDef.ConfigKey def = ProducerConfig.configDef().configKeys().get(key);
    String set = resolved.values().get(key);
    return set != null ? ConfigDef.parseType(key, set, def.type) : def.defaultValue;
  }

  /**
   * {@code value} parsed and validated as Kafka's {@code client} (its {@code config}) would when it is created, or
   * null for a key it does not know or a class name (left to the class loader where the client runs).
   *
   * @throws IllegalArgumentException naming the key and the value if Kafka would refuse it
   */
  static Object clientValue(ConfigDef config, String key, String value, String client) {
    ConfigDef.ConfigKey def = config.configKeys().get(key);
    if (def == null || def.type == ConfigDef.Type.CLASS) {
      return null;
    }
    try {
      Object parsed = ConfigDef.parseType(key, value, def.type);
      if (def.validator != null) {
        def.validator.ensureValid(key, parsed);
      }
      return parsed;
    } catch (ConfigException e) {
      throw new IllegalArgumentException(key + " is not a value Kafka's " + client + " takes: " + e.getMessage(), e);
    }
  }

  /**
   * Refuses a producer property value Kafka's producer would refuse when it is created: one that does not parse or
   * is out of range (for the properties Kafka knows; class names are left to the class loader), and the settings an
   * idempotent (or transactional) producer cannot run with. A config-provider placeholder is not checked here.
   *
   * @param whose what the message says the producer is, e.g. "for the exactly-once sink (its producer is
   *     transactional, so idempotent)"
   * @throws IllegalArgumentException naming the property
   */
  public static void checkProducerValue(String key, String value, String whose) {
    if (ConfigProviders.hasPlaceholder(value)) {
      return;
    }
    Object parsed = clientValue(ProducerConfig.configDef(), key, value, "producer");
    if (parsed == null) {
      return;
    }
    String idempotent = " " + whose + ", got " + value;
    if (key.equals(ProducerConfig.ACKS_CONFIG) && !parsed.toString().trim().equalsIgnoreCase("all")
        && !parsed.toString().trim().equals("-1")) {
      throw new IllegalArgumentException(key + " must be all (or -1)" + idempotent);
    }
    if (key.equals(ProducerConfig.RETRIES_CONFIG) && ((Number) parsed).intValue() < 1) {
      throw new IllegalArgumentException(key + " must be >= 1" + idempotent);
    }
    if (key.equals(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) && ((Number) parsed).intValue() > 5) {
      throw new IllegalArgumentException(key + " must be <= 5" + idempotent);
    }
  }
}
