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
 * A capacity-scheduler.xml in absolute mode ({@code [memory=...,vcores=...]}, a parent and its
 * children) under CapacityScheduler and under Locus in one run: an application submitted to
 * {@code a1} runs there, and the scheduler REST reports CapacityScheduler's figures for the
 * same file as nodes join and leave, including a cluster too small for the configured
 * minimums (which CS scales down per resource type).
 */
public class AbsoluteModeTest {
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
   * a [10 GB, 12 vcores] up to [20 GB, 20], split into a1 [4 GB, 4] up to [8 GB, 8] and a2
   * [6 GB, 8] (its maximum inherited from a); b [6 GB, 4] with no maximum.
   */
  private static YarnConfiguration absolute() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "[memory=10240,vcores=12]");
    conf.set(CS + "root.a.maximum-capacity", "[memory=20480,vcores=20]");
    conf.set(CS + "root.b.capacity", "[memory=6144,vcores=4]");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "[memory=4096,vcores=4]");
    conf.set(CS + "root.a.a1.maximum-capacity", "[memory=8192,vcores=8]");
    conf.set(CS + "root.a.a2.capacity", "[memory=6144,vcores=8]");
    return conf;
  }

  private static void waitForNodes(MockRM rm, int n) throws Exception {
    GenericTestUtils.waitFor(
        () -> rm.getResourceScheduler().getNumClusterNodes() == n, 10, 60_000);
  }

  /**
   * The REST tree at each step: one 16 GB node (the minimums fit), a second 8 GB node, then
   * the first gone (8 GB for 16 GB of minimums: scaled down). The app's queue in the RM's
   * report goes in {@code appQueue}.
   */
  private List<Map<String, JsonNode>> run(Class<? extends ResourceScheduler> scheduler,
      List<String> appQueue) throws Exception {
    MockRM rm = rms.start(scheduler, absolute());
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
  public void nestedAbsoluteCapacitiesFollowTheClusterAsCapacitySchedulersDo() throws Exception {
    List<String> csQueue = new ArrayList<>();
    List<Map<String, JsonNode>> cs = run(CapacityScheduler.class, csQueue);
    List<String> locusQueue = new ArrayList<>();
    List<Map<String, JsonNode>> locus = run(LocusScheduler.class, locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    // a1 on one 16 GB node: 4 of a's 10 GB, a 10 of 16.
    assertEquals(40.0, cs.get(0).get("root.a.a1").path("capacity").asDouble(), 1e-3);
    assertEquals(25.0, cs.get(0).get("root.a.a1").path("absoluteCapacity").asDouble(), 1e-3);
    // 8 GB left for 16 GB of minimums: a's scaled to half.
    assertEquals(5 * GB, RmRest.defaultPartition(cs.get(2).get("root.a"))
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
          assertEquals(at + " capacities " + f, cp.path(f).asDouble(), lp.path(f).asDouble(),
              1e-3);
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

  /** The message CapacityScheduler stops the RM with, or fails when it starts. */
  private String csRefusal(YarnConfiguration conf) throws IOException {
    try {
      rms.start(CapacityScheduler.class, new YarnConfiguration(conf));
    } catch (Exception e) {
      return messages(e);
    }
    fail("CapacityScheduler started with " + conf);
    return null;
  }

  /**
   * Files CapacityScheduler refuses in absolute mode are refused by Locus with its words,
   * naming the key: an absolute child under a percentage parent, absolute and percentage
   * siblings, children's minimums above their parent's, a minimum above its maximum, a
   * maximum above the parent's.
   */
  @Test
  public void absoluteFilesCapacitySchedulerRefusesAreRefusedWithItsWords() throws Exception {
    String[][] cases = {
        // {key, value, CS's words, the key Locus names}
        {"root.a.a1.capacity", "40", "Parent=root.a: When absolute minResource is used, we "
            + "must make sure both parent and child all use absolute minResource",
            "root.a.a1.capacity"},
        {"root.b.capacity", "50", "have children queue used mixed of  weight mode, percentage "
            + "and absolute mode", "root.b.capacity"},
        {"root.a.a2.capacity", "[memory=8192,vcores=8]", "Parent Queues capacity: "
            + "<memory:10240, vCores:12> is less than to its children:<memory:12288, "
            + "vCores:12> for queue:a", "root.a.capacity"},
        {"root.a.a1.maximum-capacity", "[memory=2048,vcores=2]", "Min resource configuration "
            + "<memory:4096, vCores:4> is greater than its max value:<memory:2048, vCores:2> "
            + "in queue:root.a.a1", "root.a.a1.maximum-capacity"},
        {"root.a.a1.maximum-capacity", "[memory=40960,vcores=8]", "Max resource configuration "
            + "<memory:40960, vCores:8> is greater than parents max value:<memory:20480, "
            + "vCores:20> in queue:root.a.a1", "root.a.a1.maximum-capacity"}};
    for (String[] c : cases) {
      YarnConfiguration conf = absolute();
      conf.set(CS + c[0], c[1]);
      if (c[0].equals("root.a.a1.capacity")) {
        conf.unset(CS + "root.a.a1.maximum-capacity");
        conf.set(CS + "root.a.a2.capacity", "60");
      }
      String cs = csRefusal(conf);
      assertTrue(cs, cs.contains(c[2]));
      try {
        rms.start(LocusScheduler.class, new YarnConfiguration(conf));
        fail("Locus started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        assertTrue(messages(e), messages(e).contains(c[2]));
        assertTrue(messages(e), messages(e).contains(CS + c[3]));
      }
    }
  }
}
