package org.locus.yarn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.UpdateContainerError;
import org.apache.hadoop.yarn.api.records.UpdateContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerImpl;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RM's own attempt bookkeeping (asks, live containers, tokens, metrics) plus the two things
 * Locus needs on top: a one-step allocation at a known locality, and what the core must be told
 * of the asks. The bridge carries changes, not states: the rows the AM sent go over as they are
 * ({@code asks_changed}); decisions the shim executed send nothing of the asks (the core took
 * those containers off when it decided), only the digest ({@link AsksDigest}) that lets the core
 * find drift. A full snapshot goes out only when the core may not hold the RM's view: a new or
 * rebuilt core, a refused or failed update, or a digest the core found different. Which of
 * those holds is kept in {@link AskSync}; the rows noted since the last send are kept here.
 *
 * <p>The attempt's monitor is "the application lock" of docs/design/architecture.md: whoever changes
 * the asks or executes a decision holds it while telling the core, so snapshots reach the core
 * in the order the asks changed.
 */
class LocusAppAttempt extends FiCaSchedulerApp {
  private static final Logger LOG = LoggerFactory.getLogger(LocusAppAttempt.class);
  /** Places of one blacklist the core is told of (the core's {@code MAX_BLACKLIST_PLACES}). */
  static final int MAX_BLACKLIST_PLACES = 4096;

  /**
   * Guarded by {@code this}: the shim's copies of the two lists {@code AppSchedulingInfo}
   * keeps, each cut at {@link #MAX_BLACKLIST_PLACES} (the RM keeps them whole): the system's,
   * in force while the AM container is awaited, and the AM's own.
   */
  private final Set<String> systemBlacklist = new LinkedHashSet<>();
  private final Set<String> appBlacklist = new LinkedHashSet<>();
  /** Guarded by {@code this}: a list changed since the core was told. */
  private boolean blacklistChanged;
  /** Guarded by {@code this}: whether the list the core holds is the system's. */
  private boolean blacklistSentForAm = true;
  /** Guarded by {@code this}: the one warning of places past the cap was logged. */
  private boolean blacklistCapWarned;
  /** The key partitions the core was last told (empty: every key in the default partition). */
  private Map<SchedulerRequestKey, String> partitionsSent = java.util.Collections.emptyMap();
  /**
   * Guarded by {@code this}: whether the core holds these asks as the RM does, its last
   * refusal, and the count of the RM's put-backs the changed frame reads.
   */
  private final AskSync sync = new AskSync();
  /** The refusal the RM's attempt diagnostics show now (null: none). */
  private volatile String shownRefusal;
  /**
   * Guarded by {@code writeLock}: containers marked for preemption since the AM's last
   * allocate (FiCaSchedulerApp keeps its own set private to its own getAllocation).
   */
  private final Set<ContainerId> toPreempt = new LinkedHashSet<>();

  LocusAppAttempt(ApplicationAttemptId attemptId, String user, Queue queue,
      ActiveUsersManager users, RMContext rmContext) {
    super(attemptId, user, queue, users, rmContext);
  }

  /** What an allocate response tells the AM to give back. */
  static final class PreemptionContract {
    final Set<ContainerId> containers;
    final List<ResourceRequest> room;

    PreemptionContract(Set<ContainerId> containers, List<ResourceRequest> room) {
      this.containers = containers;
      this.room = room;
    }
  }

