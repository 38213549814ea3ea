package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.locus.yarn.LocusRmFixture;

/**
 * What the capacity-mode tests share: one scenario of nodes joining and leaving with an
 * application in {@code a1}, and the comparison of the REST figures CapacityScheduler and
 * Locus report for the same capacity-scheduler.xml.
 */
final class CapacityFileRuns {
  static final int GB = 1024;
  /** The fields compared, of each queue and of its default-partition capacities. */
  static final String[] FIELDS = {"capacity", "maxCapacity", "absoluteCapacity",
      "absoluteMaxCapacity", "weight", "normalizedWeight"};

  private CapacityFileRuns() {
  }

  private static void waitForNodes(MockRM rm, int n) throws Exception {
    GenericTestUtils.waitFor(
        () -> rm.getResourceScheduler().getNumClusterNodes() == n, 10, 60_000);
  }

  /**
   * The REST tree at each step: one 16 GB node with an application running in {@code a1}, a
   * second 8 GB node, then the first gone. The app's queue in the RM's report goes in
   * {@code appQueue}.
   */
  static List<Map<String, JsonNode>> joinAndLeave(WebRms rms,
      Class<? extends ResourceScheduler> scheduler, YarnConfiguration file,
      List<String> appQueue) throws Exception {
    MockRM rm = rms.start(scheduler, file);
    List<Map<String, JsonNode>> steps = new ArrayList<>();
    MockNM nm1 = rm.registerNode("h1:1234", 16 * GB, 16);
    // No heartbeat before the submission: Locus places on a heartbeat's offer after the event,
    // so an earlier one could place the AM before MockRM sees the attempt SCHEDULED.
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("a1").build());
    LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    appQueue.add(app.getQueue());
    List<ApplicationAttemptId> inA1 = rm.getResourceScheduler().getAppsInQueue("a1");
    assertTrue(scheduler.getSimpleName() + ": no queue a1", inA1 != null);
    assertEquals(scheduler.getSimpleName() + ": applications in a1", 1, inA1.size());
    steps.add(RmRest.queues(rm));
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    nm2.nodeHeartbeat(true);
    waitForNodes(rm, 2);
    steps.add(RmRest.queues(rm));
    rm.unRegisterNode(nm1);
    waitForNodes(rm, 1);
    steps.add(RmRest.queues(rm));
    return steps;
  }

  /** Every queue's mode, capacities and effective resources, CapacityScheduler's and Locus's. */
  static void assertSameCapacities(String at, Map<String, JsonNode> cs,
      Map<String, JsonNode> locus) {
    assertEquals(at + "queues", cs.keySet(), locus.keySet());
    for (String path : cs.keySet()) {
      String where = at + path;
      JsonNode c = cs.get(path);
      JsonNode l = locus.get(path);
      assertEquals(where + " mode", c.path("mode").asText(), l.path("mode").asText());
      JsonNode cp = RmRest.defaultPartition(c);
      JsonNode lp = RmRest.defaultPartition(l);
      for (String f : FIELDS) {
        assertTrue(where + " " + f + " missing: " + l, l.has(f));
        assertEquals(where + " " + f + "\nCS:    " + c + "\nLocus: " + l, c.path(f).asDouble(),
            l.path(f).asDouble(), 1e-3);
        assertEquals(where + " capacities " + f + "\nCS:    " + cp + "\nLocus: " + lp,
            cp.path(f).asDouble(), lp.path(f).asDouble(), 1e-3);
      }
      for (String r : new String[] {"effectiveMinResource", "effectiveMaxResource"}) {
        for (String unit : new String[] {"memory", "vCores"}) {
          assertEquals(where + " " + r + " " + unit + "\nCS:    " + cp + "\nLocus: " + lp,
              cp.path(r).path(unit).asLong(), lp.path(r).path(unit).asLong());
        }
      }
      for (String r : new String[] {"minEffectiveCapacity", "maxEffectiveCapacity"}) {
        for (String unit : new String[] {"memory", "vCores"}) {
          assertEquals(where + " " + r + " " + unit, c.path(r).path(unit).asLong(),
              l.path(r).path(unit).asLong());
        }
      }
    }
  }

  /** Each step's figures compared. */
  static void assertSameSteps(List<Map<String, JsonNode>> cs, List<Map<String, JsonNode>> locus) {
    assertEquals("steps", cs.size(), locus.size());
    for (int step = 0; step < cs.size(); step++) {
      assertSameCapacities("step " + step + " ", cs.get(step), locus.get(step));
    }
  }

  /** A start failure's messages, outermost first. */
  static String messages(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t.getMessage()).append('\n');
    }
    return b.toString();
  }
}
