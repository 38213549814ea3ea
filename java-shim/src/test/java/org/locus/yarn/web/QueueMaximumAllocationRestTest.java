package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;

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
 * Each queue's {@code maximumAllocation} in {@code /ws/v1/cluster/scheduler}, and root's in
 * {@code schedulerInfo}, under CapacityScheduler and under Locus for the same file: the
 * cluster's for a queue without the keys, a parent's passed down, a child's own over it.
 */
public class QueueMaximumAllocationRestTest {
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** a (a1 with its own vcores, a2) under a 2 GB maximum, b with the resource string. */
  private static YarnConfiguration tree() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "50");
    conf.set(CS + "root.a.a2.capacity", "50");
    conf.set(CS + "root.a.maximum-allocation-mb", "2048");
    conf.set(CS + "root.a.a1.maximum-allocation-vcores", "2");
    conf.set(CS + "root.b.maximum-allocation", "memory-mb=4096,vcores=3");
    return conf;
  }

  /** root's and each queue's maximumAllocation by path. */
  private static Map<String, String> maxima(Class<? extends ResourceScheduler> scheduler)
      throws Exception {
    YarnConfiguration conf = tree();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setBoolean("mockrm.webapp.enabled", true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + RmRest.freePort());
    MockRM rm = new MockRM(LocusRmFixture.privateState(conf));
    rm.start();
    try {
      JsonNode info = JSON.readTree(RmRest.getJson(rm, "/ws/v1/cluster/scheduler"))
          .path("scheduler").path("schedulerInfo");
      Map<String, String> out = new LinkedHashMap<>();
      out.put("root", shown(info));
      return collect(info, out);
    } finally {
      rm.stop();
    }
  }

  private static String shown(JsonNode q) {
    JsonNode m = q.path("maximumAllocation");
    return "memory=" + m.path("memory").asText("absent") + " vCores="
        + m.path("vCores").asText("absent");
  }

  private static Map<String, String> collect(JsonNode parent, Map<String, String> out) {
    for (JsonNode q : parent.path("queues").path("queue")) {
      out.put(q.path("queuePath").asText(), shown(q));
      collect(q, out);
    }
    return out;
  }

  @Test
  public void eachQueueReportsItsMaximumAllocationAsUnderCapacityScheduler() throws Exception {
    Map<String, String> cs = maxima(CapacityScheduler.class);
    assertEquals("memory=2048 vCores=2", cs.get("root.a.a1"));
    assertEquals("memory=4096 vCores=3", cs.get("root.b"));
    assertEquals(cs, maxima(LocusScheduler.class));
  }
}
