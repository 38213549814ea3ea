package org.locus.yarn;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.RejectedSchedulingRequest;
import org.apache.hadoop.yarn.api.records.RejectionReason;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An AM's allocate() call once {@link LocusScheduler#allocate} has refused labelled asks and
 * set up its failure guard: the attempt's asks, blacklist and releases are recorded under the
 * attempt's lock and the attempt is noted for the scheduling thread, and the AM gets what was
 * placed for it since its last call. No core call, no wait on a decision.
 */
final class AllocateHandler {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final Function<ApplicationAttemptId, FiCaSchedulerApp> attempts;
  private final Consumer<List<ResourceRequest>> normalize;
  private final BiConsumer<List<ContainerId>, LocusAppAttempt> releaser;
  private final CoreLink link;
  private final SchedulingLoop loop;
  /** AbstractYarnScheduler's empty answer. */
  private final Allocation empty;
  /** The scheduler's minimum allocation: the unit a preemption contract counts room in. */
  private final Supplier<Resource> minimumAllocation;

  /**
   * {@code attempts}, {@code normalize} and {@code releaser} are the scheduler's
   * getApplicationAttempt, normalizeResourceRequests and releaseContainers.
   */
  AllocateHandler(Function<ApplicationAttemptId, FiCaSchedulerApp> attempts,
      Consumer<List<ResourceRequest>> normalize,
      BiConsumer<List<ContainerId>, LocusAppAttempt> releaser, CoreLink link,
      SchedulingLoop loop, Allocation empty, Supplier<Resource> minimumAllocation) {
    this.attempts = attempts;
    this.minimumAllocation = minimumAllocation;
    this.normalize = normalize;
    this.releaser = releaser;
    this.link = link;
    this.loop = loop;
    this.empty = empty;
  }

  Allocation allocate(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    FiCaSchedulerApp found = attempts.apply(attemptId);
    if (!(found instanceof LocusAppAttempt)
        || !found.getApplicationAttemptId().equals(attemptId)) {
      // A late call from a finished or superseded attempt must not touch the current one.
      LOG.error("allocate called by {}, which is not a running attempt", attemptId);
      return empty;
    }
    LocusAppAttempt attempt = (LocusAppAttempt) found;
    // Placement constraints (SchedulingRequests) are not part of the core's model: the AM
    // gets them back as rejected rather than waiting for containers that never come.
    List<RejectedSchedulingRequest> rejected = null;
    if (schedulingRequests != null && !schedulingRequests.isEmpty()) {
      LOG.warn("Application {} sent {} SchedulingRequests (placement constraints); Locus "
          + "schedules ResourceRequests only and rejects them", attemptId.getApplicationId(),
          schedulingRequests.size());
      rejected = new ArrayList<>();
      for (SchedulingRequest r : schedulingRequests) {
        rejected.add(RejectedSchedulingRequest.newInstance(
            RejectionReason.COULD_NOT_SCHEDULE_ON_NODE, r));
      }
    }
    normalize.accept(ask);
    releaser.accept(release, attempt);
    Allocation allocation;
    synchronized (attempt) {
      if (attempt.isStopped()) {
        LOG.info("allocate called by stopped attempt {}", attemptId);
        return empty;
      }
      if (!ask.isEmpty()) {
        attempt.updateResourceRequests(ask);
      }
      attempt.updateBlacklist(blacklistAdditions, blacklistRemovals);
      if (attempt.blacklistOwed()) {
        // Sent by the scheduling thread with the asks, before its next pass.
        loop.asksChanged(attempt);
      }
      int refused = attempt.refuseContainerUpdates(updateRequests);
      if (refused > 0) {
        LOG.warn("Refused {} container update requests of {}", refused, attemptId);
      }
      if (!ask.isEmpty()) {
        // Recorded for the scheduling thread, which sends them to the core before its next
        // pass: an AM never waits on a decision or on the core. Only the rows it changed
        // cross (LocusAppAttempt#takeAsksFrame).
        attempt.noteAsksChanged(ask);
        loop.asksChanged(attempt);
      }
      org.apache.hadoop.yarn.api.records.Resource headroom = attempt.getHeadroom();
      attempt.setApplicationHeadroomForMetrics(headroom);
      // Marked containers reach the AM as CapacityScheduler sends them: a contract of those
      // containers and that much room.
      LocusAppAttempt.PreemptionContract preempt =
          attempt.pullPreemptionContract(minimumAllocation.get());
      allocation = new Allocation(attempt.pullNewlyAllocatedContainers(), headroom, null,
          preempt == null ? null : preempt.containers, preempt == null ? null : preempt.room,
          attempt.pullUpdatedNMTokens(), null, null, null, null, null, rejected);
    }
    try {
      attempt.showAsksVerdict();
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      // Diagnostics only: the containers just pulled from the attempt must reach the AM.
      link.failures().warn("Showing Locus's verdict on the asks", "attempt " + attemptId, t, null);
    }
    return allocation;
  }
}
