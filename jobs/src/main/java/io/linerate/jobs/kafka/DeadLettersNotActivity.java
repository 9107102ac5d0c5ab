package io.linerate.jobs.kafka;

import java.util.Objects;

import io.linerate.jobs.format.Decoded;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkAlignmentParams;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * A watermark strategy whose generators never see dead letters: {@code onEvent} is passed on for decoded values
 * only. Wrapped around a strategy {@link WatermarkStrategy#withIdleness with idleness}, so that a dead letter is not
 * input activity: a Kafka partition that receives nothing but undecodable records goes idle after the idleness,
 * like a silent one, instead of holding every partition's watermark at {@code Long.MIN_VALUE} forever.
 */
final class DeadLettersNotActivity<T> implements WatermarkStrategy<Decoded<T>> {

  private static final long serialVersionUID = 1L;

  private final WatermarkStrategy<Decoded<T>> strategy;

  DeadLettersNotActivity(WatermarkStrategy<Decoded<T>> strategy) {
    this.strategy = Objects.requireNonNull(strategy, "strategy");
  }

  @Override
  public WatermarkGenerator<Decoded<T>> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
    return new ValuesOnly<>(strategy.createWatermarkGenerator(context));
  }

  @Override
  public TimestampAssigner<Decoded<T>> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
    return strategy.createTimestampAssigner(context);
  }

  @Override
  public WatermarkAlignmentParams getAlignmentParameters() {
    return strategy.getAlignmentParameters();
  }

  /** Passes decoded values on to the generator it wraps; drops dead letters. */
  static final class ValuesOnly<T> implements WatermarkGenerator<Decoded<T>> {
    private final WatermarkGenerator<Decoded<T>> generator;

    ValuesOnly(WatermarkGenerator<Decoded<T>> generator) {
      this.generator = generator;
    }

    @Override
    public void onEvent(Decoded<T> event, long timestamp, WatermarkOutput output) {
      if (event.value != null) {
        generator.onEvent(event, timestamp, output);
      }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
      generator.onPeriodicEmit(output);
    }
  }
}
