package org.locus.yarn;

import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * The digest of an application's asks that the shim sends after each change and each executed
 * decision ({@code asks_digest}), so that the core finds drift between its asks and the RM's
 * without either side sending a whole table. Bit for bit the function of
 * {@code rust-core/src/digest.rs} (its doc says what it covers and why): per scheduler key with
 * containers outstanding, a SplitMix64 mix of (priority, allocation request id, total at
 * {@code *}); the digest is their wrapping sum. O(scheduler keys): no host row is read, by
 * choice (digest.rs says why: host and rack rows would make every digest O(rows) on both
 * sides, for locality only).
 */
final class AsksDigest {
  private AsksDigest() {
  }

  /** The digest of the RM's outstanding asks of {@code attempt}. */
  static long of(SchedulerApplicationAttempt attempt) {
    long sum = 0;
    for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
      int total = attempt.getPendingAsk(key, ResourceRequest.ANY).getCount();
      sum += term(key.getPriority().getPriority(), key.getAllocationRequestId(), total);
    }
    return sum;
  }

  /** One key's share; 0 when nothing is outstanding. */
  static long term(int priority, long allocationRequestId, long total) {
    if (total <= 0) {
      return 0;
    }
    return mix(mix(mix((long) priority) ^ allocationRequestId) ^ total);
  }

  /** SplitMix64's finaliser (unsigned shifts, wrapping multiplications, as in Rust). */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
