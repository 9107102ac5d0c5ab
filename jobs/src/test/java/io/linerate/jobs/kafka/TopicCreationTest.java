package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TopicCreation's wait for leaders against the embedded KRaft broker. One broker always knows the topics it has
 * just created, so the race of a larger cluster (one broker's describe knows a new topic, the next describe asks
 * another that does not yet: UnknownTopicOrPartitionException) is played with a topic that does not exist yet:
 * the real broker answers the same exception, which the wait must take for "not yet" wherever it comes from.
 */
class TopicCreationTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private static Admin admin;

  @BeforeAll
  static void connect() {
    admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()));
  }

  @AfterAll
  static void disconnect() {
    admin.close();
  }

  /** A topic the broker does not know is "not yet", not a failure, and the partitions with leaders are not named. */
  @Test
  void aTopicTheBrokerDoesNotKnowYetIsAskedForAgain() throws Exception {
    TopicCreation.create(admin, Duration.ofSeconds(30), 2, "led");
    assertThat(TopicCreation.withoutServingLeader(admin, Duration.ofSeconds(10), List.of("led"))).isEmpty();
    assertThat(TopicCreation.withoutServingLeader(admin, Duration.ofSeconds(10), List.of("led", "not-yet")))
        .containsExactly("not-yet (UnknownTopicOrPartitionException)");
  }

  /** A wait that times out names what still has no leader (it said only "no answer within …"). */
  @Test
  void aLeaderWaitThatTimesOutNamesWhatHasNoLeader() {
    TopicCreation.create(admin, Duration.ofSeconds(30), 1, "served");
    assertThatThrownBy(() -> TopicCreation.awaitLeaders(admin, Duration.ofMillis(500), List.of("served", "never")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("have no leader that serves them: never (UnknownTopicOrPartitionException)")
        .hasMessageNotContaining("served (");
  }

  /** The wait returns once a topic another client creates meanwhile has its leaders. */
  @Test
  void theWaitEndsWhenTheTopicAppears() throws Exception {
    CompletableFuture<Void> waited = CompletableFuture.runAsync(
        () -> TopicCreation.awaitLeaders(admin, Duration.ofSeconds(60), List.of("appearing")));
    admin.createTopics(List.of(new NewTopic("appearing", 3, (short) 1))).all().get(60, TimeUnit.SECONDS);
    waited.get(60, TimeUnit.SECONDS);
    assertThat(TopicCreation.withoutServingLeader(admin, Duration.ofSeconds(10), List.of("appearing"))).isEmpty();
  }
}
