package io.linerate.jobs.heavyhitters;

import java.util.ArrayList;

import io.linerate.flink.heavyhitters.HeavyHitterDetector;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.heavyhitters.ReportedItem;
import io.linerate.flink.heavyhitters.TrackerKind;
import io.linerate.jobs.format.JsonSerialization;
import io.linerate.jobs.format.OutputJson;

/**
 * The most items a report can list and the most bytes its JSON can take, so that a configuration whose reports a
 * Kafka sink could not write fails when the job is built. Without the check the sink refuses such a report
 * ({@code RecordTooLargeException}), the job fails, and the restored job emits the same report again.
 *
 * <p>Items per report: the top k and every item whose upper bound reaches φ·N. In a tumbling window the tracker is
 * one Space-Saving summary whose counters (the upper bounds) add up to N, so at most ⌊1/φ⌋ of them reach φ·N and a
 * report lists at most {@code k + ⌊1/φ⌋} items (counted as {@code k + ⌈1/φ⌉}, safe from rounding). A sliding
 * window merges its sub-windows' summaries, where upper bounds can add up to more than N; there the bound is the
 * tracker's capacity m, as with CM-heap trackers (their candidates' counts start at over-estimates). Either way at
 * most m.
 */
final class ReportSize {

  private ReportSize() {
  }

  /** The most items a report of {@code detector} can list (see the class comment). */
  static long maxItems(HeavyHitterDetector<?, ?> detector) {
    long m = detector.capacity();
    if (!detector.slide().equals(detector.windowSize()) || detector.trackerKind() != TrackerKind.SPACE_SAVING) {
      return m; // merged summaries, or CM-heap candidates admitted at over-estimates: counts may add up to > N
    }
    // ⌈1/φ⌉ ≥ ⌊1/φ⌋ even where 1/φ rounds below an integer (1 / 1e-5 = 99999.99999999999)
    return Math.min(m, detector.k() + (long) Math.ceil(1 / detector.phi()));
  }

  /**
   * An upper bound of the JSON bytes of a report of {@code items} items, measured with the job's own serializer on
   * the widest values: every number at its most digits, the item text at {@link PacketItem#longestText()}.
   */
  static long maxBytes(long items, PacketItem item, double phi) {
    JsonSerialization<HeavyHitterReport<Integer>> json = OutputJson.heavyHitterReports();
    String text = item.longestText();
    long empty = json.serialize(widest(0, text, phi)).length;
    long perItem = json.serialize(widest(2, text, phi)).length - json.serialize(widest(1, text, phi)).length;
    return empty + items * perItem; // perItem counts the separating comma the first item does not have

  }

  /** A report of {@code items} items with text {@code itemText}, every number at its most digits. */
  static HeavyHitterReport<Integer> widest(int items, String itemText, double phi) {
    HeavyHitterReport<Integer> r = new HeavyHitterReport<>();
    r.key = Integer.MIN_VALUE;
    r.windowStart = Long.MIN_VALUE;
    r.windowEnd = Long.MIN_VALUE;
    r.totalWeight = Long.MIN_VALUE;
    r.phi = phi;
    r.unmonitoredBound = Long.MIN_VALUE;
    r.complete = false;
    r.items = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      r.items.add(new ReportedItem(itemText, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, false));
    }
    return r;
  }
}
