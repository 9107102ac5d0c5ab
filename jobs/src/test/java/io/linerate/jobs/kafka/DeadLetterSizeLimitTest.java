package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketBatchTypeInfo;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * maxDeadLetterBytes had no upper limit, while the dead-letter sink's producer refuses a record above its
 * max.request.size: the dead letter of a large malformed record would fail the job. The largest dead letter
 * (KafkaDecoding.maxDeadLetterJsonBytes) is now checked against what the sink can send when the job's input is
 * defined.
 */
class DeadLetterSizeLimitTest {

  /**
   * The worst dead letter KafkaDecoding can make with a limit of B: the longest topic, numbers at their longest
   * text, a reason of control characters cut with the longest note, value and key of B bytes, and 64 headers whose
   * names hold the B header bytes as control characters.
   */
  private static DeadLetter worst(int b) {
    char[] control = new char[2_000];
    Arrays.fill(control, '\u0001');
    DeadLetter d = new DeadLetter("t".repeat(249), Integer.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE,
        new String(control) + "… (reason cut: 2147483647 characters)", Long.MIN_VALUE, new byte[b], Integer.MIN_VALUE);
    String[] names = new String[KafkaDecoding.MAX_DEAD_LETTER_HEADERS];
    Arrays.fill(names, "");
    names[0] = "\u0001".repeat(b);
    // no key bytes to keep: an absent key (null, its length at 11 characters) is longer than an empty one
    d.keyAndHeaders(new byte[b], b == 0 ? -1_000_000_000 : Integer.MAX_VALUE, names, new byte[names.length][],
        Integer.MAX_VALUE);
    // an int's longest text, with headers_truncated false (longer than true); no consumer record has it, the bound
    // does not rely on that
    d.headerCount = -1_000_000_000;
    return d;
  }

  /** The bound is the JSON length of the worst letter (within 1 byte: a kept key's length has 10 digits at most, the bound counts 11). */
  @Test
  void theBoundIsTheLongestDeadLetterJson() {
    for (int b : new int[] {0, 1, 2, 3, 4096, 100_000}) {
      int json = OutputJson.deadLetters().serialize(worst(b)).length;
      assertThat((long) json).as("B = %d", b).isLessThanOrEqualTo(KafkaDecoding.maxDeadLetterJsonBytes(b))
          .isGreaterThanOrEqualTo(KafkaDecoding.maxDeadLetterJsonBytes(b) - 1);
    }
  }

  /** The largest setting that fits is taken, one more is refused naming the option and the limit. */
  @Test
  void maxDeadLetterBytesIsCheckedAgainstTheSinksLimit() {
    int limit = JsonTopics.maxValueBytes();
    int largest = KafkaDecoding.largestMaxDeadLetterBytes(limit);
    assertThat(largest).isEqualTo(119_289); // as docs/FORMATS.md says
    assertThat(KafkaDecoding.maxDeadLetterJsonBytes(largest)).isLessThanOrEqualTo(limit);
    assertThat(KafkaDecoding.maxDeadLetterJsonBytes(largest + 1)).isGreaterThan(limit);
    assertThat(OutputJson.deadLetters().serialize(worst(largest)).length).isLessThanOrEqualTo(limit);
    assertThatCode(() -> read(largest, Map.of())).doesNotThrowAnyException();
    assertThatThrownBy(() -> read(largest + 1, Map.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxDeadLetterBytes " + (largest + 1) + " is too large")
        .hasMessageContaining(limit + " bytes").hasMessageContaining("at most " + largest + " fits");
    // the sink's producer settings as configured: a larger max.request.size takes more
    Map<String, String> larger = Map.of("max.request.size", "4194304");
    int largerLimit = JsonTopics.maxValueBytes(larger);
    assertThat(largerLimit).isEqualTo(4_194_304 - ExactlyOnceSink.RECORD_OVERHEAD);
    int largestThere = KafkaDecoding.largestMaxDeadLetterBytes(largerLimit);
    assertThatCode(() -> KafkaInput.requireDeadLettersFit(decoding(largestThere), larger)).doesNotThrowAnyException();
    assertThatThrownBy(() -> KafkaInput.requireDeadLettersFit(decoding(largestThere + 1), larger))
        .hasMessageContaining(largerLimit + " bytes");
    assertThatCode(() -> read(KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES, Map.of())).doesNotThrowAnyException();
  }

  private static KafkaDecoding<?> decoding(int maxDeadLetterBytes) {
    return new KafkaDecoding<>(PacketBatchCodec.DECODER, PacketBatchTypeInfo.INSTANCE, maxDeadLetterBytes);
  }

  private static void read(int maxDeadLetterBytes, Map<String, String> sinkProperties) {
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    sinkProperties.forEach(options::sinkProperty);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    KafkaInput.read(env, new JobTopics("127.0.0.1:1", "in", "out", "dead"), "job",
        new KafkaDecoding<>(PacketBatchCodec.DECODER, PacketBatchTypeInfo.INSTANCE, maxDeadLetterBytes),
        PacketBatchTypeInfo.INSTANCE, batch -> 0L, options);
  }
}
