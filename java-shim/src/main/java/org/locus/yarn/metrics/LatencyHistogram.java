package org.locus.yarn.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Percentiles of a timing recorded on a hot thread (the RM's dispatcher for every NODE_UPDATE,
 * the IPC threads for every allocate()): one lock-free increment per sample, where metrics2's
 * MutableQuantiles takes a lock and inserts into a sample estimator (about 250 ns a heartbeat on
 * the development machine, most of what Locus added to a NODE_UPDATE).
 *
 * <p>Log-linear buckets: values below 16 exactly, above that 16 buckets per power of two, so a
 * reported percentile is the upper bound of its bucket, at most 1/16 (6.25%) above the true
 * value. Fixed size (1,024 counters) whatever is recorded. {@link #roll} closes a window and
 * keeps its percentiles until the next roll, as MutableQuantiles reports its last interval.
 */
final class LatencyHistogram {
  static final double[] PERCENTILES = {50, 75, 90, 95, 99};
  private static final int SUB_BITS = 4;
  private static final int SUB = 1 << SUB_BITS;
  private static final int BUCKETS = 1024;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  // Guarded by this: the last closed window.
  private long windowOps;
  private final long[] windowPercentiles = new long[PERCENTILES.length];

  /** Records one sample (negative values count as 0). */
  void add(long value) {
    counts.incrementAndGet(bucket(Math.max(0, value)));
  }

  static int bucket(long v) {
    if (v < SUB) {
      return (int) v;
    }
    int octave = 63 - Long.numberOfLeadingZeros(v);
    int sub = (int) (v >>> (octave - SUB_BITS)) & (SUB - 1);
    return SUB + (octave - SUB_BITS) * SUB + sub;
  }

  /** The largest value bucket {@code b} holds. */
  static long upperBound(int b) {
    if (b < SUB) {
      return b;
    }
    int shift = (b - SUB) / SUB;
    long low = (long) (SUB + (b - SUB) % SUB) << shift;
    return low + (1L << shift) - 1;
  }

  /** Closes the window: its samples' count and percentiles replace the last window's. */
  synchronized void roll() {
    long[] taken = new long[BUCKETS];
    long ops = 0;
    for (int b = 0; b < BUCKETS; b++) {
      taken[b] = counts.getAndSet(b, 0);
      ops += taken[b];
    }
    windowOps = ops;
    int b = 0;
    long seen = 0;
    for (int p = 0; p < PERCENTILES.length; p++) {
      if (ops == 0) {
        windowPercentiles[p] = 0;
        continue;
      }
      // The smallest value with at least p% of the samples at or below it.
      long rank = Math.max(1, (long) Math.ceil(PERCENTILES[p] / 100.0 * ops));
      while (seen + taken[b] < rank) {
        seen += taken[b];
        b++;
      }
      windowPercentiles[p] = upperBound(b);
    }
  }

  synchronized long windowOps() {
    return windowOps;
  }

  /** The last closed window's percentiles, in the order of {@link #PERCENTILES}. */
  synchronized long[] windowPercentiles() {
    return windowPercentiles.clone();
  }
}
