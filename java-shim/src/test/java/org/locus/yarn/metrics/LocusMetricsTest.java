package org.locus.yarn.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.After;
import org.junit.BeforeClass;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * What an operator's JMX console shows for a running Locus RM: the LocusScheduler bean's counters
 * grow with real heartbeats and allocations, timings carry percentiles, and the RM's QueueMetrics
 * for the queue the job ran in show the containers it holds.
 */
public class LocusMetricsTest {
  private static final int GB = 1024;
  private MockRM rm;

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  @After
  public void stop() {
    if (rm != null) {
      rm.stop();
    }
  }

  private static long attr(String name) throws Exception {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    Object v = mbs.getAttribute(
        new ObjectName("Hadoop:service=ResourceManager,name=LocusScheduler"), name);
    return ((Number) v).longValue();
  }

  @Test
  public void jmxBeanCountsHeartbeatsAllocationsAndTimesThem() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    // Stepped by hand with MockRM's helpers, which need decisions at heartbeats (LocusRmFixture).
    conf.set("locus.scheduling.mode", "heartbeat");
    conf.set("locus.scheduling.eager", "false");
    rm = new MockRM(LocusRmFixture.privateState(conf));
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
    rm.start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);

    am.allocate("h1", GB, 2, new ArrayList<>());
    // The leaf the app runs in, however deep the queue tree is.
    QueueMetrics leaf = ((LocusScheduler) rm.getResourceScheduler())
        .getApplicationAttempt(am.getApplicationAttemptId()).getQueue().getMetrics();
    // Asked, not yet placed: the RM's pending figures show the two tasks.
    assertEquals(2, rm.getResourceScheduler().getRootQueueMetrics().getPendingContainers());
    List<Container> got = LocusRmFixture.heartbeatUntil(rm, nm, am, 2);
    assertEquals(2, got.size());

    // Hadoop's metrics system answers JMX from a snapshot it refreshes at most once per period
    // (10 s by default), so a read right after start can show the counters as they were then.
    // The core counts node offers: the scheduling thread folds several heartbeats of a node that
    // arrive during one pass into one offer, so only two are certain (the AM's container, then
    // the tasks', which were asked for after the AM registered). Every NODE_UPDATE is timed.
    long deadline = System.nanoTime() + 15_000_000_000L;
    while ((attr("Heartbeats") < 2 || attr("Allocations") < 3) && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertTrue("heartbeats " + attr("Heartbeats"), attr("Heartbeats") >= 2);
    assertTrue(attr("Decisions") >= 2);
    // The AM container and both tasks were placed on h1, which the tasks named.
    assertEquals(3, attr("Allocations"));
    assertTrue(attr("NodeLocalAllocations") >= 2);
    assertEquals(0, attr("Rejections"));
    assertEquals(0, attr("CoreRebuilds"));
    assertTrue("timed heartbeats " + attr("HeartbeatTimeNumOps"), attr("HeartbeatTimeNumOps") >= 2);
    assertTrue(attr("AllocateTimeNumOps") >= 2);
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    String policy = (String) mbs.getAttribute(
        new ObjectName("Hadoop:service=ResourceManager,name=LocusScheduler"), "tag.Policy");
    assertTrue(policy, !policy.isEmpty());

    // The RM's own per-queue figures for the queue the job ran in: 3 containers of 1 GB held,
    // one application running.
    QueueMetrics q = rm.getResourceScheduler().getRootQueueMetrics();
    assertEquals(3 * GB, q.getAllocatedMB());
    assertEquals(3, q.getAllocatedContainers());
    assertEquals(1, q.getAppsRunning());
    assertEquals(0, q.getPendingContainers());
    assertEquals(3 * GB, leaf.getAllocatedMB());
    assertEquals(1, leaf.getAppsRunning());
  }

  /**
   * After a few allocations with work left pending, the RM's per-queue figures agree with its
   * own bookkeeping: allocated = what the nodes hold, pending = what the attempts still ask for,
   * apps by state = the RMApps' states. App 1 runs with 7 of its 10 tasks placed (the node is
   * full), app 2's AM waits for room, app 3 is killed before it runs.
   */
  @Test
  public void queueMetricsAgreeWithTheRmsBookkeepingAfterAllocations() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    // Stepped by hand with MockRM's helpers, which need decisions at heartbeats (LocusRmFixture).
    conf.set("locus.scheduling.mode", "heartbeat");
    conf.set("locus.scheduling.eager", "false");
    rm = new MockRM(LocusRmFixture.privateState(conf));
    rm.start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app1 = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am1 = LocusRmFixture.launchAndRegisterAM(app1, rm, nm);
    am1.allocate("*", GB, 10, new ArrayList<>());
    int got = LocusRmFixture.heartbeatUntil(rm, nm, am1, 7).size();
    assertEquals("tasks placed on the full node", 7, got);
    RMApp app2 = MockRMAppSubmitter.submitWithMemory(GB, rm);
    RMApp app3 = MockRMAppSubmitter.submitWithMemory(GB, rm);
    rm.killApp(app3.getApplicationId());
    rm.waitForState(app3.getApplicationId(), RMAppState.KILLED);
    rm.waitForState(app2.getApplicationId(), RMAppState.ACCEPTED);
    nm.nodeHeartbeat(true);
    LocusRmFixture.settle(rm);

    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    long nodeMb = 0;
    int nodeContainers = 0;
    for (org.apache.hadoop.yarn.api.records.NodeId id : rm.getRMContext().getRMNodes().keySet()) {
      SchedulerNode n = scheduler.getSchedulerNode(id);
      nodeMb += n.getAllocatedResource().getMemorySize();
      nodeContainers += n.getNumContainers();
    }
    long askedMb = 0;
    int askedContainers = 0;
    for (SchedulerApplication<FiCaSchedulerApp> a : scheduler.getSchedulerApplications().values()) {
      FiCaSchedulerApp attempt = a.getCurrentAppAttempt();
      if (attempt == null) {
        continue;
      }
      for (ResourceRequest r : attempt.getAppSchedulingInfo().getAllResourceRequests()) {
        if (ResourceRequest.ANY.equals(r.getResourceName())) {
          askedContainers += r.getNumContainers();
          askedMb += r.getNumContainers() * r.getCapability().getMemorySize();
        }
      }
    }
    int running = 0;
    int accepted = 0;
    int killed = 0;
    for (RMApp a : rm.getRMContext().getRMApps().values()) {
      YarnApplicationState st = a.createApplicationState();
      running += st == YarnApplicationState.RUNNING ? 1 : 0;
      accepted += st == YarnApplicationState.ACCEPTED ? 1 : 0;
      killed += st == YarnApplicationState.KILLED ? 1 : 0;
    }
    assertEquals(8, nodeContainers);
    // 3 tasks of app 1 and app 2's AM.
    assertEquals(4, askedContainers);

    QueueMetrics leaf = scheduler.getApplicationAttempt(am1.getApplicationAttemptId()).getQueue()
        .getMetrics();
    for (QueueMetrics q : new QueueMetrics[] {scheduler.getRootQueueMetrics(), leaf}) {
      String name = q == leaf ? "leaf" : "root";
      assertEquals(name + " allocated MB", nodeMb, q.getAllocatedMB());
      assertEquals(name + " allocated containers", nodeContainers, q.getAllocatedContainers());
      assertEquals(name + " pending MB", askedMb, q.getPendingMB());
      assertEquals(name + " pending containers", askedContainers, q.getPendingContainers());
      assertEquals(name + " apps submitted", 3, q.getAppsSubmitted());
      assertEquals(name + " apps running", running, q.getAppsRunning());
      assertEquals(name + " apps pending", accepted, q.getAppsPending());
      assertEquals(name + " apps killed", killed, q.getAppsKilled());
      assertEquals(name + " available MB", 0, q.getAvailableMB());
    }
  }
}
