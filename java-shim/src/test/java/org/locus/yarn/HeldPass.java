package org.locus.yarn;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds the first scheduling pass that decides something, after the core decided and before
 * the shim commits (the scheduler's pass hook), until {@link #release}: what an AM does then
 * happens while decisions are in flight.
 */
final class HeldPass {
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean once = new AtomicBoolean();

  HeldPass(LocusScheduler scheduler) {
    scheduler.setPassHook((node, response) -> {
      if (response != null && !response.decisions.isEmpty()
          && once.compareAndSet(false, true)) {
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
  }

  /** Whether a pass decided and is now held (within 60 s). */
  boolean awaitHeld() throws InterruptedException {
    return held.await(60, TimeUnit.SECONDS);
  }

  void release() {
    release.countDown();
  }
}
