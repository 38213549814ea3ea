package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's connection to the core in service: every call goes through here, so a core
 * refusal is logged once (rate-limited, naming the application or node), and a core that
 * panicked is taken out of service and replaced by a fresh one rebuilt from the RM's
 * bookkeeping instead of being trusted again.
 *
 * <p>A rebuild runs on a thread of its own ({@code locus-core-rebuild}) in three steps: close
 * the old core, which waits (up to 10 s for a stuck disk) until its profile writer has written
 * the runs it has queued; open the new core, which takes over the old one's profiles and what
 * it parsed from its other side files (none is read again: a file unreadable since the start
 * cannot stop the rebuild), so it holds every run of the old one and its own writes cannot
 * overwrite them; then, under the scheduler's lock, feed it the RM's bookkeeping and put it in
 * service. Only the last step holds the scheduler's lock.
 * Meanwhile nothing is sent to a core (the replay covers it) and heartbeats decide nothing.
 *
 * <p>A rebuild that fails (the new core cannot open, or panics on the replay) is retried after
 * 1 s, doubling up to 60 s, so a core that fails on every call does not cost a full replay per
 * scheduler event. Failures of a core that is no longer in service are ignored: they are not
 * the application's fault and must neither poison the new core nor reach the AM as a refusal.
 *
 * <p>Lock order: scheduler, then application, then this link; the link's lock is never held
 * while an application's or the scheduler's is taken.
 */
