package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;

/** Topics with configs of their own, for tests of what a job does with them. */
public final class ConfiguredTopics {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private ConfiguredTopics() {
  }

  /**
   * Creates {@code topic} (one partition) with {@code configs} on the broker at {@code bootstrapServers}, and returns
   * once its partition has a leader and the broker describes the topic with those values.
   */
  public static void create(String bootstrapServers, String topic, Map<String, String> configs) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      TopicCreation.awaitLeaders(admin, TIMEOUT, List.of(topic));
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!described(admin, resource, configs)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " is not described with " + configs + " after " + TIMEOUT);
        }
        Thread.sleep(20);
      }
    }
  }

  private static boolean described(Admin admin, ConfigResource resource, Map<String, String> configs)
      throws Exception {
    Config config;
    try {
      config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .get(resource);
    } catch (ExecutionException e) {
      return false; // not known to the broker's metadata yet
    }
    return configs.entrySet().stream().allMatch(c -> config.get(c.getKey()) != null
        && c.getValue().equals(config.get(c.getKey()).value()));
  }
}
