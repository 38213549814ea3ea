package org.locus.yarn.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.locus.yarn.LocusScheduler;
import org.locus.yarn.metrics.LocusMetrics;

/**
 * Locus's own figures for the page and REST: the core's counters (the same the metrics2 source
 * exports) and the shim's timings since start. A core being rebuilt has no counters for a moment;
 * the page then says so instead of failing.
 */
public final class LocusFigures {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** False when the core could not be asked (rebuilding, or not a Locus scheduler). */
  public final boolean available;
  public final String policy;
  public final long heartbeats;
  public final long decisions;
  public final long allocations;
  public final long nodeLocal;
  public final long rackLocal;
  public final long offSwitch;
  public final long rejections;
  public final long lostDecisions;
  public final long coreRebuilds;
  public final long inFlight;
  public final long pendingContainers;
  public final long runningContainers;
  public final long heartbeatCount;
  public final double heartbeatMeanMicros;
  public final long heartbeatMaxMicros;
  public final long allocateCount;
  public final double allocateMeanMicros;
  public final long allocateMaxMicros;
  public final int queuedHeartbeats;
  public final long oldestQueuedHeartbeatAgeMs;

  /** Null when the scheduler is not Locus. */
  public static LocusFigures of(ResourceScheduler scheduler) {
    if (!(scheduler instanceof LocusScheduler)) {
      return null;
    }
    LocusScheduler s = (LocusScheduler) scheduler;
    JsonNode stats;
    try {
      stats = JSON.readTree(s.getCoreStatsJson());
    } catch (Exception | LinkageError e) {
      stats = null;
    }
    return new LocusFigures(stats, s.getLocusMetrics(), s.getCoreRebuilds());
  }

  LocusFigures(JsonNode stats, LocusMetrics metrics, long rebuilds) {
    this.available = stats != null;
    JsonNode s = stats == null ? JSON.createObjectNode() : stats;
    this.policy = stats == null ? "unavailable" : LocusMetrics.describePolicy(stats);
    this.heartbeats = s.path("heartbeats").asLong(0);
    this.decisions = s.path("decisions").asLong(0);
    this.allocations = s.path("allocations").asLong(0);
    this.nodeLocal = s.path("node_local").asLong(0);
    this.rackLocal = s.path("rack_local").asLong(0);
    this.offSwitch = s.path("off_switch").asLong(0);
    this.rejections = s.path("rejected").asLong(0);
    this.lostDecisions = s.path("lost_decisions").asLong(0);
    this.coreRebuilds = rebuilds;
    this.inFlight = s.path("in_flight").asLong(0);
    this.pendingContainers = s.path("pending_containers").asLong(0);
    this.runningContainers = s.path("running_containers").asLong(0);
    LocusMetrics.Timing hb = metrics.heartbeatTotals();
    LocusMetrics.Timing al = metrics.allocateTotals();
    this.heartbeatCount = hb.count();
    this.heartbeatMeanMicros = hb.meanMicros();
    this.heartbeatMaxMicros = hb.maxMicros();
    this.allocateCount = al.count();
    this.allocateMeanMicros = al.meanMicros();
    this.allocateMaxMicros = al.maxMicros();
    this.queuedHeartbeats = metrics.queuedHeartbeats();
    this.oldestQueuedHeartbeatAgeMs = metrics.oldestQueuedHeartbeatAgeMs();
  }
}
