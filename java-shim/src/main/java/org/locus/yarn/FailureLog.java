package org.locus.yarn;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Reports failures the scheduler survives, one concise line each, at most once per interval
 * for the same subject and kind of failure: an AM whose every allocate is refused, or a core
 * that fails every heartbeat, must not flood the RM log. Stack traces and the messages that
 * failed go to DEBUG only; the next line that is let through says how many were held back.
 */
final class FailureLog {
  /** Distinct (subject, failure) pairs remembered; the oldest is forgotten beyond this. */
  static final int MAX_TRACKED = 1024;

  private final Logger log;
  private final long intervalMs;
  private final LongSupplier clock;
  private final Map<String, long[]> lastAndSuppressed =
      new LinkedHashMap<String, long[]>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
          return size() > MAX_TRACKED;
        }
      };

  FailureLog(Logger log, long intervalMs, LongSupplier clock) {
    this.log = log;
    this.intervalMs = intervalMs;
    this.clock = clock;
  }

  /**
   * Logs "{@code what} failed for {@code subject}: message" at WARN unless the same subject
   * failed the same way within the interval. {@code detail} (e.g. the JSON sent) is logged at
   * DEBUG every time, with the stack trace.
   *
   * @return true when the line went out at WARN
   */
  boolean warn(String what, String subject, Throwable failure, Object detail) {
    String reason = failure.getMessage() == null ? failure.getClass().getName()
        : abbreviate(failure.getMessage());
    if (log.isDebugEnabled()) {
      log.debug("{} failed for {}: {}; detail: {}", what, subject, reason, detail, failure);
    }
    String key = what + '\0' + subject + '\0' + failure.getClass().getName();
    long now = clock.getAsLong();
    long suppressed;
    synchronized (lastAndSuppressed) {
      long[] entry = lastAndSuppressed.get(key);
      if (entry != null && now - entry[0] < intervalMs) {
        entry[1]++;
        return false;
      }
      suppressed = entry == null ? 0 : entry[1];
      lastAndSuppressed.put(key, new long[] {now, 0});
    }
    if (suppressed > 0) {
      log.warn("{} failed for {}: {} ({} more like it in the last {} s not logged)", what,
          subject, reason, suppressed, intervalMs / 1000);
    } else {
      log.warn("{} failed for {}: {}", what, subject, reason);
    }
    return true;
  }

  /**
   * The one kind of failure the scheduler does not survive: the JVM itself is broken (out of
   * memory, stack overflow, internal error), and the RM exiting is the right answer.
   */
  static void rethrowIfJvmBroken(Throwable t) {
    if (t instanceof VirtualMachineError) {
      throw (VirtualMachineError) t;
    }
  }

  /** A core message can name thousands of refused rows; the first ones say what went wrong. */
  static String abbreviate(String s) {
    return s.length() <= 500 ? s : s.substring(0, 500) + "... (" + s.length() + " chars)";
  }
}
