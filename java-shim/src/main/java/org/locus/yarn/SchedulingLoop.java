package org.locus.yarn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiConsumer;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.util.Time;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locus's scheduling thread ({@code locus-scheduler}): the only place the core is asked to
 * decide, so neither the RM's dispatcher nor an AM's allocate() ever waits on a decision.
 *
 * <p>Others only leave work in its inbox and return: the dispatcher the nodes that heartbeated,
 * allocate() the attempts whose asks changed, a completion that it freed resources. The RM's
 * own bookkeeping of a heartbeat (the containers the NM reports launched or completed) runs
 * here too, first thing, under the scheduler's lock: on the dispatcher it waited for that lock
 * whenever a pass was committing, and the dispatcher carries every other scheduler event. A
 * node is offered only after its heartbeat's bookkeeping, so its completed containers' room is
 * in the offer. Before each pass the thread sends the changed asks to
 * the core (each attempt's snapshot under its lock, as allocate() did before), then offers nodes
 * to the core, up to {@link #OFFERS_PER_CALL} in one call: in {@link SchedulingMode#HEARTBEAT}
 * the nodes that heartbeated, once per heartbeat (several heartbeats of a node while a pass runs
 * make one offer); in
 * {@link SchedulingMode#ASYNC} also, while any application has pending asks, every other live
 * node with room for the smallest container, from a start that rotates per pass (marked in the
 * offers frame as a sweep's offer, not a heartbeat: the locality layers count only heartbeats
 * as scheduling opportunities, so {@code delay} waits as long in both modes). A node is live
 * while it is RUNNING and heartbeated within two heartbeat intervals: containers on a dead NM
 * would only wait for the RM to expire them.
 *
 * <p>In {@link SchedulingMode#HEARTBEAT} a pass that brings new asks to the core, or follows a
 * release that did not come with a heartbeat (an AM's release, a kill), also offers those live
 * nodes with room, each once, marked eager in the offers frame: the core places on them only
 * the asks that gain nothing from waiting for a heartbeat (an ask naming no host or rack, such
 * as an AM's, a reduce's or a Spark executor's without preferences, and a key whose locality
 * wait already let it go anywhere), as CapacityScheduler's asynchronous scheduling would at
 * once, and they are no scheduling opportunity, so a map still waiting for its data waits as
 * many heartbeats as before. Such an eager sweep runs at most once per
 * {@link #FRUITLESS_PASS_PAUSE_MS} after a pass that placed nothing; what it offers is bounded
 * by the live nodes, {@link #OFFERS_PER_CALL} per call, as an async pass is. With
 * {@code locus.scheduling.eager=false} only heartbeats place anything in this mode.
 *
 * <p>The core decides without any RM lock held; the shim commits each node's decisions holding
 * the scheduler's lock, then the applications' (DecisionExecutor re-validates everything against
 * the RM's state at that moment), a batch of nodes at a time. Lock order stays scheduler,
 * application, core.
 *
 * <p>While nodes heartbeat less than {@link #QUIET_BEFORE_SLEEP_MS} apart the thread polls its
 * inbox every {@link #TICK_MS} ms, about 1,000 wake-ups a second even when there is nothing to
 * do. That is by design: the alternative, waking the thread per heartbeat, would put an unpark
 * (a system call) on the RM's dispatcher inside every NODE_UPDATE, and the dispatcher is the
 * RM's bottleneck, while a timed wait on the scheduling thread delays no one.
 *
 * <p>The thread never dies of a Locus or RM failure: a failed offer is logged (rate-limited) and
 * counted like a failed scheduler event, so a core that may have missed part of it is
 * resynchronised; after each pass a poisoned core is rebuilt ({@link CoreLink}). Only a
 * {@link VirtualMachineError} ends it. {@link #stop} ends it at the RM's serviceStop.
 */
final class SchedulingLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulingLoop.class);
  /**
   * After an async pass that placed nothing, the next one triggered only by heartbeats or
   * releases waits this long: asks that cannot be placed must not turn the thread into a spin
   * over the cluster at the NMs' heartbeat rate. New asks start a pass at once. In heartbeat
   * mode the same pause spaces eager sweeps, whatever started them: new asks still reach the
   * core at once, and the sweep after the pause offers them.
   */
  static final long FRUITLESS_PASS_PAUSE_MS = 10;
  private static final long STOP_WAIT_MS = 10_000;
  /**
   * While nodes keep heartbeating the thread looks for new ones every tick instead of being
   * woken for each: a wake-up (an unpark, a system call) would be paid on the dispatcher, inside
   * every NODE_UPDATE. A heartbeat waits at most one tick longer; a cluster quiet for
   * {@link #QUIET_BEFORE_SLEEP_MS} puts the thread to sleep until the next one wakes it.
   */
  static final long TICK_MS = 1;
  static final long QUIET_BEFORE_SLEEP_MS = 100;
  /**
   * Headroom and queue metrics are refreshed after every pass that placed a container, and at
   * least this often otherwise (releases change them too): not after every pass, which would
   * walk every application once per heartbeat under the scheduler's lock.
   */
  static final long AFTER_PASS_EVERY_MS = 100;
  /**
   * Nodes per core call. Bounds the frame and, more to the point, how long one commit holds the
   * scheduler's lock (which every NODE_UPDATE takes): at most this many nodes' containers.
   */
  static final int OFFERS_PER_CALL = 32;

  /** What a pass needs from the scheduler. */
  interface Cluster {
    /** Every node the RM tracks (a copy). */
    List<FiCaSchedulerNode> nodes();

    FiCaSchedulerNode node(NodeId id);

    /** False while a work-preserving restart waits for the NMs' reports. */
    boolean readyToAllocate();

    /** Whether any application has outstanding asks (the RM's pending-container count). */
    boolean hasPendingAsks();

    long nowMs();

    Resource minimumAllocation();

    long nodeHeartbeatIntervalMs();

    /** After a pass that offered nodes; caller holds the scheduler lock (headroom, metrics). */
    void afterPass();

    /**
     * The RM's bookkeeping of one heartbeat of {@code node} (AbstractYarnScheduler#nodeUpdate:
     * launched and completed containers, utilisation); takes the scheduler's lock.
     */
    void nodeUpdate(RMNode node);
  }

  private final CoreLink link;
  private final DecisionExecutor executor;
  private final Object schedulerLock;
  private final Cluster cluster;
  /** Tests hold or fail a pass after the core decided for a batch of nodes, before the commit. */
  private volatile BiConsumer<List<NodeId>, DecisionsFrame.Answer> decidedHook;
  /** Tests hold this thread just before it books the heartbeats queued. */
  private volatile Runnable bookkeepingHook;
  /**
   * Tests hold a booking (on any thread) after the RM's bookkeeping of a heartbeat and before
   * its node is due an offer: the moment neither queue holds the node.
   */
  private volatile Runnable bookedHook;

  // Guarded by this; each bounded by the cluster's nodes or applications.
  /**
   * Heartbeats whose RM bookkeeping is still to do, in arrival order; the dispatcher adds
   * without a lock. Bounded by the nodes: the RM sends a node's next NODE_UPDATE only after the
   * scheduler pulled the previous one's container updates (RMNodeImpl's nextHeartBeat), which
   * is this bookkeeping. (A wrapper that pulls them itself, as SLS's does, gets one per
   * heartbeat, as the RM's own event queue would hold them.)
   */
  private final Queue<QueuedHeartbeat> updates = new ConcurrentLinkedQueue<>();
  /**
   * Nodes that heartbeated since they were last offered, in arrival order, each once: the
   * dispatcher adds without taking this loop's lock. Bounded by the cluster's nodes.
   */
  private final Queue<NodeId> heartbeated = new ConcurrentLinkedQueue<>();
  private final Set<NodeId> heartbeatQueued = ConcurrentHashMap.newKeySet();
  /** A heartbeat still to book, and when it arrived: its wait is an operator's gauge. */
  private static final class QueuedHeartbeat {
    final RMNode node;
    final long arrivedNanos;

    QueuedHeartbeat(RMNode node, long arrivedNanos) {
      this.node = node;
      this.arrivedNanos = arrivedNanos;
    }
  }

  /** True only while the thread waits without a tick: then a heartbeat must wake it. */
  private volatile boolean asleep;
  private long lastAfterPassMs;
  private Set<LocusAppAttempt> asksChanged = new LinkedHashSet<>();
  private boolean freed;
  private boolean placedLastPass;
  /** HEARTBEAT mode: asks reached the core, or room was released, since the last eager sweep. */
  private boolean eagerDue;
  /**
   * The thread booking a heartbeat now, if any: a container its NM reported finished frees room
   * the node's own offer uses, which needs no sweep.
   */
  private volatile Thread booking;
  private long notBeforeMs;
  private boolean passing;
  private boolean stopped;
  private Thread thread;
  /**
   * True from the start of {@link #run} to its end, however it ends: read on every NODE_UPDATE,
   * where a volatile read is cheaper than asking the thread whether it is alive.
   */
  private volatile boolean running;
  private int rotation;

  SchedulingLoop(CoreLink link, DecisionExecutor executor, Object schedulerLock,
      Cluster cluster) {
    this.link = link;
    this.executor = executor;
    this.schedulerLock = schedulerLock;
    this.cluster = cluster;
  }

  /** The mode of the core in service ({@link CoreLink#mode}), read afresh by every pass. */
  SchedulingMode mode() {
    return link.mode();
  }

  /** The core in service resolves another mode (a refresh, a rebuild): the next pass runs it. */
  void modeChanged() {
    wake();
  }

  void setDecidedHook(BiConsumer<List<NodeId>, DecisionsFrame.Answer> hook) {
    decidedHook = hook;
  }

  void setBookkeepingHook(Runnable hook) {
    bookkeepingHook = hook;
  }

  void setBookedHook(Runnable hook) {
    bookedHook = hook;
  }

  /** Tests: the scheduling thread (null before start). */
  synchronized Thread thread() {
    return thread;
  }

  /** Tests: whether the thread has gone to sleep until a heartbeat (or a booking) wakes it. */
  boolean asleep() {
    return asleep;
  }

  synchronized void start() {
    if (thread != null || stopped) {
      return;
    }
    thread = new Thread(this, "locus-scheduler");
    thread.setDaemon(true);
    thread.start();
  }

  /** Ends the thread after the offer in progress; waits for it (10 s at most). */
  void stop() {
    Thread t;
    synchronized (this) {
      stopped = true;
      notifyAll();
      t = thread;
    }
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(STOP_WAIT_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      LOG.warn("Locus scheduling thread still busy {} s after the scheduler stopped",
          STOP_WAIT_MS / 1000);
    }
  }

  /**
   * A node heartbeated (NODE_UPDATE on the RM's dispatcher): queued, nothing waited for. False
   * when this thread is not running (not started, stopped, or ended by a VirtualMachineError):
   * the caller then books the queue itself ({@link #bookkeepQueuedHeartbeats}), so the RM's
   * bookkeeping never stops with Locus's placement.
   */
  boolean nodeHeartbeat(RMNode node) {
    return nodeHeartbeat(node, System.nanoTime());
  }

  /**
   * As {@link #nodeHeartbeat(RMNode)}, the heartbeat arriving at {@code arrivedNanos}
   * ({@link System#nanoTime}): the dispatcher's timing of NODE_UPDATE already read the clock,
   * and a second read was a fifth of the hand-over's cost.
   */
  boolean nodeHeartbeat(RMNode node, long arrivedNanos) {
    updates.add(new QueuedHeartbeat(node, arrivedNanos));
    // Read after the add (both are full fences): the thread sets asleep before it re-checks
    // the queue under this lock and waits, so one of the two sees the other.
    if (asleep) {
      wake();
    }
    // Queued first either way: a thread that ended after this check leaves nothing behind
    // that the caller's booking of the whole queue does not take.
    return running;
  }

  /**
   * Heartbeats queued for their bookkeeping now (the metrics' gauge). Counts the queue, so at
   * most one step per node (the queue's bound); read at metrics snapshots, never per heartbeat.
   */
  int queuedHeartbeats() {
    return updates.size();
  }

  /** How long the oldest queued heartbeat has waited for its bookkeeping, ms; 0 if none waits. */
  long oldestQueuedHeartbeatAgeMs() {
    QueuedHeartbeat oldest = updates.peek();
    return oldest == null ? 0 : (System.nanoTime() - oldest.arrivedNanos) / 1_000_000;
  }

  /** allocate() (or the RM) changed {@code attempt}'s asks; they reach the core before a pass. */
  synchronized void asksChanged(LocusAppAttempt attempt) {
    asksChanged.add(attempt);
    notifyAll();
  }

  /**
   * A container ended: in async mode its room is offered without waiting for a heartbeat; in
   * heartbeat mode, unless its node's heartbeat reported it (that node is offered next anyway),
   * to the asks with nothing to wait for.
   */
  synchronized void resourcesFreed() {
    freed = true;
    if (booking != Thread.currentThread()) {
      eagerDue = true;
    }
    notifyAll();
  }

  private synchronized void wake() {
    notifyAll();
  }

  private boolean hasWork(long now) {
    if (!asksChanged.isEmpty()) {
      return true;
    }
    if (mode() == SchedulingMode.HEARTBEAT) {
      return !heartbeated.isEmpty() || (eagerDue && link.eager() && !paused(now));
    }
    return (!heartbeated.isEmpty() || freed || placedLastPass) && !paused(now);
  }

  /** After a pass that placed nothing, a sweep waits {@link #FRUITLESS_PASS_PAUSE_MS}. */
  private boolean paused(long now) {
    return !placedLastPass && now < notBeforeMs;
  }

  /** The trigger of a pass that {@link #hasWork} may have held back by {@link #paused}. */
  private boolean pausable() {
    return mode() == SchedulingMode.ASYNC ? freed : eagerDue && link.eager();
  }

  /**
   * Waits until no pass runs and none is due (tests: what the RM's bookkeeping shows then is
   * what the core decided so far). False if that did not happen within {@code timeoutMs}.
   */
  synchronized boolean awaitIdle(long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!stopped && thread != null
        && (passing || !updates.isEmpty() || hasWork(Long.MAX_VALUE))) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }

  @Override
  public void run() {
    running = true;
    LOG.info("Locus scheduling thread started ({} mode)", mode());
    try {
      while (true) {
        List<NodeId> nodes;
        List<LocusAppAttempt> asks;
        boolean sweep;
        boolean eager;
        synchronized (this) {
          long now = System.currentTimeMillis();
          long quietSince = now;
          while (!stopped && updates.isEmpty() && !hasWork(now)) {
            // Only a trigger hasWork counts may pause with a timeout: in HEARTBEAT mode a
            // container its node's heartbeat freed waits for that offer, not for a 1 ms poll.
            boolean pausing = !heartbeated.isEmpty() || pausable();
            if (pausing) {
              wait(Math.max(1, notBeforeMs - now));
            } else if (now - quietSince < QUIET_BEFORE_SLEEP_MS) {
              wait(TICK_MS);
            } else {
              asleep = true;
              // Both queues: the dispatcher's booking before another event may have moved a
              // node from one to the other since the loop's condition was read.
              if (updates.isEmpty() && heartbeated.isEmpty()) {
                wait(0);
              }
              asleep = false;
              quietSince = System.currentTimeMillis();
            }
            now = System.currentTimeMillis();
          }
          if (stopped) {
            return;
          }
          passing = true;
        }
        try {
          bookkeepHeartbeats();
        } catch (Throwable t) {
          synchronized (this) {
            passing = false;
            notifyAll();
          }
          throw t;
        }
        synchronized (this) {
          if (stopped) {
            return;
          }
          if (!hasWork(System.currentTimeMillis())) {
            // Bookkeeping only (an async pause, or nodes a pass offers later).
            passing = false;
            notifyAll();
            continue;
          }
          nodes = new ArrayList<>();
          for (NodeId n = heartbeated.poll(); n != null; n = heartbeated.poll()) {
            // Removed before the offer: a heartbeat during the pass makes the next offer.
            heartbeatQueued.remove(n);
            nodes.add(n);
          }
          asks = new ArrayList<>(asksChanged);
          asksChanged = new LinkedHashSet<>();
          sweep = mode() == SchedulingMode.ASYNC;
          // New asks reach the core in this pass: an eager sweep after them places at once
          // those that have nothing to wait for (or the next one does, after a pause).
          eagerDue |= !sweep && !asks.isEmpty();
          eager = !sweep && eagerDue && link.eager() && !paused(System.currentTimeMillis());
          if (eager || sweep || !link.eager()) {
            eagerDue = false;
          }
          freed = false;
          passing = true;
        }
        int placed = 0;
        try {
          placed = pass(nodes, asks, sweep || eager,
              eager ? OffersFrame.KIND_EAGER : OffersFrame.KIND_SWEEP);
        } catch (Throwable t) {
          FailureLog.rethrowIfJvmBroken(t);
          link.failures().warn("Locus scheduling pass", "the cluster", t, null);
        } finally {
          // Before the pass is over for awaitIdle: a resync this pass asked for has started by
          // the time anyone sees the thread idle, so waiting for idle and then for the rebuild
          // in progress covers it (a test settling the RM read the core between the two).
          try {
            link.rebuildIfNeeded();
          } catch (RuntimeException e) {
            link.failures().warn("Starting a Locus core rebuild", "the cluster", e, null);
          }
          synchronized (this) {
            passing = false;
            placedLastPass = placed > 0;
            notBeforeMs = System.currentTimeMillis() + FRUITLESS_PASS_PAUSE_MS;
            notifyAll();
          }
        }
      }
    } catch (InterruptedException e) {
      LOG.info("Locus scheduling thread interrupted; it stops");
    } finally {
      running = false;
      LOG.info("Locus scheduling thread stopped");
    }
  }

  private synchronized boolean isStopped() {
    return stopped;
  }

  /**
   * On locus-scheduler: the RM's bookkeeping of every heartbeat queued, each node then due an
   * offer; {@link #OFFERS_PER_CALL} heartbeats per hold of the scheduler's lock, so that a
   * flood of them does not keep the RM's other users of the lock out.
   */
  private void bookkeepHeartbeats() {
    Runnable hook = bookkeepingHook;
    if (hook != null && !updates.isEmpty()) {
      hook.run();
    }
    while (!updates.isEmpty()) {
      synchronized (schedulerLock) {
        bookUnderLock(OFFERS_PER_CALL);
      }
    }
  }

  /**
   * On the RM's dispatcher, before every scheduler event but NODE_UPDATE: books the heartbeats
   * still queued, so the RM's order of events holds for the bookkeeping (a task its NM reported
   * finished is finished before its application's removal kills what is left, a node's last
   * heartbeat is booked before its NODE_REMOVED). The queue is polled only under the scheduler's
   * lock, so once this holds the lock no earlier heartbeat is half-booked elsewhere. Those
   * events are rare next to heartbeats, and most take the lock anyway.
   */
  void bookkeepQueuedHeartbeats() {
    synchronized (schedulerLock) {
      bookUnderLock(Integer.MAX_VALUE);
    }
  }

  /**
   * Books up to {@code max} queued heartbeats; the caller holds the scheduler's lock. A failure
   * is that heartbeat's alone (logged, rate-limited, and the core resynchronised as for a failed
   * scheduler event); the node is still offered.
   */
  private void bookUnderLock(int max) {
    for (int i = 0; i < max; i++) {
      QueuedHeartbeat queued = updates.poll();
      if (queued == null) {
        return;
      }
      RMNode node = queued.node;
      long calls = link.coreCallsOfThisThread();
      booking = Thread.currentThread();
      try {
        cluster.nodeUpdate(node);
      } catch (Throwable t) {
        FailureLog.rethrowIfJvmBroken(t);
        link.failures().warn("Scheduler event NODE_UPDATE", "node " + node.getNodeID(), t,
            null);
        link.eventFailed(t, calls);
      } finally {
        booking = null;
      }
      Runnable hook = bookedHook;
      if (hook != null) {
        hook.run();
      }
      NodeId id = node.getNodeID();
      if (heartbeatQueued.add(id)) {
        heartbeated.add(id);
      }
      // Booked by the dispatcher (before another event): the node is due an offer, and this
      // thread may have gone to sleep meanwhile (the same handshake as nodeHeartbeat's).
      if (asleep) {
        wake();
      }
    }
  }

  /**
   * One pass; returns the containers it placed. {@code sweep}: also offer every live node with
   * room, marked {@code sweptKind} (an async sweep's or, in heartbeat mode, an eager one).
   */
  private int pass(List<NodeId> heartbeatedNodes, List<LocusAppAttempt> asks, boolean sweep,
      byte sweptKind) {
    for (LocusAppAttempt attempt : asks) {
      sendAsks(attempt);
    }
    if (!cluster.readyToAllocate()) {
      return 0;
    }
    Set<FiCaSchedulerNode> offers = new LinkedHashSet<>();
    // Offered without having heartbeated: not a scheduling opportunity for the locality layers.
    Set<FiCaSchedulerNode> swept = new java.util.HashSet<>();
    for (NodeId id : heartbeatedNodes) {
      FiCaSchedulerNode n = cluster.node(id);
      if (n != null) {
        offers.add(n);
      }
    }
    if (sweep && cluster.hasPendingAsks()) {
      List<FiCaSchedulerNode> all = cluster.nodes();
      int size = all.size();
      int start = size == 0 ? 0 : Math.floorMod(rotation++, size);
      long now = Time.monotonicNow();
      long liveWithin = 2 * cluster.nodeHeartbeatIntervalMs();
      Resource smallest = cluster.minimumAllocation();
      for (int i = 0; i < size; i++) {
        FiCaSchedulerNode n = all.get((start + i) % size);
        if (now - n.getLastHeartbeatMonotonicTime() <= liveWithin
            && n.getRMNode().getState() == NodeState.RUNNING
            && Resources.fitsIn(smallest, n.getUnallocatedResource())
            && offers.add(n)) {
          swept.add(n);
        }
      }
    }
    int placed = 0;
    List<FiCaSchedulerNode> batch = new ArrayList<>(Math.min(offers.size(), OFFERS_PER_CALL));
    for (FiCaSchedulerNode node : offers) {
      batch.add(node);
      if (batch.size() == OFFERS_PER_CALL) {
        if (isStopped()) {
          break;
        }
        // A long async pass must not hold back the heartbeats that came in meanwhile: their
        // completions are booked between batches (the nodes are offered by the next pass).
        bookkeepHeartbeats();
        placed += offer(batch, swept, sweptKind);
        batch.clear();
      }
    }
    if (!batch.isEmpty() && !isStopped()) {
      placed += offer(batch, swept, sweptKind);
    }
    long now = System.currentTimeMillis();
    if (!offers.isEmpty() && (placed > 0 || now - lastAfterPassMs >= AFTER_PASS_EVERY_MS)) {
      lastAfterPassMs = now;
      synchronized (schedulerLock) {
        cluster.afterPass();
      }
    }
    return placed;
  }

  /**
   * Asks the core for the decisions of {@code nodes} in one call (one offers frame, one JNI
   * crossing, one lock of the core) and commits them in one hold of the scheduler's lock (one
   * {@code events} call back); returns the containers created. The core decides the nodes in
   * order exactly as it decides one heartbeat each, so batching changes what crosses, not what
   * is decided.
   */
  private int offer(List<FiCaSchedulerNode> nodes, Set<FiCaSchedulerNode> swept,
      byte sweptKind) {
    long calls = link.coreCallsOfThisThread();
    List<NodeId> ids = new ArrayList<>(nodes.size());
    for (FiCaSchedulerNode n : nodes) {
      ids.add(n.getNodeID());
    }
    try {
      // Only nodes the RM still holds as these objects: a long async pass looked its nodes up
      // at its start, and a node that left and re-registered since is a new object, whose
      // decisions the executor would refuse as made for the old one (it is offered by its own
      // heartbeat instead).
      List<FiCaSchedulerNode> current = new ArrayList<>(nodes.size());
      for (FiCaSchedulerNode n : nodes) {
        if (cluster.node(n.getNodeID()) == n) {
          current.add(n);
        }
      }
      nodes = current;
      // The frame's own node list: a node whose id it cannot carry is left out of it, and the
      // answer names nodes by their place in the frame.
      List<NodeId> offered = new ArrayList<>(ids.size());
      ByteBuffer frame = OffersFrame.encode(nodes, swept, sweptKind, cluster.nowMs(), offered);
      DecisionsFrame.Answer response = offered.isEmpty() ? null
          : link.offers(frame, offered, subject(ids));
      BiConsumer<List<NodeId>, DecisionsFrame.Answer> hook = decidedHook;
      if (hook != null) {
        hook.accept(ids, response);
      }
      if (response == null || response.decisions.isEmpty()) {
        return 0;
      }
      Map<NodeId, FiCaSchedulerNode> objects = new HashMap<>(nodes.size() * 2);
      for (FiCaSchedulerNode n : nodes) {
        objects.put(n.getNodeID(), n);
      }
      synchronized (schedulerLock) {
        return executor.run(response, objects);
      }
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Locus scheduling pass", subject(ids), t, null);
      link.eventFailed(t, calls);
      return 0;
    }
  }

  private static String subject(List<NodeId> ids) {
    return ids.size() == 1 ? "node " + ids.get(0)
        : ids.size() + " nodes from " + ids.get(0);
  }

  /**
   * Sends {@code attempt}'s asks if they changed since the core last saw them. A refusal (e.g.
   * over a per-application limit) is this application's alone: the core keeps its previous
   * asks, the RM log names the app once per minute, the AM's next allocate() shows it in the
   * attempt's diagnostics, and the snapshot is re-sent at the next change.
   */
  private void sendAsks(LocusAppAttempt attempt) {
    long calls = link.coreCallsOfThisThread();
    try {
      synchronized (attempt) {
        if (attempt.isStopped()) {
          return;
        }
        com.fasterxml.jackson.databind.node.ObjectNode blacklist = attempt.takeBlacklistEvent();
        if (blacklist != null) {
          // A refusal is logged by the link and costs only this list: the RM still refuses
          // blacklisted nodes at commit.
          link.send(Collections.singletonList(blacklist), Collections.singleton(attempt));
        }
        com.fasterxml.jackson.databind.node.ObjectNode partitions = attempt.takePartitionsEvent();
        if (partitions != null) {
          // Before the rows, so a labelled key is never offered a node of another partition.
          link.send(Collections.singletonList(partitions), Collections.singleton(attempt));
        }
        java.nio.ByteBuffer frame;
        try {
          frame = attempt.takeAsksFrame(link.nameIds(), link.maxAskRows());
        } catch (AsksFrame.RowRefused refused) {
          // Refused by the shim as the core would refuse it (the attempt recorded it).
          link.failures().warn("Locus core update", "application " + attempt.getApplicationId(),
              refused, null);
          return;
        }
        if (frame == null) {
          // Nothing the AM changed: the RM's own changes (completions) are checked by digest.
          // takeAsksFrame wrote any snapshot owed that may be sent, so only a digest is left.
          EventsFrame check = new EventsFrame();
          attempt.asksCheck(check);
          LocusException refused =
              check.isEmpty() ? null : link.send(check, Collections.singleton(attempt));
          if (refused != null && !(refused instanceof LocusCorePoisonedException)) {
            attempt.asksRefused(refused.getMessage());
          }
          return;
        }
        LocusException refusal = link.sendAsks(frame, attempt);
        if (refusal == null) {
          attempt.asksAccepted();
        } else if (!(refusal instanceof LocusCorePoisonedException)) {
          attempt.asksRefused(refusal.getMessage());
        }
      }
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Sending asks to the Locus core",
          "application " + attempt.getApplicationId(), t, null);
      link.eventFailed(t, calls);
    }
  }
}
