package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;

import io.linerate.jobs.format.EventRecordSize;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.format.MalformedRecordException;
import io.linerate.jobs.format.OutputJson;
import org.junit.jupiter.api.Test;

/** An event is refused exactly when one of its output records could be longer than the sinks can write. */
class OutputSizeCheckTest {

  private static final int LIMIT = 4_000;
  private final ScopedEventFormat events = new ScopedEventFormat(JsonEventFormat.builder().keyField("id")
      .timestampField("ts").build(), null, "all");
  private final OutputSizeCheck check = new OutputSizeCheck(events, LIMIT);

  private static byte[] event(String key, int padding) {
    return ("{\"id\":\"" + key + "\",\"ts\":1763720000000,\"pad\":\"" + "x".repeat(padding) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void eventsWhoseOutputFitsPassAndTheOthersAreMalformed() throws Exception {
    byte[] small = event("a", 2_000);
    ScopedEvent passed = check.decode(small);
    assertThat(OutputJson.probableDuplicates().serialize(passed.event).length).isLessThanOrEqualTo(LIMIT);
    // the largest padding that passes, then one byte more
    int largest = LIMIT - EventRecordSize.MAX_REASON_BYTES - 200;
    while (EventRecordSize.of(events.decode(event("a", largest + 1)).event, event("a", largest + 1).length) <= LIMIT) {
      largest++;
    }
    int fits = largest;
    check.decode(event("a", fits));
    MalformedRecordException e = catchThrowableOfType(MalformedRecordException.class,
        () -> check.decode(event("a", fits + 1)));
    assertThat(e.reason()).startsWith("event too large for the output: its output record may take ")
        .contains("more than the " + LIMIT + " the Kafka sinks can write (the smaller of max.request.size and buffer.memory");
    assertThat(e.offset()).isEqualTo(-1);
    // a long key counts too: the envelope holds it twice
    assertThat(catchThrowableOfType(MalformedRecordException.class, () -> check.decode(event("k".repeat(1_500),
        fits - 1_500)))).isNotNull();
  }
}
