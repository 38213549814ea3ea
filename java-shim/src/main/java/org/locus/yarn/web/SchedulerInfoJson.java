package org.locus.yarn.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code GET /ws/v1/cluster/scheduler} under Locus: CapacityScheduler's {@code schedulerInfo}
 * shape (field names, nesting, units) for every field whose meaning is the same under Locus, and
 * Locus's own figures under {@code schedulerInfo.locus} (and each queue's under its own
 * {@code locus}). A CS field Locus has no equivalent for is left out rather than filled with a
 * made-up value.
 *
 * <p>{@code type} is {@code capacityScheduler}: in CS's JSON it names the shape of the record
 * (the JAXB type), which is what monitoring tools and UI2 dispatch on to parse the queue tree.
 * {@code schedulerInfo.locus.scheduler} says which scheduler actually runs.
 */
public final class SchedulerInfoJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SchedulerInfoJson() {
  }

  public static ObjectNode render(QueueView root, LocusFigures locus) {
    ObjectNode info = JSON.createObjectNode();
    info.put("type", "capacityScheduler");
    info.put("capacity", pct(root.capacity));
    info.put("usedCapacity", pct(root.usedCapacity));
    info.put("maxCapacity", pct(root.maxCapacity));
    info.put("queueName", root.name);
    info.put("queuePath", root.path);
    putIfKnown(info, "maximumAllocation", root.maximumAllocation);
    info.set("queues", children(root));
    if (locus != null) {
      info.set("locus", locus(locus));
    }
    ObjectNode scheduler = JSON.createObjectNode();
    scheduler.set("schedulerInfo", info);
    ObjectNode top = JSON.createObjectNode();
    top.set("scheduler", scheduler);
    return top;
  }

  private static ObjectNode children(QueueView parent) {
    ArrayNode list = JSON.createArrayNode();
    for (QueueView q : parent.children) {
      list.add(queue(q));
    }
    ObjectNode queues = JSON.createObjectNode();
    queues.set("queue", list);
    return queues;
  }

  private static ObjectNode queue(QueueView q) {
    ObjectNode n = JSON.createObjectNode();
    if (q.isLeaf()) {
      n.put("type", "capacitySchedulerLeafQueueInfo");
    }
    n.put("queuePath", q.path);
    n.put("capacity", pct(q.configuredCapacity()));
    n.put("usedCapacity", pct(q.usedCapacity));
    n.put("maxCapacity", pct(q.maxCapacity));
    n.put("absoluteCapacity", pct(q.absoluteCapacity));
    n.put("absoluteMaxCapacity", pct(q.absoluteMaxCapacity));
    n.put("absoluteUsedCapacity", pct(q.absoluteUsedCapacity));
    n.put("weight", q.weight);
    n.put("normalizedWeight", q.normalizedWeight);
    n.put("mode", q.mode());
    n.put("queueType", q.isLeaf() ? "leaf" : "parent");
    n.put("creationMethod", q.creationMethod);
    n.put("autoCreationEligibility", q.autoCreationEligibility);
    n.put("numApplications", q.numApplications);
    n.put("maxParallelApps", q.maxParallelApps);
    n.put("queueName", q.name);
    n.put("state", q.state.toString());
    ObjectNode used = JSON.createObjectNode();
    used.put("memory", q.usedMemoryMb);
    used.put("vCores", q.usedVcores);
    n.set("resourcesUsed", used);
    n.put("allocatedContainers", q.allocatedContainers);
    n.put("reservedContainers", q.reservedContainers);
    n.put("pendingContainers", q.pendingContainers);
    n.set("capacities", capacities(q));
    n.set("minEffectiveCapacity", resource(q.effectiveMinResource));
    n.set("maxEffectiveCapacity", resource(q.effectiveMaxResource));
    putIfKnown(n, "maximumAllocation", q.maximumAllocation);
    // CapacityScheduler's queue records carry no preemption counts; Locus's own go aside, as
    // schedulerInfo.locus does for the scheduler's.
    ObjectNode own = JSON.createObjectNode();
    own.put("preemptedContainers", q.preemptedContainers);
    own.put("preemptedMemoryMB", q.preemptedMemoryMb);
    n.set("locus", own);
    if (q.isLeaf()) {
      n.put("numActiveApplications", q.appsRunning);
      n.put("numPendingApplications", q.appsPending);
      n.put("numContainers", q.allocatedContainers);
      n.put("preemptionDisabled", q.preemptionDisabled);
      n.put("intraQueuePreemptionDisabled", q.intraQueuePreemptionDisabled);
    } else {
      n.set("queues", children(q));
    }
    return n;
  }

  /** CS's {@code capacities}: the default partition, then each partition the file divides. */
  private static ObjectNode capacities(QueueView q) {
    ObjectNode p = JSON.createObjectNode();
    p.put("partitionName", "");
    p.put("capacity", pct(q.configuredCapacity()));
    p.put("usedCapacity", pct(q.usedCapacity));
    p.put("maxCapacity", pct(q.maxCapacity));
    p.put("absoluteCapacity", pct(q.absoluteCapacity));
    p.put("absoluteUsedCapacity", pct(q.absoluteUsedCapacity));
    p.put("absoluteMaxCapacity", pct(q.absoluteMaxCapacity));
    p.put("weight", q.weight);
    p.put("normalizedWeight", q.normalizedWeight);
    p.set("effectiveMinResource", resource(q.effectiveMinResource));
    p.set("effectiveMaxResource", resource(q.effectiveMaxResource));
    ObjectNode out = JSON.createObjectNode();
    ArrayNode all = out.putArray("queueCapacitiesByPartition");
    all.add(p);
    for (QueueView.PartitionView v : q.partitions) {
      ObjectNode e = JSON.createObjectNode();
      e.put("partitionName", v.name);
      e.put("capacity", pct(v.capacity));
      e.put("usedCapacity", pct(v.usedCapacity));
      e.put("maxCapacity", pct(v.maxCapacity));
      e.put("absoluteCapacity", pct(v.absoluteCapacity));
      e.put("absoluteUsedCapacity", pct(v.absoluteUsedCapacity));
      e.put("absoluteMaxCapacity", pct(v.absoluteMaxCapacity));
      all.add(e);
    }
    return out;
  }

  /** A figure the scheduler may not report (one that is not Locus) is left out. */
  private static void putIfKnown(ObjectNode n, String field,
      org.apache.hadoop.yarn.api.records.Resource r) {
    if (r != null) {
      n.set(field, resource(r));
    }
  }

  private static ObjectNode resource(org.apache.hadoop.yarn.api.records.Resource r) {
    ObjectNode n = JSON.createObjectNode();
    n.put("memory", r.getMemorySize());
    n.put("vCores", r.getVirtualCores());
    return n;
  }

  private static ObjectNode locus(LocusFigures f) {
    ObjectNode n = JSON.createObjectNode();
    n.put("scheduler", "Locus");
    n.put("coreAvailable", f.available);
    n.put("policy", f.policy);
    n.put("heartbeats", f.heartbeats);
    n.put("decisions", f.decisions);
    ObjectNode alloc = JSON.createObjectNode();
    alloc.put("total", f.allocations);
    alloc.put("nodeLocal", f.nodeLocal);
    alloc.put("rackLocal", f.rackLocal);
    alloc.put("offSwitch", f.offSwitch);
    n.set("allocations", alloc);
    n.put("rejections", f.rejections);
    n.put("lostDecisions", f.lostDecisions);
    n.put("coreRebuilds", f.coreRebuilds);
    n.put("inFlightDecisions", f.inFlight);
    n.put("pendingContainers", f.pendingContainers);
    n.put("runningContainers", f.runningContainers);
    n.set("heartbeatTimeUs", timing(f.heartbeatCount, f.heartbeatMeanMicros,
        f.heartbeatMaxMicros));
    n.set("allocateTimeUs", timing(f.allocateCount, f.allocateMeanMicros, f.allocateMaxMicros));
    n.put("queuedHeartbeats", f.queuedHeartbeats);
    n.put("oldestQueuedHeartbeatAgeMs", f.oldestQueuedHeartbeatAgeMs);
    return n;
  }

  /** Percentages to 3 decimals: the float sums behind them carry noise (60.000004) nobody means. */
  private static double pct(float percent) {
    return Math.round(percent * 1000.0) / 1000.0;
  }

  private static ObjectNode timing(long count, double mean, long max) {
    ObjectNode t = JSON.createObjectNode();
    t.put("count", count);
    t.put("mean", Math.round(mean * 10.0) / 10.0);
    t.put("max", max);
    return t;
  }
}
