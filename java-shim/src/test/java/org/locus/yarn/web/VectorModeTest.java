package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * A capacity-scheduler.xml with the legacy queue mode off (the universal capacity vector:
 * percentages, weights and absolute resources mixed per resource type) under
 * CapacityScheduler and under Locus in one run: an application submitted to {@code a1} runs
 * there, and the scheduler REST reports CapacityScheduler's figures as nodes join and leave,
 * including a cluster too small for an absolute minimum.
 */
public class VectorModeTest {
  private static final int GB = 1024;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final String[] FIELDS = {"capacity", "maxCapacity", "absoluteCapacity",
      "absoluteMaxCapacity", "weight", "normalizedWeight"};
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
    NetUtils.addStaticResolution("h2", "127.0.0.1");
  }

  /**
   * root: a [memory=50%,vcores=2w] up to [memory=75%,vcores=100%], b [memory=1w,vcores=4], c
   * 25 (a percentage of every type); a: a1 [memory=6144,vcores=1w] up to
   * [memory=8192,vcores=50%], a2 1w.
   */
  private static YarnConfiguration vectors() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(CS + "legacy-queue-mode.enabled", false);
    conf.set(CS + "root.queues", "a,b,c");
    conf.set(CS + "root.a.capacity", "[memory=50%,vcores=2w]");
    conf.set(CS + "root.a.maximum-capacity", "[memory=75%,vcores=100%]");
    conf.set(CS + "root.b.capacity", "[memory=1w,vcores=4]");
    conf.set(CS + "root.c.capacity", "25");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "[memory=6144,vcores=1w]");
    conf.set(CS + "root.a.a1.maximum-capacity", "[memory=8192,vcores=50%]");
    conf.set(CS + "root.a.a2.capacity", "1w");
    return conf;
  }

  private static void waitForNodes(MockRM rm, int n) throws Exception {
    GenericTestUtils.waitFor(
        () -> rm.getResourceScheduler().getNumClusterNodes() == n, 10, 60_000);
  }

  /**
   * The REST tree at each step: one 16 GB node, a second 8 GB node, then the first gone (a's
   * half of 8 GB is less than a1's 6 GB). The app's queue in the RM's report goes in
   * {@code appQueue}.
   */
  private List<Map<String, JsonNode>> run(Class<? extends ResourceScheduler> scheduler,
      List<String> appQueue) throws Exception {
    MockRM rm = rms.start(scheduler, vectors());
    List<Map<String, JsonNode>> steps = new ArrayList<>();
    MockNM nm1 = rm.registerNode("h1:1234", 16 * GB, 16);
    nm1.nodeHeartbeat(true);
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

  @Test
  public void mixedCapacityVectorsFollowTheClusterAsCapacitySchedulersDo() throws Exception {
    List<String> csQueue = new ArrayList<>();
    List<Map<String, JsonNode>> cs = run(CapacityScheduler.class, csQueue);
    List<String> locusQueue = new ArrayList<>();
    List<Map<String, JsonNode>> locus = run(LocusScheduler.class, locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    // The oracle's own figures, so the comparison below compares something: a's half of the
    // 16 GB node's memory, and a1's 6 GB scaled to a's 4 GB on the 8 GB node.
    assertEquals("mixed", cs.get(0).get("root.a").path("mode").asText());
    assertEquals(8 * GB, RmRest.defaultPartition(cs.get(0).get("root.a"))
        .path("effectiveMinResource").path("memory").asLong());
    assertEquals(4 * GB, RmRest.defaultPartition(cs.get(2).get("root.a.a1"))
        .path("effectiveMinResource").path("memory").asLong());
    for (int step = 0; step < cs.size(); step++) {
      Map<String, JsonNode> c = cs.get(step);
      Map<String, JsonNode> l = locus.get(step);
      assertEquals(c.keySet(), l.keySet());
      for (String path : c.keySet()) {
        String at = "step " + step + " " + path;
        JsonNode cq = c.get(path);
        JsonNode lq = l.get(path);
        assertEquals(at + " mode", cq.path("mode").asText(), lq.path("mode").asText());
        JsonNode cp = RmRest.defaultPartition(cq);
        JsonNode lp = RmRest.defaultPartition(lq);
        for (String f : FIELDS) {
          assertTrue(at + " " + f + " missing: " + lq, lq.has(f));
          assertEquals(at + " " + f + "\nCS:    " + cq + "\nLocus: " + lq,
              cq.path(f).asDouble(), lq.path(f).asDouble(), 1e-3);
          assertEquals(at + " capacities " + f + "\nCS:    " + cp + "\nLocus: " + lp,
              cp.path(f).asDouble(), lp.path(f).asDouble(), 1e-3);
        }
        for (String r : new String[] {"effectiveMinResource", "effectiveMaxResource"}) {
          for (String unit : new String[] {"memory", "vCores"}) {
            assertEquals(at + " " + r + " " + unit + "\nCS:    " + cp + "\nLocus: " + lp,
                cp.path(r).path(unit).asLong(), lp.path(r).path(unit).asLong());
          }
        }
        for (String r : new String[] {"minEffectiveCapacity", "maxEffectiveCapacity"}) {
          for (String unit : new String[] {"memory", "vCores"}) {
            assertEquals(at + " " + r + " " + unit, cq.path(r).path(unit).asLong(),
                lq.path(r).path(unit).asLong());
          }
        }
      }
    }
  }

  private static String messages(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t.getMessage()).append('\n');
    }
    return b.toString();
  }

  /**
   * Vector files CapacityScheduler refuses are refused by Locus with its words, naming the key:
   * a weight in a maximum, an absolute minimum above its absolute maximum (a maximum naming a
   * percentage is no absolute one, and CapacityScheduler checks nothing then).
   */
  @Test
  public void vectorFilesCapacitySchedulerRefusesAreRefusedWithItsWords() throws Exception {
    String[][] cases = {
        // {key, value, CS's words}
        {"root.a.a2.maximum-capacity", "[memory=2w,vcores=100%]",
            "Resource memory-mb has WEIGHT maximum capacity type, which is not supported"},
        {"root.a.a1.maximum-capacity", "[memory=4096,vcores=4]", "is greater than its max "
            + "value:<memory:4096, vCores:4> in queue:root.a.a1"}};
    for (String[] c : cases) {
      YarnConfiguration conf = vectors();
      conf.set(CS + c[0], c[1]);
      String cs = null;
      try {
        rms.start(CapacityScheduler.class, new YarnConfiguration(conf));
        fail("CapacityScheduler started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        cs = messages(e);
      }
      assertTrue(cs, cs.contains(c[2]));
      try {
        rms.start(LocusScheduler.class, new YarnConfiguration(conf));
        fail("Locus started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        assertTrue(messages(e), messages(e).contains(c[2]));
        assertTrue(messages(e), messages(e).contains(CS + c[0]));
      }
    }
  }

  /**
   * A resource type the core does not schedule, named in a vector, stops the RM naming the
   * key rather than leave that part of the guarantee unenforced.
   */
  @Test
  public void aVectorEntryOfAnotherResourceTypeIsRefusedNamingTheKey() throws Exception {
    YarnConfiguration conf = vectors();
    conf.set(CS + "root.b.capacity", "[memory=1w,vcores=4,yarn.io/gpu=1]");
    try {
      rms.start(LocusScheduler.class, conf);
      fail("Locus started with a GPU entry in a capacity vector");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(CS + "root.b.capacity"));
      assertTrue(messages(e), messages(e).contains("yarn.io/gpu"));
    }
  }
}
