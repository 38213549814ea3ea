package org.locus.yarn;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the core holds one application attempt's asks as the RM does, and so what the
 * scheduling thread must send it next: nothing, the rows the AM changed, or the whole table.
 *
 * <p>The bridge carries changes, not states, so a change is only safe to send while the core
 * holds the table the change applies to. Every way the core can lose that table (a new or
 * rebuilt core, a refused or failed update, no core in service to take a message) moves the
 * machine out of {@link CoreView#IN_STEP}; only a snapshot taken for the core brings it back.
 * The core's refusal is kept apart from the view: it is what the application's owner is shown,
 * and a refused table is not sent again until the AM changes something (the core would refuse
 * it again), unless a message was dropped since, which no core saw.
 *
 * <p>It also holds the count of the RM's put-backs, a sequence lock the frame writer reads
 * (see {@link #putBackStarting}): the frame reads the AM's noted row objects instead of looking
 * each row up only if the RM replaced none of them with its own copies meanwhile.
 *
 * <p>Guarded by the attempt's monitor, except the put-back count, which the RM moves holding
 * only the attempt's write lock.
 */
final class AskSync {
  /** What the core holds of the attempt's asks. */
  enum CoreView {
    /** The table the last frame left; a change of the AM's goes as that change. */
    IN_STEP,
    /**
     * The core may not hold the table (a new core, a refused or failed update, a drift the core
     * found): the next message is the whole table.
     */
    SNAPSHOT_OWED,
    /**
     * A message was dropped because no core was in service (one is being rebuilt), and no
     * snapshot was taken since: the whole table is owed even if the core refused the last one,
     * since the AM may have changed its asks and no core saw it. A replay that reads the asks
     * covers it; otherwise the link hands the attempt back to the scheduling thread once a core
     * is in service.
     */
    DROPPED
  }

  /** What the scheduling thread sends for the attempt at its next pass. */
  enum Next {
    NOTHING,
    CHANGES,
    SNAPSHOT
  }

  private CoreView view = CoreView.SNAPSHOT_OWED;
  /** Why the core (or the shim for it) refused the last table; null if it did not. */
  private String refusal;

  /**
   * Bumped before and again after each time the RM puts a container's asks back, replacing rows
   * with its own copies: odd while one is under way. A put-back takes only the attempt's write
   * lock, not its monitor, so it can count itself, wait for that lock while allocate() applies
   * and notes the AM's rows, and replace them right after; or start while a frame is written.
   */
  private final AtomicLong putBacks = new AtomicLong();
  /** {@link #putBacks} before the RM applied the first change noted since the last send. */
  private long putBacksBeforeNoting;

  CoreView view() {
    return view;
  }

  /** The core's last refusal, worded for the application's owner; null if none stands. */
  String refusal() {
    return refusal;
  }

  /**
   * What to send when the AM's changes since the last send are {@code changesNoted}: a snapshot
   * when one is owed and may be sent; else the changes, if any and the core is in step.
   */
  Next next(boolean changesNoted) {
    if (snapshotDue(changesNoted)) {
      return Next.SNAPSHOT;
    }
    return view == CoreView.IN_STEP && changesNoted ? Next.CHANGES : Next.NOTHING;
  }

  /**
   * Whether the whole table is owed and may be sent now. A table the core refused waits for a
   * change of the AM's (the same table would be refused again), but not after a dropped message,
   * which may have carried such a change.
   */
  boolean snapshotDue(boolean changesNoted) {
    switch (view) {
      case DROPPED:
        return true;
      case SNAPSHOT_OWED:
        return refusal == null || changesNoted;
      default:
        return false;
    }
  }

  /** A snapshot of the table was taken for the core: what it will hold is the RM's view. */
  void snapshotTaken() {
    view = CoreView.IN_STEP;
  }

  /** The core may not have applied the last update (or never held the table). */
  void forgetSent() {
    if (view == CoreView.IN_STEP) {
      view = CoreView.SNAPSHOT_OWED;
    }
  }

  /** No core was in service to take a message about the asks. */
  void dropped() {
    view = CoreView.DROPPED;
  }

  /**
   * The shim refused a table the core would refuse: the same verdict, without the call. The
   * core's older table stands, so a snapshot is owed; since nothing was dropped by this, the
   * snapshot waits for the AM's next change.
   */
  void refusedHere(String reason) {
    refused(reason);
    view = CoreView.SNAPSHOT_OWED;
  }

  /** The core refused the last message (the view is moved by whoever knows what it kept). */
  void refused(String reason) {
    refusal = reason;
  }

  /**
   * A send returned no refusal: the core accepted it, unless it was dropped for want of a core
   * in service, which is no verdict (a refusal shown stays).
   */
  void accepted() {
    if (view != CoreView.DROPPED) {
      refusal = null;
    }
  }

  /**
   * The RM is about to apply an AM's change; {@code firstSinceSend} when nothing has been noted
   * since the last send. The put-back count is read before the RM applies it: a put-back under
   * way then (odd), or one that moves the count after, makes the frame look every row up.
   */
  void amChangeApplying(boolean firstSinceSend) {
    if (firstSinceSend) {
      putBacksBeforeNoting = putBacks.get();
    }
  }

  /**
   * The RM starts putting a lost container's asks back. Odd from before the rows change until
   * {@link #putBackDone}: a frame that reads the count at any point of it, or across it, reads
   * the rows as changed.
   */
  void putBackStarting() {
    putBacks.incrementAndGet();
  }

  /** The put-back of {@link #putBackStarting} ended (normally or not). */
  void putBackDone() {
    putBacks.incrementAndGet();
  }

  /** The put-back count as a frame starts reading rows; pass it to the two checks below. */
  long frameStarts() {
    return putBacks.get();
  }

  /**
   * Whether the noted row objects are still the RM's as of {@code atStart}: no put-back since
   * the first change was noted, nor one under way.
   */
  boolean notedRowsHeld(long atStart) {
    return atStart == putBacksBeforeNoting && (atStart & 1) == 0;
  }

  /**
   * Whether a put-back started since {@code atStart}, while the frame read the noted objects:
   * some may no longer be the RM's, and the frame must be written again by lookup.
   */
  boolean putBackSince(long atStart) {
    return putBacks.get() != atStart;
  }
}
