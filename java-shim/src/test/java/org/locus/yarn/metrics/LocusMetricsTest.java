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
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.After;
import org.junit.BeforeClass;
import org.junit.Test;
import org.locus.yarn.LocusScheduler;

/**
 * What an operator's JMX console shows for a running Locus RM: the LocusScheduler bean's counters
 * grow with real heartbeats and allocations, timings carry percentiles, and the RM's QueueMetrics
 * for the queue the job ran in show the containers it holds.
 */
public class LocusMetricsTest {
  private static final int GB = 1024;
  private static final int ROUNDS = 40;
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
    rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
    rm.start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);

    am.allocate("h1", GB, 2, new ArrayList<>());
    // The leaf the app runs in, however deep the queue tree is.
    QueueMetrics leaf = ((LocusScheduler) rm.getResourceScheduler())
        .getApplicationAttempt(am.getApplicationAttemptId()).getQueue().getMetrics();
    // Asked, not yet placed: the RM's pending figures show the two tasks.
    assertEquals(2, rm.getResourceScheduler().getRootQueueMetrics().getPendingContainers());
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < ROUNDS && got.size() < 2; i++) {
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      if (got.size() < 2) {
        Thread.sleep(50);
      }
    }
    assertEquals(2, got.size());

    assertTrue("heartbeats " + attr("Heartbeats"), attr("Heartbeats") >= 3);
    assertTrue(attr("Decisions") >= 2);
    // The AM container and both tasks were placed on h1, which the tasks named.
    assertEquals(3, attr("Allocations"));
    assertTrue(attr("NodeLocalAllocations") >= 2);
    assertEquals(0, attr("Rejections"));
    assertEquals(0, attr("CoreRebuilds"));
    assertTrue(attr("HeartbeatTimeNumOps") >= 3);
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
}
