package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A reported item as a value: byte items compare and hash by their bytes, and decode as UTF-8 on request. */
class HeavyHitterValueTest {

    /** The record's own equals compared byte[] items by identity: two reports of one byte item were unequal. */
    @Test
    void byteItemsCompareAndHashByContent() {
        HeavyHitter a = new HeavyHitter(new byte[] {1, 2, 3}, 5, 4, 5);
        HeavyHitter b = new HeavyHitter(new byte[] {1, 2, 3}, 5, 4, 5);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(new HashSet<>(List.of(a, b))).hasSize(1);
        assertThat(a).isNotEqualTo(new HeavyHitter(new byte[] {1, 2, 4}, 5, 4, 5))
                .isNotEqualTo(new HeavyHitter(new byte[] {1, 2, 3}, 5, 3, 5))
                .isNotEqualTo(new HeavyHitter(3L, 5, 4, 5));
        // the same item reported by two trackers fed alike
        SpaceSaving first = SpaceSaving.withCapacity(KeyKind.bytes(16), 10, 1);
        SpaceSaving second = SpaceSaving.withCapacity(KeyKind.bytes(16), 10, 1);
        byte[] alice = "alice".getBytes(StandardCharsets.UTF_8);
        first.update(alice, 0, alice.length, 3);
        second.update(alice.clone(), 0, alice.length, 3);
        assertThat(first.topK(1)).isEqualTo(second.topK(1));
        // other items as before
        assertThat(new HeavyHitter(7L, 2, 1, 2)).isEqualTo(new HeavyHitter(7L, 2, 1, 2))
                .hasSameHashCodeAs(new HeavyHitter(7L, 2, 1, 2));
        FiveTuple flow = FiveTuple.ipv4(1, 2, 3, 4, 6);
        assertThat(new HeavyHitter(flow, 2, 1, 2)).isEqualTo(new HeavyHitter(FiveTuple.ipv4(1, 2, 3, 4, 6), 2, 1, 2));
    }

    @Test
    void aByteItemDecodesAsUtf8() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.bytes(32), 10, 1);
        byte[] text = "zürich – 東京".getBytes(StandardCharsets.UTF_8);
        ss.update(text, 0, text.length, 2);
        assertThat(ss.topK(1).get(0).itemAsUtf8()).isEqualTo("zürich – 東京");
        assertThatThrownBy(() -> new HeavyHitter(7L, 2, 1, 2).itemAsUtf8())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("itemAsUtf8() decodes a byte[] item (a tracker of KeyKind.bytes), this item is a Long: 7");
    }
}
