package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * Each queue's {@code preemptionDisabled} and {@code intraQueuePreemptionDisabled} in
 * {@code /ws/v1/cluster/scheduler}, under CapacityScheduler and under Locus for the same files:
 * with the monitor off (Hadoop's default) every queue reports preemption disabled; with it on,
 * {@code disable_preemption} is inherited down the tree and a child may turn it back on.
 */
public class PreemptionSettingsRestTest {
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final String PCPP = "org.apache.hadoop.yarn.server.resourcemanager.monitor."
      + "capacity.ProportionalCapacityPreemptionPolicy";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** a (a1, a2) and b; a's preemption off, a2 turns it back on. */
  private static YarnConfiguration tree(boolean monitor) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "50");
    conf.set(CS + "root.a.a2.capacity", "50");
    conf.set(CS + "root.a.disable_preemption", "true");
    conf.set(CS + "root.a.a2.disable_preemption", "false");
    if (monitor) {
      conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
      conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PCPP);
    }
    return conf;
  }

  /**
   * Intra-queue preemption on, off again under a (whose preemption is off) and back on in a2
   * (whose preemption is back on).
   */
  private static YarnConfiguration intraQueue(YarnConfiguration conf) {
    String intra = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.";
    conf.setBoolean(intra + "enabled", true);
    conf.set(CS + "root.a.intra-queue-preemption.disable_preemption", "true");
    conf.set(CS + "root.a.a2.intra-queue-preemption.disable_preemption", "false");
    return conf;
  }

  /** Each queue below root by path: its two preemption flags. */
  private static Map<String, String> flags(Class<? extends ResourceScheduler> scheduler,
      YarnConfiguration conf) throws Exception {
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setBoolean("mockrm.webapp.enabled", true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + RmRest.freePort());
    MockRM rm = new MockRM(LocusRmFixture.privateState(conf));
    rm.start();
    try {
      JsonNode info = JSON.readTree(RmRest.getJson(rm, "/ws/v1/cluster/scheduler"))
          .path("scheduler").path("schedulerInfo");
      return collect(info, new LinkedHashMap<>());
    } finally {
      rm.stop();
    }
  }

  private static Map<String, String> collect(JsonNode parent, Map<String, String> out) {
    for (JsonNode q : parent.path("queues").path("queue")) {
      out.put(q.path("queuePath").asText(), "preemptionDisabled="
          + q.path("preemptionDisabled").asText("absent") + " intraQueuePreemptionDisabled="
          + q.path("intraQueuePreemptionDisabled").asText("absent"));
      collect(q, out);
    }
    return out;
  }

  @Test
  public void withTheMonitorOffEveryQueueReportsPreemptionDisabledAsUnderCapacityScheduler()
      throws Exception {
    Map<String, String> cs = flags(CapacityScheduler.class, tree(false));
    assertEquals(4, cs.size());
    assertEquals(cs, flags(LocusScheduler.class, tree(false)));
  }

  @Test
  public void withTheMonitorOnDisablePreemptionIsInheritedAsUnderCapacityScheduler()
      throws Exception {
    Map<String, String> cs = flags(CapacityScheduler.class, tree(true));
    assertFalse("CapacityScheduler: b may be preempted " + cs,
        cs.get("root.b").startsWith("preemptionDisabled=true"));
    assertEquals(cs, flags(LocusScheduler.class, tree(true)));
  }

  @Test
  public void withIntraQueuePreemptionOnItsOwnDisableKeyIsInheritedAsUnderCapacityScheduler()
      throws Exception {
    Map<String, String> cs = flags(CapacityScheduler.class, intraQueue(tree(true)));
    assertTrue("CapacityScheduler: b may be preempted within " + cs,
        cs.get("root.b").endsWith("intraQueuePreemptionDisabled=false"));
    assertTrue("CapacityScheduler: a2 may be preempted within " + cs,
        cs.get("root.a.a2").endsWith("intraQueuePreemptionDisabled=false"));
    assertEquals(cs, flags(LocusScheduler.class, intraQueue(tree(true))));
  }
}
