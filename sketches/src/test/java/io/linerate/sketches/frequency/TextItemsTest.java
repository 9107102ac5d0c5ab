package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code update(CharSequence, weight)}: a string is counted as its UTF-8 bytes in a tracker of
 * {@code KeyKind.bytes}, the same item as those bytes given to {@code update(byte[], ..)}; a tracker of another
 * kind refuses it naming the kind it needs.
 */
class TextItemsTest {

    private static List<HeavyHitters> byteTrackers() {
        return List.of(SpaceSaving.withCapacity(KeyKind.bytes(16), 10, 7),
                CountMinHeap.create(KeyKind.bytes(16), 10, 101, 4, true, 7));
    }

    @Test
    void aStringIsTheSameItemAsItsUtf8Bytes() {
        List<HeavyHitters> byText = byteTrackers();
        List<HeavyHitters> byBytes = byteTrackers();
        String[] stream = {"zürich", "東京", "zürich", "oslo", "zürich", "東京"};
        for (int t = 0; t < byText.size(); t++) {
            for (String s : stream) {
                byText.get(t).update(new StringBuilder(s), 2); // any CharSequence
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                byBytes.get(t).update(utf8, 0, utf8.length, 2);
                assertThat(byText.get(t).lastItemHash()).isEqualTo(byBytes.get(t).lastItemHash());
            }
            assertThat(byText.get(t).toByteArray()).isEqualTo(byBytes.get(t).toByteArray());
            assertThat(byText.get(t).topK(3)).extracting(HeavyHitter::itemAsUtf8)
                    .containsExactly("zürich", "東京", "oslo");
        }
    }

    @Test
    void aTrackerOfAnotherKindRefusesTextNamingTheKindItNeeds() {
        for (HeavyHitters tracker : List.of(SpaceSaving.withCapacity(KeyKind.longs(), 10, 7),
                CountMinHeap.create(KeyKind.fiveTuples(), 10, 101, 4, true, 7))) {
            assertThatThrownBy(() -> tracker.update("alice", 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("update(CharSequence) counts a string as its UTF-8 bytes and needs a"
                            + " tracker of KeyKind.bytes(maxBytes); this tracker keeps ");
            assertThat(tracker.totalWeight()).isZero();
        }
        HeavyHitters small = SpaceSaving.withCapacity(KeyKind.bytes(4), 10, 7);
        assertThatThrownBy(() -> small.update("zürich", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key length 7 exceeds maxBytes 4");
    }
}
