package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inter-queue preemption under Locus: what the RM runs when its scheduling monitor names
 * CapacityScheduler's {@code ProportionalCapacityPreemptionPolicy}, which refuses any other
 * scheduler ({@link MonitorPolicies} puts this class in its place).
 *
 * <p>The core decides each round (which containers, from which queues; see the core's
 * {@code preemption} module); this class carries it out the way CapacityScheduler's policy
 * does, through the RM's dispatcher: a chosen container is first marked
 * ({@code MARK_CONTAINER_FOR_PREEMPTION}: its AM finds it in the {@code PreemptionMessage} of
 * its next allocate response and may checkpoint or give it back), and killed with a preempted
 * status ({@code MARK_CONTAINER_FOR_KILLABLE}) once it was chosen again
 * {@code max_wait_before_kill} after its mark.
 */
public class LocusPreemptionPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(LocusPreemptionPolicy.class);
  static final String PREFIX = "yarn.resourcemanager.monitor.capacity.preemption.";

  private RMContext rmContext;
  private LocusScheduler scheduler;
  private SortedMap<String, String> settings = new TreeMap<>();
  private long monitoringInterval = 3000L;
  private boolean observeOnly;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    this.rmContext = context;
    this.scheduler = MonitorPolicies.locus(sched);
    // Refused here, naming the key, so a bad value stops the RM at start.
    JsonNode inForce = adopt(settings(scheduler.preemptionConfiguration()));
    LOG.info("Locus's preemption policy stands in for {} with {}",
        MonitorPolicies.PROPORTIONAL, inForce);
  }

  /** Takes {@code next} once the core accepted it; returns the settings in force. */
  private JsonNode adopt(SortedMap<String, String> next) {
    JsonNode inForce;
    try {
      inForce = read(scheduler.preemptionRound(request(next, 0L, true)));
    } catch (IOException e) {
      throw new YarnRuntimeException(e);
    }
    this.settings = next;
    this.monitoringInterval = inForce.path("monitoring_interval_ms").asLong(3000L);
    this.observeOnly = inForce.path("observe_only").asBoolean(false);
    return inForce;
  }

  /**
   * The keys as CapacityScheduler reads them: from the configuration it loads, the RM's with
   * capacity-scheduler.xml over it.
   */
  static SortedMap<String, String> settings(Configuration conf) {
    SortedMap<String, String> out = new TreeMap<>();
    if (conf != null) {
      for (Map.Entry<String, String> e : conf.getPropsWithPrefix(PREFIX).entrySet()) {
        out.put(PREFIX + e.getKey(), conf.getTrimmed(PREFIX + e.getKey(), ""));
      }
      // Intra-queue preemption rounds user limits to it, as CapacityScheduler does.
      out.put(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, conf.getTrimmed(
          YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB,
          String.valueOf(YarnConfiguration.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB)));
    }
    return out;
  }

  /** Checks the keys of {@code conf} as a round would read them (a refresh's new file). */
  static void check(LocusScheduler scheduler, Configuration conf) throws IOException {
    scheduler.preemptionRound(request(settings(conf), 0L, true));
  }

  private static String request(SortedMap<String, String> settings, long now,
      boolean checkOnly) {
    ObjectNode o = CoreMessages.JSON.createObjectNode();
    o.put("now_ms", now);
    ObjectNode s = o.putObject("settings");
    settings.forEach(s::put);
    o.put("check_only", checkOnly);
    return CoreMessages.write(o);
  }

  private static JsonNode read(String json) {
    try {
      return CoreMessages.JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("Locus core answered a preemption round with malformed "
          + "JSON", e);
    }
  }

  @Override
  public void editSchedule() {
    JsonNode round;
    try {
      // A refresh may have changed the keys (it checked them before taking the file).
      SortedMap<String, String> now = settings(scheduler.preemptionConfiguration());
      if (!now.equals(settings)) {
        LOG.info("Locus's preemption policy now runs with {}", adopt(now));
      }
      round = read(scheduler.preemptionRound(request(settings, scheduler.getClock().getTime(),
          false)));
    } catch (IOException e) {
      LOG.warn("Skipping a preemption round: {}", e.getMessage());
      return;
    }
    if (observeOnly) {
      if (round.path("selected").size() > 0) {
        LOG.info("Preemption (observe_only) would take {}", round.path("selected"));
      }
      return;
    }
    send(round.path("mark"), SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION);
    send(round.path("kill"), SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE);
  }

  private void send(JsonNode ids, SchedulerEventType type) {
    for (JsonNode id : ids) {
      RMContainer c = scheduler.getRMContainer(ContainerId.fromString(id.asText()));
      if (c == null) {
        // Finished since the round: nothing left to take.
        continue;
      }
      LOG.info("Preemption: {} container {} of {} in queue {}",
          type == SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION ? "marking" : "killing",
          c.getContainerId(), c.getApplicationAttemptId(), c.getQueueName());
      rmContext.getDispatcher().getEventHandler().handle(
          new ContainerPreemptEvent(c.getApplicationAttemptId(), c, type));
    }
  }

  @Override
  public long getMonitoringInterval() {
    return monitoringInterval;
  }

  @Override
  public String getPolicyName() {
    return "LocusPreemptionPolicy";
  }
}
