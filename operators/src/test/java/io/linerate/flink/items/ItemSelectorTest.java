package io.linerate.flink.items;

import io.linerate.sketches.frequency.HeavyHitter;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ItemSelectorTest {

    private static final ItemHasher HASHER = ItemHasher.seeded(7);

    @Test
    void stringItemsAreTrackedAsUtf8AndPresentedAsStrings() {
        ItemSelector<String> selector = ItemSelector.strings(s -> s, 16);
        SpaceSaving tracker = SpaceSaving.withCapacity(selector.keyKind(), 8, 1);
        selector.addTo(tracker, "ascii", 3);
        selector.addTo(tracker, "grüße", 2); // not ASCII: the allocating path
        List<HeavyHitter> top = tracker.topK(2);
        assertThat(top).extracting(h -> selector.present(h.item())).containsExactly("ascii", "grüße");
        assertThat(selector.itemOf("ascii")).isEqualTo("ascii");
    }

    @Test
    void itemsLongerThanMaxBytesAreRejectedNamingTheLimit() {
        ItemSelector<String> text = ItemSelector.strings(s -> s, 4);
        SpaceSaving tracker = SpaceSaving.withCapacity(text.keyKind(), 8, 1);
        assertThatThrownBy(() -> text.addTo(tracker, "12345", 1)).hasMessageContaining("maxBytes 4");
        assertThatThrownBy(() -> text.addTo(tracker, "üüü", 1)).hasMessageContaining("maxBytes 4");
        ItemSelector<byte[]> bytes = ItemSelector.bytes(b -> b, 2);
        assertThatThrownBy(() -> bytes.addTo(SpaceSaving.withCapacity(bytes.keyKind(), 8, 1), new byte[3], 1))
                .hasMessageContaining("maxBytes 2");
        assertThatThrownBy(() -> ItemSelector.bytes(b -> (byte[]) b, 0)).hasMessageContaining("maxBytes");
    }

    @Test
    void nullItemsAreRejected() {
        ItemSelector<FiveTuple> tuples = ItemSelector.fiveTuples(t -> t);
        assertThatThrownBy(() -> tuples.hash(HASHER, null)).hasMessageContaining("null");
    }

    @Test
    void eachKindHashesLikeTheSketchesDo() {
        FiveTuple tuple = FiveTuple.ipv4(1, 2, 3, 4, 6);
        assertThat(ItemSelector.<Long>longs(x -> x).hash(HASHER, 42L)).isEqualTo(HASHER.hash(42L));
        assertThat(ItemSelector.<FiveTuple>fiveTuples(t -> t).hash(HASHER, tuple)).isEqualTo(HASHER.hash(tuple));
        assertThat(ItemSelector.<String>strings(s -> s).hash(HASHER, "abc")).isEqualTo(HASHER.hash("abc"));
        byte[] raw = "abc".getBytes(StandardCharsets.UTF_8);
        assertThat(ItemSelector.<byte[]>bytes(b -> b).hash(HASHER, raw)).isEqualTo(HASHER.hash(raw));
        assertThat(ItemSelector.<byte[]>bytes(b -> b).itemOf(raw)).isEqualTo(new ItemSelector.ByteItem(raw.clone()));
    }

    @Test
    void selectorsSurviveJavaSerializationAsFlinkShipsThem() throws Exception {
        ItemSelector<String> selector = ItemSelector.strings(String::trim, 8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
            oos.writeObject(selector);
        }
        @SuppressWarnings("unchecked")
        ItemSelector<String> copy = (ItemSelector<String>) new ObjectInputStream(
                new ByteArrayInputStream(out.toByteArray())).readObject();
        assertThat(copy.hash(HASHER, " x ")).isEqualTo(HASHER.hash("x"));
        assertThat(copy.maxBytes()).isEqualTo(8);
    }
}
