package org.locus.yarn;

/**
 * What the benchmarks in {@code org.locus.yarn.bench} need of the scheduler's package-private
 * test seams; in the bench source set only, so nothing in the shipped jar grows for it.
 */
public final class BenchAccess {
  private BenchAccess() {
  }

  /** Until Locus's scheduling thread has sent every noted ask change and offered every node. */
  public static void awaitSchedulingIdle(LocusScheduler scheduler) {
    try {
      scheduler.awaitSchedulingIdle();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
