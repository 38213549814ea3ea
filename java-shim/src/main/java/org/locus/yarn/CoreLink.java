package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's connection to the core in service: every call goes through here, so a core
 * refusal is logged once (rate-limited, naming the application or node), and a core that
 * panicked is taken out of service and replaced by {@link #replace} at the scheduler's next
 * safe point instead of being trusted again.
 */
final class CoreLink {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);
  /** Same failure for the same application or node: one log line per minute at most. */
  private static final long FAILURE_LOG_INTERVAL_MS = 60_000;

  private final FailureLog failures =
      new FailureLog(LOG, FAILURE_LOG_INTERVAL_MS, System::currentTimeMillis);
  /**
   * A failure the scheduler survived may have left the core's view short of the RM's (an
   * event half handled): resynchronise by a rebuild, at most this often.
   */
  private static final long RESYNC_INTERVAL_MS = 60_000;

  private final AtomicBoolean poisoned = new AtomicBoolean();
  private final AtomicBoolean resyncWanted = new AtomicBoolean();
  private volatile long lastRebuildMs = Long.MIN_VALUE / 2;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong rebuilds = new AtomicLong();
  private volatile LocusCore core;

  void open(String settingsJson) {
    core = LocusCore.open(settingsJson);
  }

  /** The core in service, or null before {@link #open}. */
  LocusCore current() {
    return core;
  }

  FailureLog failures() {
    return failures;
  }

  /**
   * True when a core call failed because the core panicked, or a resynchronisation was asked
   * for and the last rebuild is long enough ago; cleared by {@link #replace}.
   */
  boolean needsRebuild() {
    if (closed.get()) {
      return false;
    }
    return poisoned.get() || (resyncWanted.get()
        && System.currentTimeMillis() - lastRebuildMs >= RESYNC_INTERVAL_MS);
  }

  /**
   * An event failed half way through the scheduler's bookkeeping; the core may have missed
   * part of it. The next rebuild (rate-limited) brings it back in line with the RM.
   */
  void requestResync() {
    resyncWanted.set(true);
  }

  long rebuilds() {
    return rebuilds.get();
  }

  private boolean usable(LocusCore c) {
    return c != null && !c.isClosed() && !closed.get();
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
    if (!usable(c) || poisoned.get()) {
      LOG.debug("Locus core closed or awaiting rebuild; not sending {} events", events.size());
      forgetSnapshots(snapshotsFrom);
      return null;
    }
    String json = CoreMessages.array(events);
    try {
      c.events(json);
      return null;
    } catch (LocusCorePoisonedException e) {
      poisoned(e);
      forgetSnapshots(snapshotsFrom);
      return e;
    } catch (LocusException e) {
      if (logRefusal) {
        failures.warn("Locus core update", subjectOf(events), e, json);
      } else {
        LOG.debug("Locus core refused {}: {}", json, e.getMessage());
      }
      forgetSnapshots(snapshotsFrom);
      return e;
    }
  }

  /** The core's decisions for one heartbeat, or null when it could not decide. */
  JsonNode heartbeat(String heartbeatJson, String node) {
    LocusCore c = core;
    if (!usable(c) || poisoned.get()) {
      return null;
    }
    try {
      return CoreMessages.JSON.readTree(c.heartbeat(heartbeatJson));
    } catch (LocusCorePoisonedException e) {
      poisoned(e);
    } catch (IOException | LocusException e) {
      failures.warn("Locus heartbeat", "node " + node, e, heartbeatJson);
    }
    return null;
  }

  /** A core call outside this class found the core poisoned. */
  void poisoned(LocusCorePoisonedException e) {
    if (poisoned.compareAndSet(false, true)) {
      LOG.error("{}; LocusScheduler rebuilds it from the ResourceManager's bookkeeping at "
          + "its next event", e.getMessage());
    }
  }

  private static void forgetSnapshots(Collection<LocusAppAttempt> attempts) {
    for (LocusAppAttempt a : attempts) {
      a.forgetAsksSent();
    }
  }

  /**
   * Builds a new core from the same settings, feeds it {@code replay} (the RM's bookkeeping,
   * see {@link CoreRebuild}), puts it in service and closes the old one. Caller holds the
   * scheduler lock. A replay event the new core refuses is logged and skipped; a new core that
   * panics too stays out of service and the next event tries again.
   */
  void replace(String settingsJson, List<ObjectNode> replay) {
    LocusCore fresh = LocusCore.open(settingsJson);
    try {
      fresh.events(CoreMessages.array(replay));
    } catch (LocusCorePoisonedException e) {
      fresh.close();
      throw e;
    } catch (LocusException e) {
      failures.warn("Replaying the ResourceManager's bookkeeping into a new Locus core",
          "the cluster", e, null);
    }
    LocusCore old = core;
    core = fresh;
    poisoned.set(false);
    resyncWanted.set(false);
    lastRebuildMs = System.currentTimeMillis();
    long n = rebuilds.incrementAndGet();
    try {
      old.close();
    } catch (LocusException e) {
      LOG.debug("Closing the replaced Locus core failed: {}", e.getMessage());
    }
    LOG.warn("Locus core rebuilt from the ResourceManager's bookkeeping ({} events replayed); "
        + "{} rebuilds since start", replay.size(), n);
  }

  /** The core's counters plus the shim's own ({@code core_rebuilds}). */
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

  /** At shutdown: closes the core once; later sends are dropped. */
  void close() {
    LocusCore c = core;
    if (c != null && closed.compareAndSet(false, true)) {
      c.close();
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
