package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.junit.Rule;
import org.junit.Test;

/**
 * {@code locus.policy=capacity} inside a real (in-process) ResourceManager: applications run in
 * the queue they name, the RM sees one queue per configured one, an unknown queue fails the
 * submission, and {@code -refreshQueues} reshapes the queues.
 */
public class CapacityQueuesTest {
  private static final String TWO_QUEUES = "a:50:90,b:50:90";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static YarnConfiguration conf(String queues) {
    YarnConfiguration conf = locusConf();
    if (queues != null) {
      conf.set("locus.policy", "capacity");
      conf.set("locus.capacity.queues", queues);
    }
    return conf;
  }

  private static RMApp submit(MockRM rm, String queue, boolean waitForAccepted)
      throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withWaitForAppAcceptedState(waitForAccepted)
        .build());
  }

  private static Map<String, QueueInfo> children(LocusScheduler scheduler) throws IOException {
    Map<String, QueueInfo> out = new HashMap<>();
    for (QueueInfo child : scheduler.getQueueInfo("root", true, false).getChildQueues()) {
      out.put(child.getQueueName(), child);
    }
    return out;
  }

  private static List<String> childNames(LocusScheduler scheduler) throws IOException {
    List<String> out = new ArrayList<>();
    for (QueueInfo child : scheduler.getQueueInfo("root", true, false).getChildQueues()) {
      out.add(child.getQueueName());
    }
    return out;
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  @Test
  public void appsRunInTheirQueueWhichStopsAtItsMaximumCapacity() throws Exception {
    MockRM rm = cluster.start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    LocusScheduler scheduler = scheduler(rm);

    RMApp appA = submit(rm, "a", true);
    MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm);
    assertEquals("the RM files the app under the queue's path", "root.a", appA.getQueue());

    // Queue a may hold 90% of 10 GB: the AM and eight 1 GB tasks, not ten.
    amA.allocate("*", GB, 10, new ArrayList<>());
    List<Container> tasks = heartbeatUntil(rm, nm, amA, 10);
    assertEquals(8, tasks.size());
    AllocateResponse response = amA.allocate(new ArrayList<>(), new ArrayList<>());
    assertEquals("headroom is capped by the queue, not the 1 GB the cluster has free",
        0, response.getAvailableResources().getMemorySize());

    QueueMetrics metricsA = QueueMetrics.getQueueMetrics().get("root.a");
    QueueMetrics metricsB = QueueMetrics.getQueueMetrics().get("root.b");
    assertNotNull(metricsA);
    assertNotNull(metricsB);
    assertEquals(9 * GB, metricsA.getAllocatedMB());
    assertEquals(0, metricsB.getAllocatedMB());
    assertEquals(9 * GB, scheduler.getRootQueueMetrics().getAllocatedMB());
    assertEquals(0, metricsA.getAvailableMB());
    assertEquals(GB, metricsB.getAvailableMB());
    assertEquals(GB, scheduler.getRootQueueMetrics().getAvailableMB());

    QueueInfo a = scheduler.getQueueInfo("a", false, false);
    assertEquals(0.5f, a.getCapacity(), 1e-6);
    assertEquals(0.9f, a.getMaximumCapacity(), 1e-6);
    assertEquals("9 GB used of a 5 GB guarantee", 1.8f, a.getCurrentCapacity(), 1e-6);

    // b is entitled to what a may not take: its AM gets the last free GB.
    RMApp appB = submit(rm, "root.b", true);
    MockAM amB = LocusRmFixture.launchAndRegisterAM(appB, rm, nm);
    assertEquals("root.b", appB.getQueue());
    assertEquals(GB, metricsB.getAllocatedMB());
    assertEquals(0.2f, scheduler.getQueueInfo("root.b", false, false).getCurrentCapacity(),
        1e-6);

    ApplicationAttemptId attemptA = amA.getApplicationAttemptId();
    ApplicationAttemptId attemptB = amB.getApplicationAttemptId();
    assertEquals(Arrays.asList(attemptA), scheduler.getAppsInQueue("a"));
    assertEquals(Arrays.asList(attemptB), scheduler.getAppsInQueue("b"));
    assertEquals(Arrays.asList(attemptA, attemptB), scheduler.getAppsInQueue("root"));
    assertNull(scheduler.getAppsInQueue("nope"));

    // A finished task frees room in a; a's app, still asking for two, gets one back, not two.
    nm.nodeHeartbeat(attemptA, tasks.get(0).getId().getContainerId(), ContainerState.COMPLETE);
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals(1, heartbeatUntil(rm, nm, amA, 2).size());
    assertEquals(9 * GB, metricsA.getAllocatedMB());
  }

  @Test
  public void anAppNamingAnUnconfiguredQueueIsRejectedWithTheQueuesNamed() throws Exception {
    MockRM rm = cluster.start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);

    RMApp refused = submit(rm, "nope", false);
    rm.waitForState(refused.getApplicationId(), RMAppState.FAILED);
    String diagnostics = refused.getDiagnostics().toString();
    assertTrue(diagnostics, diagnostics.contains("unknown queue: nope"));
    assertTrue(diagnostics, diagnostics.contains("a, b"));
    assertTrue(scheduler(rm).getSchedulerApplications().isEmpty());
    assertEquals("the core never heard of it", 0,
        CoreMessages.JSON.readTree(scheduler(rm).getCoreStatsJson()).get("apps").asInt());

    // The submission the RM defaults to ("default") is no queue here either.
    RMApp unnamed = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withWaitForAppAcceptedState(false).build());
    rm.waitForState(unnamed.getApplicationId(), RMAppState.FAILED);
    assertTrue(unnamed.getDiagnostics().toString().contains("unknown queue: default"));

    // Nothing broke: a good submission still runs.
    LocusRmFixture.launchAndRegisterAM(submit(rm, "a", true), rm, nm);
  }

  @Test
  public void rootListsItsLeavesWithTheirCapacities() throws Exception {
    MockRM rm = cluster.start(conf("a:30:60,b:70"));
    LocusScheduler scheduler = scheduler(rm);

    QueueInfo root = scheduler.getQueueInfo("root", true, false);
    assertEquals("root", root.getQueueName());
    assertEquals(1.0f, root.getCapacity(), 1e-6);
    assertEquals(Arrays.asList("a", "b"), childNames(scheduler));
    Map<String, QueueInfo> leaves = children(scheduler);
    assertEquals(0.3f, leaves.get("a").getCapacity(), 1e-6);
    assertEquals(0.6f, leaves.get("a").getMaximumCapacity(), 1e-6);
    assertEquals(0.7f, leaves.get("b").getCapacity(), 1e-6);
    assertEquals(1.0f, leaves.get("b").getMaximumCapacity(), 1e-6);
    assertEquals("root.b", leaves.get("b").getQueuePath());
    assertEquals(QueueState.RUNNING, leaves.get("a").getQueueState());
    assertTrue(scheduler.getQueueInfo("root", false, false).getChildQueues().isEmpty());
    assertEquals(0.3f, scheduler.getQueueInfo("root.a", false, false).getCapacity(), 1e-6);

    try {
      scheduler.getQueueInfo("default", false, false);
      fail("default answered though it is not configured");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("default"));
      assertTrue(e.getMessage(), e.getMessage().contains("a, b"));
    }
    List<String> acls = new ArrayList<>();
    for (QueueUserACLInfo info : scheduler.getQueueUserAclInfo()) {
      acls.add(info.getQueueName());
    }
    // By path, as CapacityScheduler lists them.
    assertEquals(Arrays.asList("root", "root.a", "root.b"), acls);
    assertTrue(scheduler.checkAccess(
        org.apache.hadoop.security.UserGroupInformation.createRemoteUser("anyone"),
        org.apache.hadoop.yarn.api.records.QueueACL.SUBMIT_APPLICATIONS, "b"));
  }

  @Test
  public void refreshQueuesAddsAQueueAndRefusesDroppingABusyOne() throws Exception {
    MockRM rm = cluster.start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    MockAM amB = LocusRmFixture.launchAndRegisterAM(submit(rm, "b", true), rm, nm);

    scheduler.reinitialize(conf("a:40:90,b:40:90,c:20"), rm.getRMContext());
    assertEquals(Arrays.asList("a", "b", "c"), childNames(scheduler));
    assertEquals(0.4f, children(scheduler).get("a").getCapacity(), 1e-6);
    assertEquals(0.2f, children(scheduler).get("c").getCapacity(), 1e-6);
    assertEquals("b's app is where it was", Arrays.asList(amB.getApplicationAttemptId()),
        scheduler.getAppsInQueue("b"));

    RMApp appC = submit(rm, "c", true);
    MockAM amC = LocusRmFixture.launchAndRegisterAM(appC, rm, nm);
    assertEquals(Arrays.asList(amC.getApplicationAttemptId()), scheduler.getAppsInQueue("c"));
    amC.allocate("*", GB, 1, new ArrayList<>());
    assertEquals(1, heartbeatUntil(rm, nm, amC, 1).size());

    try {
      scheduler.reinitialize(conf("a:50,c:50"), rm.getRMContext());
      fail("dropped queue b while it holds an application");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("b (1 applications)"));
    }
    assertEquals("a refused refresh changes nothing", Arrays.asList("a", "b", "c"),
        childNames(scheduler));
    assertEquals(0.4f, children(scheduler).get("b").getCapacity(), 1e-6);
  }

  @Test
  public void switchingAwayFromCapacityDrainsItsQueuesIntoDefault() throws Exception {
    MockRM rm = cluster.start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    RMApp appA = submit(rm, "a", true);
    MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm);

    scheduler.reinitialize(conf(null), rm.getRMContext());
    // a keeps its running app; the empty b is gone; new work goes to default.
    assertEquals(Arrays.asList("default", "a"), childNames(scheduler));
    assertEquals(QueueState.DRAINING, children(scheduler).get("a").getQueueState());
    RMApp later = submit(rm, "b", true);
    MockAM amLater = LocusRmFixture.launchAndRegisterAM(later, rm, nm);
    assertEquals(Arrays.asList(amLater.getApplicationAttemptId()),
        scheduler.getAppsInQueue("default"));
    // a's app still gets containers.
    amA.allocate("*", GB, 1, new ArrayList<>());
    assertEquals(1, heartbeatUntil(rm, nm, amA, 1).size());

    // Back to capacity is refused while default holds an application, naming it.
    try {
      scheduler.reinitialize(conf(TWO_QUEUES), rm.getRMContext());
      fail("capacity accepted though default holds an application");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("default (1 applications)"));
    }

    // a's app finishes: the drained queue disappears.
    amA.unregisterAppAttempt();
    nm.nodeHeartbeat(amA.getApplicationAttemptId(), 1, ContainerState.COMPLETE);
    rm.waitForState(appA.getApplicationId(), RMAppState.FINISHED);
    rm.drainEvents();
    assertEquals(Arrays.asList("default"), childNames(scheduler));
    assertNull(scheduler.getAppsInQueue("a"));
  }
}
