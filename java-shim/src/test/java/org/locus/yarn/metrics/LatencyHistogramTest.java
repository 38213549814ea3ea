package org.locus.yarn.metrics;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class LatencyHistogramTest {
  @Test
  public void percentilesOfAWindowAreWithinABucketAboveTheTrueValue() {
    LatencyHistogram h = new LatencyHistogram();
    // 1..1000 us: the true p50 is 500, p99 990.
    for (long v = 1; v <= 1000; v++) {
      h.add(v);
    }
    h.roll();
    assertEquals(1000, h.windowOps());
    long[] p = h.windowPercentiles();
    long[] truth = {500, 750, 900, 950, 990};
    for (int i = 0; i < truth.length; i++) {
      assertTrue(LatencyHistogram.PERCENTILES[i] + "th: " + p[i],
          p[i] >= truth[i] && p[i] <= truth[i] + truth[i] / 16);
    }
  }

  @Test
  public void smallValuesAreExactAndAWindowForgetsTheOneBefore() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 99; i++) {
      h.add(3);
    }
    h.add(7);
    h.roll();
    assertArrayEquals(new long[] {3, 3, 3, 3, 3}, h.windowPercentiles());
    h.add(12);
    h.roll();
    assertEquals(1, h.windowOps());
    assertArrayEquals(new long[] {12, 12, 12, 12, 12}, h.windowPercentiles());
    h.roll();
    assertEquals(0, h.windowOps());
    assertArrayEquals(new long[] {0, 0, 0, 0, 0}, h.windowPercentiles());
  }

  @Test
  public void everyValueFallsInABucketThatHoldsIt() {
    long[] samples = {0, 1, 15, 16, 17, 31, 32, 33, 1000, 123_456_789, Long.MAX_VALUE, -5};
    for (long v : samples) {
      int b = LatencyHistogram.bucket(Math.max(0, v));
      assertTrue(v + " in bucket " + b, b >= 0 && b < 1024);
      assertTrue(v + " <= upper bound", Math.max(0, v) <= LatencyHistogram.upperBound(b));
      assertTrue(v + " above the bucket below",
          b == 0 || Math.max(0, v) > LatencyHistogram.upperBound(b - 1));
    }
  }
}