final class CoreLink {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);
  /** Same failure for the same application or node: one log line per minute at most. */
  private static final long FAILURE_LOG_INTERVAL_MS = 60_000;
  /**
   * An event that failed after reaching the core may have left its view short of the RM's:
   * resynchronise by a rebuild, at most this often.
   */
  static final long RESYNC_INTERVAL_MS = 60_000;
  /** First wait after a failed rebuild; doubled per further failure up to the maximum. */
  static final long REBUILD_BACKOFF_MIN_MS = 1_000;
  static final long REBUILD_BACKOFF_MAX_MS = 60_000;
  /** The property naming the core a new one replaces (the bridge's {@code ops::REBUILD_OF}). */
  static final String REBUILD_OF = "rebuild.of";

  private final FailureLog failures =
      new FailureLog(LOG, FAILURE_LOG_INTERVAL_MS, System::currentTimeMillis);
  private final LongSupplier clock;
  private final Function<String, LocusCore> opener;

  private volatile LocusCore core;
  /**
   * The scheduling mode {@link #core} resolved from its settings: set with it whenever a core
   * goes into service or takes new settings, so the scheduling thread never runs one mode
   * while the core runs another.
   */
  private volatile SchedulingMode mode;
  /** {@code locus.scheduling.eager} of {@link #core}, read with {@link #mode}. */
  private volatile boolean eager;
  /**
   * The {@code locus.app.max-ask-rows} of {@link #core}, read from its stats (the core parses
   * the setting and holds its default) whenever a core goes into service or takes new
   * settings; frames over it are refused by the shim without being written.
   */
  private volatile int maxAskRows = Integer.MAX_VALUE;
  /** Wakes the scheduling thread when {@link #mode} changed. */
  private volatile Runnable modeChanged = () -> { };
  /** The core in service panicked, or is being replaced: no call reaches it. */
  private final AtomicBoolean outOfService = new AtomicBoolean();
  private final AtomicBoolean resyncWanted = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong rebuilds = new AtomicLong();
  /** Per thread: calls that reached a core, so a failed event tells if the core saw part. */
  private final ThreadLocal<long[]> coreCalls = ThreadLocal.withInitial(() -> new long[1]);

  /** What a rebuild needs from the scheduler; set by {@link #open}. */
  private Object schedulerLock;
  private Supplier<String> settings;
  private Supplier<CoreRebuild.Replay> replay;
  /** Hands an attempt back to the scheduling thread, which sends its asks before a pass. */
  private volatile Consumer<LocusAppAttempt> resend = a -> { };
  /**
   * Attempts a message about whose asks was dropped while no core was in service: once one
   * is, each the replay did not cover goes back to the scheduling thread. Guarded by this;
   * bounded by the RM's attempts.
   */
  private Set<LocusAppAttempt> awaitingCore = new LinkedHashSet<>();
  /**
   * The ids the core in service published for the RM's hosts ({@link NameIds}); changed only
   * under the scheduler's lock (node events, a rebuild's install), read by the scheduling
   * thread for every asks frame.
   */
  private volatile NameIds names = NameIds.NONE;
  /** Tests act between the replay and the new core going into service (scheduler lock held). */
  private volatile Runnable replayedHook;
  /** Tests act right after the core in service took new settings (scheduler lock held). */
  private volatile Runnable reconfiguredHook;

  // Guarded by this.
  private CompletableFuture<Void> rebuilding;
  private CompletableFuture<Void> lastRebuild;
  private int failedRebuilds;
  private long nextRebuildMs = Long.MIN_VALUE / 2;
  private long lastRebuildMs = Long.MIN_VALUE / 2;

  CoreLink() {
    this(System::currentTimeMillis, LocusCore::open);
  }

  /** Tests inject the clock (backoff) and how a core is opened. */
  CoreLink(LongSupplier clock, Function<String, LocusCore> opener) {
    this.clock = clock;
    this.opener = opener;
  }

  /**
   * Opens the first core from {@code settingsJson}. A rebuild later opens its core from what
   * {@code settings} says then and, holding {@code schedulerLock}, replays {@code replay} (see
   * {@link CoreRebuild}).
   */
  void open(String settingsJson, Object schedulerLock, Supplier<String> settings,
      Supplier<CoreRebuild.Replay> replay) {
    this.schedulerLock = schedulerLock;
    this.settings = settings;
    this.replay = replay;
    core = opener.apply(settingsJson);
    mode = SchedulingMode.of(core);
    eager = SchedulingMode.eager(core);
    maxAskRows = maxAskRows(core);
  }

  /** Where attempts go whose asks a core must still be sent after a rebuild. */
  void setResend(Consumer<LocusAppAttempt> resend) {
    this.resend = resend;
  }

  void setModeChanged(Runnable listener) {
    modeChanged = listener;
  }

  void setReplayedHook(Runnable hook) {
    replayedHook = hook;
  }

  void setReconfiguredHook(Runnable hook) {
    reconfiguredHook = hook;
  }

  /** The mode of the core in service (or of the one last in service), null before open. */
  SchedulingMode mode() {
    return mode;
  }

  /** Whether the core in service lets heartbeat mode make eager offers. */
  boolean eager() {
    return eager;
  }

  /** Most rows an application's asks frame may carry for the core in service. */
  int maxAskRows() {
    return maxAskRows;
  }

  /** {@code core}'s {@code locus.app.max-ask-rows} (its stats' {@code max_ask_rows}). */
  static int maxAskRows(LocusCore core) {
    long limit;
    try {
      limit = CoreMessages.JSON.readTree(core.stats()).path("max_ask_rows").asLong(-1);
    } catch (IOException e) {
      throw new IllegalStateException("Locus core answered stats with malformed JSON", e);
    }
    if (limit < 1) {
      throw new IllegalStateException("Locus core reported no max_ask_rows");
    }
    return (int) Math.min(Integer.MAX_VALUE, limit);
  }

  /** The core in service, or null before {@link #open}. */
  LocusCore current() {
    return core;
  }

  FailureLog failures() {
    return failures;
  }

  long rebuilds() {
    return rebuilds.get();
  }

  /** Calls this thread made to a core so far (sent or failed), see {@link #eventFailed}. */
  long coreCallsOfThisThread() {
    return coreCalls.get()[0];
  }

  /**
   * A scheduler event failed with {@code failure}, after {@code callsBefore} (this thread's
   * {@link #coreCallsOfThisThread} when it began). The core is resynchronised (at most once a
   * minute) only when it may now be short of the RM's view: the failure is the core's own, or
   * the event reached the core before failing. A failure in the shim or the RM's bookkeeping
   * before anything reached the core leaves both views alike, and a rebuild would not mend
   * such a bug, only repeat once a minute if it recurs.
   */
  void eventFailed(Throwable failure, long callsBefore) {
    if (failure instanceof LocusException || coreCallsOfThisThread() != callsBefore) {
      resyncWanted.set(true);
    }
  }

  /** True while {@code c} is the core in service: a failure of a replaced one is no news. */
  private boolean inService(LocusCore c) {
    return c != null && c == core && !outOfService.get() && !closed.get() && !c.isClosed();
  }

  /**
   * One {@code events} call. Returns the refusal, or null when the core applied everything
   * (or is out of service, in which case the rebuild replays the RM's state anyway). On any
   * failure the asks of {@code snapshotsFrom} are re-sent in full at their next change.
   */
  LocusException send(List<ObjectNode> events, Collection<LocusAppAttempt> snapshotsFrom) {
    return send(events, snapshotsFrom, true);
  }

  /** As {@link #send(List, Collection)}; {@code logRefusal=false} when the caller reports it. */
  LocusException send(List<ObjectNode> events, Collection<LocusAppAttempt> snapshotsFrom,
      boolean logRefusal) {
    if (events.isEmpty()) {
      return null;
    }
    LocusCore c = core;
    if (!inService(c)) {
      LOG.debug("Locus core closed or being rebuilt; not sending {} events", events.size());
      dropped(snapshotsFrom);
      return null;
    }
    return callEvents(c, events, snapshotsFrom, logRefusal);
  }

  /**
   * The call of {@link #send} on {@code c}, which was in service when the caller looked: on an
   * IPC thread it may be replaced (and closed) before or while the call runs.
   */
  LocusException callEvents(LocusCore c, List<ObjectNode> events,
      Collection<LocusAppAttempt> snapshotsFrom, boolean logRefusal) {
    String json = CoreMessages.array(events);
    coreCalls.get()[0]++;
    String drifted;
    try {
      drifted = c.events(json);
    } catch (LocusException e) {
      return failed(c, e, snapshotsFrom, logRefusal, subjectOf(events), json, events.size(),
          recordsBookkeeping(events));
    }
    return resync(drifted, snapshotsFrom);
  }

  /**
   * As {@link #send(List, Collection)}, the batch of one binary events frame: what the RM did
   * with the core's decisions and containers, on the paths every container takes. A drift the
   * core finds is mended as for a JSON batch.
   */
  LocusException send(EventsFrame frame, Collection<LocusAppAttempt> snapshotsFrom) {
    if (frame.isEmpty()) {
      return null;
    }
    LocusCore c = core;
    if (!inService(c)) {
      LOG.debug("Locus core closed or being rebuilt; not sending {} events", frame.size());
      dropped(snapshotsFrom);
      return null;
    }
    coreCalls.get()[0]++;
    String drifted;
    try {
      drifted = c.eventsFrame(frame.direct());
    } catch (LocusException e) {
      return failed(c, e, snapshotsFrom, true, frame.subject(), frame, frame.size(),
          frame.recordsBookkeeping());
    }
    return resync(drifted, snapshotsFrom);
  }

  /**
   * The core named {@code driftedJson} (null: none) among {@code held}, whose locks the caller
   * holds: each gets its table ({@link #sendSnapshot}). Returns the first refusal, or null.
   */
  private LocusException resync(String driftedJson, Collection<LocusAppAttempt> held) {
    LocusException first = null;
    for (LocusAppAttempt a : AsksResync.drifted(driftedJson, held)) {
      LocusException refusal = sendSnapshot(a);
      if (first == null) {
        first = refusal;
      }
    }
    return first;
  }

  /**
   * {@code attempt}'s whole table, every name as text, as one binary asks frame: every
   * snapshot the core is owed goes this way (a drift, a send that failed or was dropped, a
   * numbered frame the core refused), so {@code locus.app.max-ask-rows} bounds it before a row
   * is copied, and the attempt's waiting ids, which die with the core's table it replaces, are
   * emptied. Caller holds the attempt's lock. The verdict is recorded on the attempt (shown to
   * its owner) and returned: a table the shim refuses itself (a row the core cannot hold, more
   * rows than the limit) is the application's refusal as the core's would be, never a failure
   * of the core (which would resynchronise, i.e. rebuild, it for every application).
   */
  LocusException sendSnapshot(LocusAppAttempt attempt) {
    if (!inService(core)) {
      dropped(Collections.singleton(attempt));
      return null;
    }
    ByteBuffer byName;
    try {
      byName = attempt.snapshotByName(maxAskRows);
    } catch (AsksFrame.RowRefused refused) {
      // The attempt recorded it and owes a snapshot.
      failures.warn("Locus core update", "application " + attempt.getApplicationId(), refused,
          null);
      return new LocusException(refused.getMessage(), refused);
    }
    LocusException refusal = sendAsks(byName, attempt);
    if (refusal == null) {
      attempt.asksAccepted();
    } else if (!(refusal instanceof LocusCorePoisonedException)) {
      attempt.asksRefused(refusal.getMessage());
    }
    return refusal;
  }

  /**
   * Events reporting what the RM has already done whose answer nobody acts on (a container
   * released): they reach the core without waiting for a scheduling pass that holds it (the
   * bridge queues them and applies them before the core's next call). A refusal comes back now
   * if the core was free, else with a later call's answer; either way the core is
   * resynchronised as for any refused bookkeeping event. Returns the refusal of this batch.
   */
  LocusException sendDeferrable(EventsFrame frame) {
    if (frame.isEmpty()) {
      return null;
    }
    LocusCore c = core;
    if (!inService(c)) {
      // The rebuild's replay of the RM's bookkeeping covers it.
      return null;
    }
    coreCalls.get()[0]++;
    try {
      String earlier = c.deferrableEventsFrame(frame.direct());
      if (earlier != null) {
        queuedRefused(c, earlier);
      }
      return null;
    } catch (LocusException e) {
      return failed(c, e, Collections.emptySet(), true, frame.subject(), frame, frame.size(),
          frame.recordsBookkeeping());
    }
  }

  /**
   * Events queued in {@code c} while it was busy were refused ({@code report} names them): the
   * core may be short of the RM's view, as after a refused event sent directly.
   */
  void queuedRefused(LocusCore c, String report) {
    if (!inService(c)) {
      return;
    }
    resyncWanted.set(true);
    failures.warn("Locus core update", "the cluster", new LocusException(report), null);
  }

  /**
   * One binary asks frame ({@link AsksFrame}) for {@code attempt}, whose lock the caller holds;
   * otherwise as {@link #send}. A refusal is logged without the frame. A frame with numbered
   * rows the core refuses is followed at once by the attempt's whole table by name
   * ({@link #sendSnapshot}), whose verdict is the one returned: its ids may be of a node removed
   * since the frame was written, or of a core a rebuild replaced, which is no fault of the
   * application. A drift the frame's digest shows is mended the same way.
   */
  LocusException sendAsks(ByteBuffer frame, LocusAppAttempt attempt) {
    Collection<LocusAppAttempt> held = Collections.singleton(attempt);
    LocusCore c = core;
    if (!inService(c)) {
      dropped(held);
      return null;
    }
    coreCalls.get()[0]++;
    int[] learned = null;
    String drifted;
    try {
      if (AsksFrame.numbered(frame)) {
        learned = learnedArray(frame.getInt(8));
        learned[0] = 0;
      }
      drifted = c.asks(frame, learned);
    } catch (LocusException e) {
      if (!(e instanceof LocusCorePoisonedException) && inService(c)
          && AsksFrame.hasNumberedRow(frame)) {
        LOG.debug("Locus core refused numbered asks of {} ({}); re-sending them by name",
            attempt.getApplicationId(), e.getMessage());
        // The by-name snapshot also empties the attempt's waiting ids (stale ones among them).
        return sendSnapshot(attempt);
      }
      return failed(c, e, held, true, "application " + attempt.getApplicationId(), null, 1,
          false);
    }
    if (learned != null && learned[0] > 0) {
      attempt.learnWaitingIds(frame, learned);
    }
    // A snapshot carries no digest, so the one this may send cannot drift in turn.
    return resync(drifted, held);
  }

  /**
   * This thread's array for the core's answer to a frame of {@code rows} rows (at most one pair
   * per row, after the count); kept while it is of a size the core's row bound allows.
   */
  private static int[] learnedArray(int rows) {
    int want = 1 + 2 * Math.max(0, rows);
    int[] a = LEARNED.get();
    if (a.length < want) {
      a = new int[want];
      if (want <= 1 + 2 * WaitingIds.MAX_NAMES) {
        LEARNED.set(a);
      }
    }
    return a;
  }

  private static final ThreadLocal<int[]> LEARNED = ThreadLocal.withInitial(() -> new int[1]);

  /** The ids asks frames may use now ({@link NameIds#NONE} until a core published any). */
  NameIds nameIds() {
    return names;
  }

  /**
   * A node of {@code host} was added and told to the core in service: learns the host's id.
   * Caller holds the scheduler lock. Ids only save work, so a failure costs nothing but that.
   */
  void learnHost(String host) {
    LocusCore c = core;
    if (inService(c)) {
      learn(c, Collections.singletonList(host), false);
    }
  }

  /**
   * A node of {@code host} is being removed (before the core is told): frames stop numbering
   * the host, so none names an id the core is about to stop publishing. Its other nodes, if
   * any, relearn it when they re-register; until then its rows go by name.
   */
  void forgetHost(String host) {
    names.forget(host);
  }

  /** Asks {@code c} for the ids of {@code hosts}; {@code fresh}: a new table for a new core. */
  private void learn(LocusCore c, List<String> hosts, boolean fresh) {
    try {
      NameIds.Answer answer =
          NameIds.Answer.parse(c.nameIds(CoreMessages.JSON.writeValueAsString(hosts)),
              hosts.size());
      NameIds table = names;
      if (fresh || table == NameIds.NONE || table.epoch() != answer.epoch) {
        // The first answer of this core: its numbering, not the last core's.
        table = new NameIds(answer.epoch);
      }
      table.learn(hosts, answer);
      names = table;
    } catch (LocusCorePoisonedException e) {
      names = NameIds.NONE;
    } catch (RuntimeException | IOException e) {
      FailureLog.rethrowIfJvmBroken(e);
      failures.warn("Learning host ids from the Locus core", "the cluster", e, null);
    }
  }

  private LocusException failed(LocusCore c, LocusException e,
      Collection<LocusAppAttempt> snapshotsFrom, boolean logRefusal, String subject,
      Object sent, int count, boolean bookkeeping) {
    if (!inService(c)) {
      // Replaced (or shut down) while this call ran: an "invalid handle" or a panic here is
      // not the application's doing, and the new core gets the state by the replay.
      LOG.debug("Locus core replaced during a call; {} events not sent", count);
      dropped(snapshotsFrom);
      return null;
    }
    forgetSnapshots(snapshotsFrom);
    if (e instanceof LocusCorePoisonedException) {
      poisoned(c, (LocusCorePoisonedException) e);
      return e;
    }
    if (bookkeeping) {
      // The RM has done what the event reports whatever the core says: a core refusing it is
      // now short of the RM's view (e.g. of a node it lost), and nothing else would mend that.
      resyncWanted.set(true);
    }
    if (logRefusal) {
      failures.warn("Locus core update", subject, e, sent);
    } else {
      LOG.debug("Locus core refused {}: {}", sent, e.getMessage());
    }
    return e;
  }

  /**
   * The core's decisions for the nodes of one offers frame ({@link OffersFrame}) that offered
   * {@code offered}, in order: null when it decided nothing or could not decide (logged, unless
   * the core was replaced meanwhile); nodes it refused are logged here and left out.
   */
  DecisionsFrame.Answer offers(ByteBuffer frame, List<NodeId> offered, String nodes) {
    LocusCore c = core;
    return inService(c) ? callOffers(c, frame, offered, nodes) : null;
  }

  /** The call of {@link #offers} on {@code c} (see {@link #callEvents}). */
  DecisionsFrame.Answer callOffers(LocusCore c, ByteBuffer frame, List<NodeId> offered,
      String nodes) {
    coreCalls.get()[0]++;
    try {
      byte[] answer = c.offers(frame);
      if (answer == null) {
        return null;
      }
      DecisionsFrame.Answer response = DecisionsFrame.decode(answer, offered);
      for (DecisionsFrame.Refused refused : response.refused) {
        failures.warn("Locus heartbeat", "node " + refused.node,
            new LocusException(refused.reason), null);
      }
      return response;
    } catch (LocusCorePoisonedException e) {
      poisoned(c, e);
    } catch (LocusException e) {
      if (inService(c)) {
        failures.warn("Locus heartbeat", nodes, e, null);
      }
    }
    return null;
  }

  /**
   * {@code yarn rmadmin -refreshQueues}: the core in service takes the new settings, or the
   * refresh is refused with a reason that says whether the settings or the core are at fault.
   * Caller holds the scheduler lock, so no rebuild puts a core in service meanwhile.
   *
   * @return the capacity queues the core now runs ({@link LocusCore#capacityQueues})
   */
  String reconfigure(String settingsJson) throws IOException {
    LocusCore c = core;
    if (c == null || closed.get()) {
      throw new IOException("Locus core is not running; cannot refresh its settings");
    }
    if (!inService(c)) {
      throw beingRebuilt(null);
    }
    try {
      c.reconfigure(settingsJson);
    } catch (LocusCorePoisonedException e) {
      poisoned(c, e);
      throw beingRebuilt(e);
    } catch (LocusException e) {
      if (!inService(c)) {
        throw beingRebuilt(e);
      }
      throw new IOException("Locus refused the new settings: " + e.getMessage(), e);
    }
    // The core runs the new settings from here, and what the scheduler takes from them (the
    // queues, the mode) is read from it before anything else changes. If that fails the
    // scheduler keeps the old settings, so the core must not keep the new ones: it is rebuilt
    // from the settings still in force, and the refresh fails as one that changed nothing.
    try {
      Runnable hook = reconfiguredHook;
      if (hook != null) {
        hook.run();
      }
      String queues = c.capacityQueues();
      mode = SchedulingMode.of(c);
      eager = SchedulingMode.eager(c);
      maxAskRows = maxAskRows(c);
      modeChanged.run();
      return queues;
    } catch (RuntimeException e) {
      if (e instanceof LocusCorePoisonedException) {
        poisoned(c, (LocusCorePoisonedException) e);
      } else if (inService(c)) {
        LOG.error("Locus core took new settings but could not report them ({}); LocusScheduler "
            + "rebuilds it from the settings still in force", e.getMessage());
        outOfService.set(true);
        rebuildIfNeeded();
      }
      throw beingRebuilt(e);
    }
  }

  private static IOException beingRebuilt(RuntimeException cause) {
    // Not a verdict on the new settings: the core failed and a new one is being built from
    // the settings still in force.
    return new IOException("Locus core is being rebuilt after a failure; the settings still in "
        + "force are unchanged, retry the refresh" + (cause == null ? "" : ": "
        + cause.getMessage()), cause);
  }

  /**
   * A call found {@code c} poisoned. Only the core in service is taken out: the failure of one
   * already replaced must not put its successor out of service.
   */
  private void poisoned(LocusCore c, LocusCorePoisonedException e) {
    if (c != core || closed.get()) {
      return;
    }
    if (outOfService.compareAndSet(false, true)) {
      LOG.error("{}; LocusScheduler rebuilds it from the ResourceManager's bookkeeping",
          e.getMessage());
    }
    rebuildIfNeeded();
  }

  /**
   * A message about the asks of {@code attempts} (whose locks the caller holds) reached no
   * core in service. The RM's other bookkeeping reaches a new core by the replay, which reads
   * it under the scheduler's lock; asks change without that lock (allocate(), the scheduling
   * thread), so a change can land after the replay read it and before the new core is in
   * service. Such attempts wait here for the core (or, if one came into service meanwhile, go
   * back to the scheduling thread at once): an AM that then waits must still be served.
   */
  private void dropped(Collection<LocusAppAttempt> attempts) {
    if (attempts.isEmpty()) {
      return;
    }
    for (LocusAppAttempt a : attempts) {
      a.asksDropped();
    }
    boolean backInService;
    synchronized (this) {
      backInService = inService(core);
      if (!backInService && !closed.get()) {
        awaitingCore.addAll(attempts);
      }
    }
    if (backInService) {
      for (LocusAppAttempt a : attempts) {
        resend.accept(a);
      }
    }
  }

  private static void forgetSnapshots(Collection<LocusAppAttempt> attempts) {
    for (LocusAppAttempt a : attempts) {
      a.forgetAsksSent();
    }
  }

  /**
   * Starts a rebuild when the core in service panicked, or a resynchronisation is wanted and
   * the last rebuild is a minute ago, unless one runs already or a failed one backs off.
   * Called after every scheduler event and when a call finds the core poisoned; never waits.
   *
   * @return the rebuild started or under way, or null when none is
   */
  CompletableFuture<Void> rebuildIfNeeded() {
    // Every scheduler event ends here (on the RM's dispatcher, each NODE_UPDATE): while the
    // core serves and no resync is wanted there is nothing to start or report, and no lock to
    // take. A rebuild under way keeps outOfService set until its core is in service.
    if (!outOfService.get() && !resyncWanted.get()) {
      return null;
    }
    return startRebuildIfDue();
  }

  private synchronized CompletableFuture<Void> startRebuildIfDue() {
    if (closed.get() || schedulerLock == null) {
      return null;
    }
    if (rebuilding != null) {
      return rebuilding;
    }
    long now = clock.getAsLong();
    if (now < nextRebuildMs) {
      return null;
    }
    boolean resyncDue = resyncWanted.get() && now - lastRebuildMs >= RESYNC_INTERVAL_MS;
    if (!outOfService.get() && !resyncDue) {
      return null;
    }
    outOfService.set(true);
    LocusCore old = core;
    CompletableFuture<Void> attempt = new CompletableFuture<>();
    rebuilding = attempt;
    lastRebuild = attempt;
    Thread t = new Thread(() -> rebuild(old, attempt), "locus-core-rebuild");
    t.setDaemon(true);
    t.start();
    return attempt;
  }

  /** The rebuild started last (done or not), or null; tests wait on it instead of polling. */
  synchronized CompletableFuture<Void> lastRebuild() {
    return lastRebuild;
  }

  private void rebuild(LocusCore old, CompletableFuture<Void> attempt) {
    LocusCore fresh = null;
    try {
      long replaced = closeQuietly(old);
      String opened = settings.get();
      fresh = opener.apply(rebuildSettings(opened, replaced));
      int replayed;
      synchronized (schedulerLock) {
        // A refresh cannot pass while the core is out of service, but one may have passed
        // between the failure and this rebuild: the new core runs what is in force now.
        String now = settings.get();
        if (!now.equals(opened)) {
          fresh.reconfigure(now);
        }
        replayed = install(fresh);
      }
      long n = rebuilds.get();
      if (replayed >= 0) {
        LOG.warn("Locus core rebuilt from the ResourceManager's bookkeeping ({} events "
            + "replayed); {} rebuilds since start", replayed, n);
      }
      finish(attempt, null);
    } catch (Throwable t) {
      if (fresh != null && fresh != core) {
        closeQuietly(fresh);
      }
      finish(attempt, t);
      if (t instanceof VirtualMachineError) {
        throw (VirtualMachineError) t;
      }
    }
  }

  /**
   * Feeds {@code fresh} the RM's bookkeeping and puts it in service; caller holds the scheduler
   * lock. Returns the events replayed, or -1 when the link was closed meanwhile (then
   * {@code fresh} is closed: a core built after shutdown must not outlive it).
   */
  private int install(LocusCore fresh) {
    CoreRebuild.Replay replayed = replay.get();
    List<ObjectNode> events = replayed.events;
    try {
      fresh.events(CoreMessages.array(events));
    } catch (LocusCorePoisonedException e) {
      throw e;
    } catch (LocusException e) {
      // One refused event must not keep the cluster unscheduled.
      failures.warn("Replaying the ResourceManager's bookkeeping into a new Locus core",
          "the cluster", e, null);
    }
    // The limit the asks are bounded by is the new core's.
    int freshMaxAskRows = maxAskRows(fresh);
    for (LocusAppAttempt a : replayed.asksOf) {
      replayAsks(fresh, a, freshMaxAskRows);
    }
    // The new core numbers names its own way: before it goes into service, the table of its
    // ids for every host the replay added replaces the old core's (frames numbered from the
    // old one meanwhile are refused by their epoch and re-sent by name).
    List<String> hosts = new java.util.ArrayList<>();
    for (ObjectNode e : events) {
      if ("node_added".equals(e.path("type").asText()) && e.hasNonNull("host")) {
        hosts.add(e.get("host").asText());
      }
    }
    names = NameIds.NONE;
    learn(fresh, hosts, true);
    Runnable hook = replayedHook;
    if (hook != null) {
      hook.run();
    }
    // Read before it goes into service (a failure fails this rebuild, which is retried): the
    // scheduling thread runs the new core's mode from its first pass.
    SchedulingMode freshMode = SchedulingMode.of(fresh);
    boolean freshEager = SchedulingMode.eager(fresh);
    Set<LocusAppAttempt> owed;
    synchronized (this) {
      if (closed.get()) {
        closeQuietly(fresh);
        return -1;
      }
      core = fresh;
      mode = freshMode;
      eager = freshEager;
      maxAskRows = freshMaxAskRows;
      resyncWanted.set(false);
      outOfService.set(false);
      rebuilds.incrementAndGet();
      owed = awaitingCore;
      awaitingCore = new LinkedHashSet<>();
    }
    modeChanged.run();
    for (LocusAppAttempt a : owed) {
      // Dropped before the replay read the asks: the new core has them (the snapshot the
      // replay took cleared the mark).
      if (a.owesDroppedAsks()) {
        resend.accept(a);
      }
    }
    return events.size() + replayed.asksOf.size();
  }

  /**
   * Sends {@code attempt}'s table to {@code fresh}, which is not in service yet (the scheduler's
   * lock is held), as every snapshot goes ({@link #sendSnapshot}): a table over
   * {@code maxRows} or one the core refuses is that application's refusal, recorded and shown to
   * its owner, and the rebuild goes on. A panic fails the rebuild (it is retried).
   */
  private void replayAsks(LocusCore fresh, LocusAppAttempt attempt, int maxRows) {
    synchronized (attempt) {
      String subject = "application " + attempt.getApplicationId();
      try {
        // Not numbered: the names the new core gives ids are learned after the replay, and
        // the waiting ids the attempt held died with the old core.
        fresh.asks(attempt.snapshotByName(maxRows), null);
        attempt.asksAccepted();
      } catch (AsksFrame.RowRefused refused) {
        // Recorded by the attempt, which owes a snapshot.
        failures.warn("Locus core update", subject, refused, null);
      } catch (LocusCorePoisonedException e) {
        throw e;
      } catch (LocusException | IllegalArgumentException e) {
        // IllegalArgumentException: a table the frame cannot carry at all (an application id
        // over 255 bytes, a frame over 2 GB with the row limit raised far up). Either way this
        // application's, never a reason to fail the rebuild, which would retry into it forever.
        attempt.asksRefused(e.getMessage());
        attempt.forgetAsksSent();
        failures.warn("Locus core update", subject, e, null);
      }
    }
  }

  private synchronized void finish(CompletableFuture<Void> attempt, Throwable failure) {
    rebuilding = null;
    long now = clock.getAsLong();
    if (failure == null) {
      failedRebuilds = 0;
      nextRebuildMs = Long.MIN_VALUE / 2;
      lastRebuildMs = now;
      attempt.complete(null);
      return;
    }
    long wait = Math.min(REBUILD_BACKOFF_MAX_MS,
        REBUILD_BACKOFF_MIN_MS << Math.min(failedRebuilds, 6));
    failedRebuilds++;
    nextRebuildMs = now + wait;
    failures.warn("Rebuilding the Locus core", "the cluster", failure, null);
    LOG.info("Next attempt to rebuild the Locus core in {} s (at the next scheduler event after "
        + "that)", wait / 1000);
    attempt.completeExceptionally(failure);
  }

  /** Closes {@code c}; returns the handle freed, or 0 (none, or the close failed). */
  private static long closeQuietly(LocusCore c) {
    if (c == null) {
      return 0;
    }
    try {
      return c.closeReturningHandle();
    } catch (RuntimeException e) {
      LOG.debug("Closing a replaced Locus core failed: {}", e.getMessage());
      return 0;
    }
  }

  /**
   * The properties for a core replacing the one that was {@code replaced} (its handle, 0 when
   * none was freed): the bridge then hands the new core what the old one parsed from its side
   * files ({@code locus.profile.store}, the datacenter mapping, MROSA's public file) instead of
   * letting it read them again, so a file that became unreadable or a mount that hangs cannot
   * keep the cluster unscheduled.
   */
  static String rebuildSettings(String settingsJson, long replaced) {
    if (replaced == 0) {
      return settingsJson;
    }
    try {
      ObjectNode props = (ObjectNode) CoreMessages.JSON.readTree(settingsJson);
      props.put(REBUILD_OF, Long.toString(replaced));
      return CoreMessages.JSON.writeValueAsString(props);
    } catch (IOException | ClassCastException e) {
      throw new IllegalStateException("Locus settings are not a JSON object: " + e.getMessage(),
          e);
    }
  }

  /** The core's counters plus the shim's own ({@code core_rebuilds}). */
  /**
   * One preemption round on the core in service ({@link LocusCore#preemptionRound}). A core
   * found poisoned is rebuilt and the round skipped: the next one runs on the new core.
   */
  String preemptionRound(String requestJson) throws IOException {
    LocusCore c = core;
    if (c == null || closed.get()) {
      throw new IOException("Locus core is not running");
    }
    if (!inService(c)) {
      throw new IOException("Locus core is being rebuilt after a failure; no preemption round "
          + "until it is in service");
    }
    try {
      return c.preemptionRound(requestJson);
    } catch (LocusCorePoisonedException e) {
      poisoned(c, e);
      throw new IOException("Locus core failed during a preemption round and is being rebuilt",
          e);
    }
  }

  String statsJson() {
    LocusCore c = core;
    if (c == null || c.isClosed()) {
      throw new IllegalStateException("Locus core is not running");
    }
    try {
      ObjectNode stats = (ObjectNode) CoreMessages.JSON.readTree(c.stats());
      stats.put("core_rebuilds", rebuilds.get());
      return CoreMessages.write(stats);
    } catch (IOException e) {
      throw new IllegalStateException("Locus core answered stats with malformed JSON", e);
    }
  }

  /**
   * At shutdown: closes the core in service once; later sends are dropped, and a rebuild that
   * finishes afterwards closes the core it built.
   */
  void close() {
    LocusCore c;
    synchronized (this) {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      c = core;
    }
    closeQuietly(c);
  }

  /**
   * Whether {@code events} hold one that reports the RM's own bookkeeping (nodes, attempts,
   * containers, removals): the RM has done it whatever the core says. The others are requests
   * the core may refuse as a verdict the caller acts on: an application's asks (kept as they
   * were, re-sent at its next change) and an admission, move or priority change (the RM
   * rejects the application or the change, so both views stay alike).
   */
  static boolean recordsBookkeeping(List<ObjectNode> events) {
    for (ObjectNode e : events) {
      if (isBookkeeping(e.path("type").asText())) {
        return true;
      }
    }
    return false;
  }

  /** Whether an event of {@code type} reports the RM's own bookkeeping (see above). */
  static boolean isBookkeeping(String type) {
    switch (type) {
      case "asks_updated":
      case "asks_changed":
      case "asks_digest":
      case "app_added":
      case "app_moved":
      case "app_priority_changed":
      case "app_blacklist":
        return false;
      default:
        return true;
    }
  }

  /** Names what a batch was about: its applications, else its nodes (at most three). */
  static String subjectOf(List<ObjectNode> events) {
    Set<String> apps = new LinkedHashSet<>();
    Set<String> nodes = new LinkedHashSet<>();
    for (ObjectNode e : events) {
      JsonNode app = e.get("app");
      if (app != null) {
        apps.add(app.asText());
      }
      JsonNode node = e.get("node");
      if (node != null) {
        nodes.add(node.asText());
      }
    }
    Set<String> named = apps.isEmpty() ? nodes : apps;
    String kind = apps.isEmpty() ? (nodes.size() == 1 ? "node " : "nodes ")
        : (apps.size() == 1 ? "application " : "applications ");
    if (named.isEmpty()) {
      return "the cluster";
    }
    StringBuilder b = new StringBuilder(kind);
    int i = 0;
    for (String n : named) {
      if (i == 3) {
        b.append(", ... (").append(named.size()).append(" in all)");
        break;
      }
      b.append(i++ > 0 ? ", " : "").append(n);
    }
    return b.toString();
  }
}