  /** A preemption mark (the RM's MARK_CONTAINER_FOR_PREEMPTION); a finished one is ignored. */
  @Override
  public void markContainerForPreemption(ContainerId cont) {
    writeLock.lock();
    try {
      if (liveContainers.containsKey(cont)) {
        toPreempt.add(cont);
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The containers marked since the last call that still run, with the resource they hold, as
   * CapacityScheduler hands them to the AM: a preemption contract of those containers and of
   * that much room in minimum allocations ({@code Allocation}'s fungible sets). Null when none.
   */
  PreemptionContract pullPreemptionContract(Resource minimumAllocation) {
    writeLock.lock();
    try {
      if (toPreempt.isEmpty()) {
        return null;
      }
      Set<ContainerId> live = new LinkedHashSet<>();
      long mb = 0;
      for (ContainerId id : toPreempt) {
        RMContainer c = liveContainers.get(id);
        if (c != null) {
          live.add(id);
          mb += c.getContainer().getResource().getMemorySize();
        }
      }
      toPreempt.clear();
      if (live.isEmpty()) {
        return null;
      }
      long unit = Math.max(1L, minimumAllocation.getMemorySize());
      int count = (int) Math.min(Integer.MAX_VALUE, (mb + unit - 1) / unit);
      ResourceRequest rr = ResourceRequest.newBuilder().priority(Priority.UNDEFINED)
          .resourceName(ResourceRequest.ANY).capability(minimumAllocation)
          .numContainers(count).build();
      return new PreemptionContract(live, java.util.Collections.singletonList(rr));
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The application's usage as the RM shows it ({@code yarn application -status}, the UI, and
   * every attempt the RM stores), with the figures CapacityScheduler reports, computed here:
   * FiCaSchedulerApp's own version casts the queue to CapacityScheduler's queue class as soon as
   * the node label manager holds any resource for the AM's partition, which it does for every
   * node Locus adds (as under CapacityScheduler), and the RM's main dispatcher, which exits on
   * anything thrown, reads this report.
   */
  @Override
  public ApplicationResourceUsageReport getResourceUsageReport() {
    readLock.lock();
    try {
      Resource used = Resources.clone(attemptResourceUsage.getAllUsed());
      Resource reserved = Resources.clone(attemptResourceUsage.getAllReserved());
      Resource cluster = rmContext.getScheduler().getClusterResource();
      ResourceCalculator calc = rmContext.getScheduler().getResourceCalculator();
      float clusterPercent = 0f;
      float queuePercent = 0f;
      if (!calc.isAllInvalidDivisor(cluster)) {
        clusterPercent = calc.divide(cluster, used, cluster) * 100f;
        Resource guaranteed = Resources.multiply(cluster, guaranteedShare());
        queuePercent = calc.divide(cluster, used, guaranteed) * 100f;
        if (Float.isNaN(queuePercent) || Float.isInfinite(queuePercent)) {
          queuePercent = 0f;
        }
      }
      Map<String, Long> preempted = new HashMap<>();
      preempted.put(ResourceInformation.MEMORY_MB.getName(), 0L);
      preempted.put(ResourceInformation.VCORES.getName(), 0L);
      return ApplicationResourceUsageReport.newInstance(liveContainers.size(),
          getReservedContainers().size(), used, reserved, Resources.add(used, reserved),
          runningResourceSeconds(), queuePercent, clusterPercent, preempted);
    } finally {
      readLock.unlock();
    }
  }

  /** The queue's guaranteed share of the cluster, as a fraction (Locus has no node labels). */
  private double guaranteedShare() {
    Queue q = getQueue();
    if (q instanceof LocusQueue) {
      return ((LocusQueue) q).guaranteedPercent() / 100.0;
    }
    return q.getQueueInfo(false, false).getCapacity();
  }

  /**
   * Resource-seconds held so far by the containers still running (completed ones the RM's
   * attempt metrics add up): each resource's amount times how long each container has lived.
   * One walk over the containers the RM already holds for this attempt.
   */
  private Map<String, Long> runningResourceSeconds() {
    long now = System.currentTimeMillis();
    Map<String, Long> seconds = new HashMap<>();
    for (RMContainer c : liveContainers.values()) {
      long lived = Math.max(0L, now - c.getCreationTime());
      for (ResourceInformation r : c.getContainer().getResource().getResources()) {
        seconds.merge(r.getName(), r.getValue() * lived / 1000L, Long::sum);
      }
    }
    return seconds;
  }

  /**
   * The RM's update, then the same on the shim's copy the core is told of: the system's list
   * while the AM container is awaited, the AM's after, as {@code SchedulerApplicationAttempt}
   * picks. Places past {@link #MAX_BLACKLIST_PLACES} are left out of the copy (the RM still
   * refuses containers there) with one warning per attempt.
   */
  @Override
  public void updateBlacklist(List<String> additions, List<String> removals) {
    boolean forAm = isWaitingForAMContainer();
    super.updateBlacklist(additions, removals);
    synchronized (this) {
      if (isStopped()) {
        return;
      }
      Set<String> list = forAm ? systemBlacklist : appBlacklist;
      boolean changed = false;
      if (removals != null) {
        for (String place : removals) {
          changed |= list.remove(place);
        }
      }
      int left = 0;
      if (additions != null) {
        for (String place : additions) {
          if (list.size() < MAX_BLACKLIST_PLACES || list.contains(place)) {
            changed |= list.add(place);
          } else {
            left++;
          }
        }
      }
      if (left > 0 && !blacklistCapWarned) {
        blacklistCapWarned = true;
        LOG.warn("Application {} blacklists more than {} nodes and racks; Locus decides as if"
            + " {} of them were not on the list (the ResourceManager still refuses them)",
            getApplicationId(), MAX_BLACKLIST_PLACES, left);
      }
      blacklistChanged |= changed;
    }
  }

  /**
   * A work-preserving AM restart: the RM hands the AM's blacklist to the new attempt
   * ({@code AppSchedulingInfo.transferStateFromPreviousAppSchedulingInfo}), and so does the
   * shim's copy; the core, which forgot it with the old attempt, is told once the AM's list is
   * in force.
   */
  @Override
  public void transferStateFromPreviousAttempt(
      org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt
          previous) {
    super.transferStateFromPreviousAttempt(previous);
    if (previous instanceof LocusAppAttempt) {
      LocusAppAttempt p = (LocusAppAttempt) previous;
      List<String> places;
      synchronized (p) {
        places = new ArrayList<>(p.appBlacklist);
      }
      synchronized (this) {
        appBlacklist.clear();
        appBlacklist.addAll(places);
        blacklistChanged |= !places.isEmpty();
      }
    }
  }

  /**
   * Whether the core is owed the blacklist in force: it changed, or the AM container started
   * and the AM's list replaced the system's (told only if either holds anything).
   */
  synchronized boolean blacklistOwed() {
    return blacklistChanged || (blacklistSentForAm != isWaitingForAMContainer()
        && !(systemBlacklist.isEmpty() && appBlacklist.isEmpty()));
  }

  /** The {@code app_blacklist} event the core is owed, null if none; marks it told. */
  synchronized com.fasterxml.jackson.databind.node.ObjectNode takeBlacklistEvent() {
    boolean owed = blacklistOwed();
    blacklistChanged = false;
    blacklistSentForAm = isWaitingForAMContainer();
    return owed ? blacklistEvent() : null;
  }

  /**
   * The partition each scheduler key asks for, as the RM holds it (its {@code *} row's label
   * expression: the ask's own, else the application's, else the queue's default), the keys of
   * the default partition left out.
   */
  synchronized Map<SchedulerRequestKey, String> keyPartitions() {
    Map<SchedulerRequestKey, String> out = new java.util.TreeMap<>();
    for (SchedulerRequestKey key : getAppSchedulingInfo().getSchedulerKeys()) {
      AppPlacementAllocator<FiCaSchedulerNode> p = getAppPlacementAllocator(key);
      String partition = p == null ? null : p.getPrimaryRequestedNodePartition();
      if (partition != null && !partition.isEmpty()) {
        out.put(key, partition);
      }
    }
    return out;
  }

  /** The RM's context, for checks made on the attempt's behalf. */
  RMContext rmContext() {
    return rmContext;
  }

  /** The {@code key_partitions} event the core is owed (they changed), null if none. */
  synchronized com.fasterxml.jackson.databind.node.ObjectNode takePartitionsEvent() {
    Map<SchedulerRequestKey, String> now = keyPartitions();
    if (now.equals(partitionsSent)) {
      return null;
    }
    partitionsSent = now;
    return CoreMessages.keyPartitions(getApplicationId(), now);
  }

  /** The partitions of the keys as a {@code key_partitions} event (a rebuild's replay). */
  synchronized com.fasterxml.jackson.databind.node.ObjectNode partitionsEvent() {
    partitionsSent = keyPartitions();
    return partitionsSent.isEmpty() ? null
        : CoreMessages.keyPartitions(getApplicationId(), partitionsSent);
  }

  /** The blacklist in force as an {@code app_blacklist} event (a rebuild's replay). */
  synchronized com.fasterxml.jackson.databind.node.ObjectNode blacklistEvent() {
    return CoreMessages.appBlacklist(getApplicationId(),
        isWaitingForAMContainer() ? systemBlacklist : appBlacklist);
  }

  /** Whether the blacklist in force holds anything. */
  synchronized boolean hasBlacklist() {
    return !(isWaitingForAMContainer() ? systemBlacklist : appBlacklist).isEmpty();
  }

  /**
   * Creates the RMContainer for {@code container} on {@code node} against the ask at
   * {@code key}, consuming the ask rows of {@code type} like the built-in schedulers do.
   *
   * @return null when the attempt stopped or the ask is no longer outstanding at that
   *     locality (an AM may update its asks at any time)
   */
  RMContainer allocate(NodeType type, FiCaSchedulerNode node, SchedulerRequestKey key,
      Container container) {
    writeLock.lock();
    try {
      if (isStopped || !appSchedulingInfo.checkAllocation(type, node, key)) {
        return null;
      }
      RMContainerImpl rmContainer = new RMContainerImpl(container, key,
          getApplicationAttemptId(), node.getNodeID(), getUser(), rmContext,
          node.getPartition());
      rmContainer.setQueueName(getQueueName());
      updateAMContainerDiagnostics(AMState.ASSIGNED, null);

      liveContainers.put(container.getId(), rmContainer);
      addToNewlyAllocatedContainers(node, rmContainer);

      // Decrements the ask rows and updates QueueMetrics; the returned request lets the RM put
      // the ask back if the container is lost before the AM acquires it.
      ContainerRequest consumed = appSchedulingInfo.allocate(type, node, key, rmContainer);
      rmContainer.setContainerRequest(consumed);
      attemptResourceUsage.incUsed(node.getPartition(), container.getResource());

      rmContainer.handle(new RMContainerEvent(container.getId(), RMContainerEventType.START));
      RMAuditLogger.logSuccess(getUser(), RMAuditLogger.AuditConstants.ALLOC_CONTAINER,
          "LocusScheduler", getApplicationId(), container.getId(), container.getResource(),
          getQueueName(), null);
      return rmContainer;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * allocate() set these rows in the RM's asks; the scheduling thread tells the core (see
   * {@link #takeAsksFrame}). Per scheduler key, then resource name, so an AM repeating a row is
   * sent once and a MapReduce AM's 5,000 host rows of one key cost one key lookup, not 5,000
   * (a map keyed by (key, name) lists cost about 130 ns a row to fill); bounded by the rows the
   * RM itself holds for this attempt. A key's map is kept, emptied, from one send to the next
   * while the AM keeps changing that key: made afresh for each change, a 5,000-row map regrew
   * from 16 buckets, a dozen rehashes, every time. Only maps worth keeping are kept: at most
   * {@link #MAX_KEPT_KEYS}, each of at least {@link #KEPT_ROWS} rows, and only for keys the
   * last round changed; the rest are dropped at each send. So between sends this holds at most
   * {@code MAX_KEPT_KEYS} tables, each no larger than the rows the RM holds for its key.
   * Guarded by this.
   */
  private final Map<SchedulerRequestKey, Map<String, ResourceRequest>> rowsNotSent =
      new LinkedHashMap<>();
  /** Most emptied noted-rows maps kept from one send to the next (see {@link #rowsNotSent}). */
  static final int MAX_KEPT_KEYS = 8;
  /** Fewest rows for which a key's emptied map is kept: a smaller one is cheap to remake. */
  static final int KEPT_ROWS = 64;
  /**
   * Per key noted since the last send, the RM's table of the key ({@code AppPlacementAllocator})
   * that held the noted rows, or {@link #REMADE}: the frame reads the noted objects themselves
   * only while the RM still holds that table (see {@link #changedFrame}). Bounded by the keys
   * of {@link #rowsNotSent}, emptied with it. Guarded by this.
   */
  private final Map<SchedulerRequestKey, Object> tablesAtNoting = new HashMap<>();
  /** A key whose noted rows the RM may not hold as noted (its table was dropped, remade). */
  private static final Object REMADE = new Object();
  /** See {@link #rowsReadAsNoted()}. Guarded by this. */
  private int rowsReadAsNoted;
  /** Rows in {@link #rowsNotSent}. Guarded by this. */
  private int rowsNotSentCount;
  /** Ids the core gave this attempt's waiting names ({@link WaitingIds}); under this lock. */
  private final WaitingIds waitingIds = new WaitingIds();

  /** Scheduler keys whose noted-rows map is kept (see {@link #rowsNotSent}); for tests. */
  synchronized int notedKeys() {
    return rowsNotSent.size();
  }

  /**
   * allocate()'s change of the RM's asks (then {@link #noteAsksChanged}); see
   * {@link AskSync#amChangeApplying}.
   */
  @Override
  public synchronized boolean updateResourceRequests(List<ResourceRequest> requests) {
    sync.amChangeApplying(rowsNotSentCount == 0);
    return super.updateResourceRequests(requests);
  }

  /** The RM puts a lost container's asks back as its own copies of the rows. */
  @Override
  public void recoverResourceRequestsForContainer(ContainerRequest containerRequest) {
    sync.putBackStarting();
    try {
      super.recoverResourceRequestsForContainer(containerRequest);
    } finally {
      sync.putBackDone();
    }
  }

  /** allocate() applied {@code rows} to the RM's asks; they reach the core before a pass. */
  synchronized void noteAsksChanged(List<ResourceRequest> rows) {
    Map<String, ResourceRequest> byName = null;
    org.apache.hadoop.yarn.api.records.Priority lastPriority = null;
    long lastId = 0;
    for (ResourceRequest r : rows) {
      org.apache.hadoop.yarn.api.records.Priority priority = r.getPriority();
      long id = r.getAllocationRequestId();
      // An AM lists a key's rows together: the key is looked up once per run of rows.
      if (byName == null || id != lastId || !priority.equals(lastPriority)) {
        SchedulerRequestKey key = SchedulerRequestKey.create(r);
        byName = rowsNotSent.computeIfAbsent(key, k -> new LinkedHashMap<>());
        lastPriority = priority;
        lastId = id;
        noteTable(key, r);
      }
      if (byName.put(r.getResourceName(), r) == null) {
        rowsNotSentCount++;
      }
    }
  }

  /**
   * What the scheduling thread tells the core about the rows allocate() changed since the last
   * pass: each row as the RM holds it NOW (decisions executed since the AM's call have already
   * lowered the RM's count, and the core consumed those asks when it decided), with the
   * digest; or the whole table when a snapshot is owed, or the core refused the last one and
   * the AM changed something since; null when there is nothing to say. Caller holds the
   * application lock and must send the frame before this thread writes another.
   *
   * @throws AsksFrame.RowRefused when the asks hold a row the core would refuse: nothing is
   *     sent, the refusal is recorded as the core's are ({@link #asksRefused}), and the AM's
   *     next change sends a snapshot
   */
  synchronized ByteBuffer takeAsksFrame() {
    return takeAsksFrame(null, Integer.MAX_VALUE);
  }

  /** As {@link #takeAsksFrame(NameIds, int)}, the core alone bounding the rows. */
  synchronized ByteBuffer takeAsksFrame(NameIds ids) {
    return takeAsksFrame(ids, Integer.MAX_VALUE);
  }

  /**
   * As {@link #takeAsksFrame()}, each host {@code ids} numbers sent as its id (null: every
   * name as text), and a table of more than {@code maxRows} rows (the core's
   * {@code locus.app.max-ask-rows}, {@link CoreLink#maxAskRows}) refused without being
   * written: the core would refuse it, and a snapshot over the limit would otherwise be built
   * and sent again at every change the AM makes. A change of more rows than the limit goes as
   * the table (the core refuses any message over the limit, whatever table it would leave).
   */
  synchronized ByteBuffer takeAsksFrame(NameIds ids, int maxRows) {
    ByteBuffer frame;
    try {
      AskSync.Next next = sync.next(rowsNotSentCount > 0);
      if (next == AskSync.Next.SNAPSHOT) {
        // Owed, or refused before: the core kept older asks, so only a whole table (which
        // covers the noted rows) can replace them.
        frame = snapshotFrame(ids, maxRows);
      } else if (next == AskSync.Next.NOTHING) {
        frame = null;
      } else if (changeOverLimit(maxRows)) {
        // More rows than the limit in one change can still leave a table under it (one key's
        // rows withdrawn for another's): the table goes instead, counted itself, so only a table
        // over the limit is refused; refusing the change would leave the new rows waiting for
        // the AM's next change.
        frame = snapshotFrame(ids, maxRows);
      } else {
        frame = changedFrame(ids);
      }
    } catch (AsksFrame.RowRefused e) {
      refusedHere(e);
      forgetNotedRows();
      throw e;
    }
    // Cleared only once the frame exists: if encoding fails otherwise, the rows stay to be
    // sent.
    forgetNotedRows();
    return frame;
  }

  /**
   * Which table of the RM holds the rows of {@code key} just noted ({@link #tablesAtNoting}):
   * the one that holds {@code first}, the run's first row, itself; otherwise (the RM copied
   * the row, or the AM named it twice in the call) the key's rows are looked up when sent.
   */
  private void noteTable(SchedulerRequestKey key, ResourceRequest first) {
    AppPlacementAllocator<?> placement = appSchedulingInfo.getAppPlacementAllocator(key);
    Map<String, ResourceRequest> held =
        placement == null ? null : placement.getResourceRequests();
    Object table =
        held != null && held.get(first.getResourceName()) == first ? placement : REMADE;
    Object before = tablesAtNoting.putIfAbsent(key, table);
    if (before != null && before != table) {
      tablesAtNoting.put(key, REMADE);
    }
  }

  /** Empties {@link #rowsNotSent}, keeping only the maps worth keeping (see there). */
  private void forgetNotedRows() {
    int kept = 0;
    for (Iterator<Map<String, ResourceRequest>> it = rowsNotSent.values().iterator();
        it.hasNext();) {
      Map<String, ResourceRequest> noted = it.next();
      // An empty map's key was not changed for a whole round.
      if (noted.size() >= KEPT_ROWS && kept < MAX_KEPT_KEYS) {
        noted.clear();
        kept++;
      } else {
        it.remove();
      }
    }
    rowsNotSentCount = 0;
    tablesAtNoting.clear();
  }

  /**
   * The noted rows as the RM holds them now, written straight into the frame: no list of
   * them, and each key's priority and allocation request id read once, not per row.
   */
  private ByteBuffer changedFrame(NameIds ids) {
    long atStart = sync.frameStarts();
    boolean putBackNone = sync.notedRowsHeld(atStart);
    ByteBuffer frame = changedFrame(ids, putBackNone);
    if (putBackNone && rowsReadAsNoted > 0 && sync.putBackSince(atStart)) {
      // A put-back started while the rows were written: some noted objects may no longer be
      // the RM's. Written again with every row looked up (the thread's frame is rewritten).
      frame = changedFrame(ids, false);
    }
    return frame;
  }

  private ByteBuffer changedFrame(NameIds ids, boolean putBackNone) {
    org.apache.hadoop.yarn.api.records.ApplicationId app = getApplicationId();
    AsksFrame.Writer w = AsksFrame.start(AsksFrame.KIND_CHANGED, app, ids);
    WaitingIds waiting = waitingIds.forFrame(ids);
    int rows = 0;
    int asNotedRows = 0;
    for (Map.Entry<SchedulerRequestKey, Map<String, ResourceRequest>> e :
        rowsNotSent.entrySet()) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      SchedulerRequestKey key = e.getKey();
      int priority = key.getPriority().getPriority();
      long id = key.getAllocationRequestId();
      AppPlacementAllocator<?> placement = appSchedulingInfo.getAppPlacementAllocator(key);
      Map<String, ResourceRequest> held =
          placement == null ? null : placement.getResourceRequests();
      // The RM keeps the AM's own row objects and lowers their counts in place (to 0 before
      // it removes one), so a noted row is the row the RM holds now -- unless the RM replaced
      // it itself: it put a container's asks back, or dropped the key's table (its `*` row
      // reached 0) and made a new one. Otherwise each row is looked up, a keyed probe and a
      // string comparison per row (RmPathBench: 24-155 us of 5,000 rows).
      boolean asNoted = putBackNone && placement != null && tablesAtNoting.get(key) == placement;
      for (ResourceRequest sent : e.getValue().values()) {
        ResourceRequest now;
        if (asNoted) {
          now = sent;
          asNotedRows++;
        } else {
          now = held == null ? null : held.get(sent.getResourceName());
        }
        if (now == null) {
          // The RM dropped the row (its key has nothing left): the core must hold none either.
          now = ResourceRequest.clone(sent);
          now.setNumContainers(0);
        }
        if (now.getNumContainers() == 0 && !AsksFrame.carries(now.getResourceName())) {
          // A name the core refuses is one it holds no row of: nothing to withdraw.
          continue;
        }
        AsksFrame.row(w, app, priority, id, now, ids, waiting);
        rows++;
      }
    }
    rowsReadAsNoted = asNotedRows;
    return AsksFrame.finish(w, rows, AsksDigest.of(this));
  }

  /** This attempt's waiting names' ids; caller holds this lock. */
  WaitingIds waitingIds() {
    return waitingIds;
  }

  /**
   * What the core answered to {@code frame} (this thread's last, numbered) about the waiting
   * names it sent by name: {@code [n, row, id, ...]}. Caller holds this lock.
   */
  synchronized void learnWaitingIds(ByteBuffer frame, int[] learned) {
    waitingIds.learn(AsksFrame.epoch(frame), AsksFrame.rowNames(), learned);
  }

  /** Rows of the last changed frame read from the noted objects, not looked up; for tests. */
  synchronized int rowsReadAsNoted() {
    return rowsReadAsNoted;
  }

  private ByteBuffer snapshotFrame(NameIds ids, int maxRows) {
    // A snapshot replaces the core's table of this attempt's asks, whose ids die with it; its
    // answer teaches the new ones. Emptied even if this one is refused: it may follow a
    // numbered frame refused for a stale id.
    waitingIds.clear();
    // Counted before the table is copied, sorted or written: the RM bounds no application's
    // rows, and a table over the limit would cost all three at every change, for nothing.
    refuseOverLimit(outstandingRows(maxRows), maxRows);
    List<ResourceRequest> rows =
        CoreMessages.snapshotRows(appSchedulingInfo.getAllResourceRequests());
    // The RM may have changed the rows since they were counted.
    refuseOverLimit(rows.size(), maxRows);
    waitingIds.forFrame(ids);
    ByteBuffer frame =
        AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, getApplicationId(), rows, null, ids);
    sync.snapshotTaken();
    return frame;
  }

  /**
   * The rows a snapshot would carry (those with containers outstanding), counted up to just
   * past {@code maxRows}: O(scheduler keys) when the RM holds no more rows than that in all,
   * else a walk of its rows without copying them.
   */
  private int outstandingRows(int maxRows) {
    long held = 0;
    for (SchedulerRequestKey key : appSchedulingInfo.getSchedulerKeys()) {
      AppPlacementAllocator<?> placement = appSchedulingInfo.getAppPlacementAllocator(key);
      held += placement == null ? 0 : placement.getResourceRequests().size();
    }
    if (held <= maxRows) {
      return (int) held;
    }
    int outstanding = 0;
    for (SchedulerRequestKey key : appSchedulingInfo.getSchedulerKeys()) {
      AppPlacementAllocator<?> placement = appSchedulingInfo.getAppPlacementAllocator(key);
      if (placement == null) {
        continue;
      }
      for (ResourceRequest r : placement.getResourceRequests().values()) {
        if (r.getNumContainers() > 0 && ++outstanding > maxRows) {
          return outstanding;
        }
      }
    }
    return outstanding;
  }

  /**
   * Whether the noted change's frame would carry more than {@code maxRows} rows, which the core
   * refuses in any message. The noted rows bound the frame's; only when they pass the limit are
   * the rows the frame would leave out (count 0 under a name the core cannot hold) taken off, to
   * count exactly what the core would.
   */
  private boolean changeOverLimit(int maxRows) {
    if (rowsNotSentCount <= maxRows) {
      return false;
    }
    int rows = rowsNotSentCount;
    for (Map.Entry<SchedulerRequestKey, Map<String, ResourceRequest>> e :
        rowsNotSent.entrySet()) {
      AppPlacementAllocator<?> placement = appSchedulingInfo.getAppPlacementAllocator(e.getKey());
      Map<String, ResourceRequest> held =
          placement == null ? null : placement.getResourceRequests();
      for (String name : e.getValue().keySet()) {
        if (!AsksFrame.carries(name)) {
          ResourceRequest now = held == null ? null : held.get(name);
          if (now == null || now.getNumContainers() == 0) {
            rows--;
          }
        }
      }
    }
    return rows > maxRows;
  }

  private void refuseOverLimit(int rows, int maxRows) {
    if (rows > maxRows) {
      throw AsksFrame.RowRefused.overRowLimit(getApplicationId(), rows, maxRows);
    }
  }

  /**
   * The whole table with every name as text: every snapshot the link sends outside the
   * scheduling thread's own frames ({@link CoreLink#sendSnapshot}: a drift, a snapshot owed at
   * a batch of containers, a numbered frame the core refused, a rebuild's replay), so the asks
   * reach the core whatever ids it holds, bounded by {@code maxRows} before the table is copied.
   * Settles what was owed. Caller holds the application lock and sends it at once.
   *
   * @throws AsksFrame.RowRefused as {@link #takeAsksFrame()}
   */
  synchronized ByteBuffer snapshotByName(int maxRows) {
    try {
      return snapshotFrame(null, maxRows);
    } catch (AsksFrame.RowRefused e) {
      refusedHere(e);
      throw e;
    }
  }

  /**
   * The shim refused a frame the core would refuse: the same verdict, without the call. The
   * core's older asks stand; the snapshot at the AM's next change covers what changed since.
   */
  private void refusedHere(AsksFrame.RowRefused e) {
    sync.refusedHere(refusalShown(e.getMessage()));
  }

  /**
   * After the RM changed the asks itself (executed decisions, a completed container whose ask
   * it may have put back): the digest into {@code events}, unless the core is owed the table;
   * nothing while the core refused this attempt's asks (the AM's next change re-sends them).
   * Caller holds the application lock.
   *
   * @return whether the table is owed instead: the caller sends it
   *     ({@link CoreLink#sendSnapshot}) after {@code events}, under the same lock, so it reaches
   *     the core after the containers the frame reports (the RM's asks already count them)
   */
  synchronized boolean asksCheck(EventsFrame events) {
    if (sync.view() == AskSync.CoreView.IN_STEP) {
      // Rows allocate() changed that the scheduling thread has not sent yet make the RM's
      // digest differ from the core's without any drift: they go, with the digest, in this
      // attempt's next frame (it is in the scheduling thread's inbox).
      if (rowsNotSentCount == 0) {
        events.asksDigest(getApplicationId(), AsksDigest.of(this));
      }
      return false;
    }
    return sync.snapshotDue(false);
  }

  /**
   * Resizing, promoting or demoting a running container would be a scheduling decision the
   * core does not make; the AM gets an error per request instead of waiting forever.
   *
   * @return how many requests were refused
   */
  int refuseContainerUpdates(ContainerUpdates updates) {
    if (updates == null) {
      return 0;
    }
    int refused = 0;
    for (List<UpdateContainerRequest> requests : Arrays.asList(updates.getIncreaseRequests(),
        updates.getDecreaseRequests(), updates.getPromotionRequests(),
        updates.getDemotionRequests())) {
      if (requests == null) {
        continue;
      }
      for (UpdateContainerRequest r : requests) {
        addToUpdateContainerErrors(UpdateContainerError.newInstance(
            "Locus does not update running containers (" + r.getContainerUpdateType()
                + " of " + r.getContainerId() + "); release it and ask for a new one", r));
        refused++;
      }
    }
    return refused;
  }

  /**
   * The core refused this attempt's asks (e.g. over a per-application limit). Caller holds the
   * application lock; {@link #showAsksVerdict} then tells the application's owner.
   */
  synchronized void asksRefused(String reason) {
    sync.refused(refusalShown(reason));
  }

  /** The core's reason for refusing the asks, worded for the application's owner. */
  private static String refusalShown(String reason) {
    return "Locus refused this application's resource requests; they are not scheduled "
        + "until the next accepted update: " + FailureLog.abbreviate(reason);
  }

  /**
   * The send of this attempt's frame returned no refusal: the core accepted it, unless it was
   * dropped for want of a core in service, which is no verdict (a refusal shown stays).
   */
  synchronized void asksAccepted() {
    sync.accepted();
  }

  /**
   * Puts the last verdict where the application's owner looks: the diagnostics of
   * {@code yarn application -status} and the RM UI (the attempt's launch diagnostics, shown
   * while it has no others). Called without the application lock: the RM's app and attempt
   * objects have locks of their own, and the RM calls allocate while holding them.
   */
  void showAsksVerdict() {
    String wanted;
    synchronized (this) {
      wanted = sync.refusal();
    }
    if (Objects.equals(wanted, shownRefusal)) {
      return;
    }
    shownRefusal = wanted;
    RMApp app = rmContext.getRMApps().get(getApplicationId());
    RMAppAttempt attempt = app == null ? null : app.getRMAppAttempt(getApplicationAttemptId());
    if (attempt != null) {
      attempt.updateAMLaunchDiagnostics(wanted);
    }
  }

  /** The core may not have applied the last update: the next message is a full snapshot. */
  synchronized void forgetAsksSent() {
    sync.forgetSent();
  }

  /**
   * No core was in service to take a message about these asks (see
   * {@link AskSync.CoreView#DROPPED}). Caller holds the application lock.
   */
  synchronized void asksDropped() {
    sync.dropped();
  }

  /** Whether a dropped message is still owed to the core (no snapshot taken since). */
  synchronized boolean owesDroppedAsks() {
    return sync.view() == AskSync.CoreView.DROPPED;
  }
}
