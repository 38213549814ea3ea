package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.ROUNDS;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.quietLogs;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import org.apache.hadoop.yarn.api.records.NodeId;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.junit.Rule;
import org.junit.Test;

/**
 * The shim inside a real (in-process) ResourceManager: MockRM with LocusScheduler, MockNMs
 * heartbeating, a MockAM asking for containers. Every allocation here was decided by the core
 * and executed by the shim, so these pass only when both sides honour the protocol.
 */
public class LocusSchedulerTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Test
  public void amAndTasksAreAllocatedNodeLocalFirstAndFreedOnCompletion() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);

    // The AM container came from a core decision on nm1's heartbeat.
    assertEquals(GB, scheduler.getSchedulerNode(nm1.getNodeId()).getAllocatedResource()
        .getMemorySize());

    // Two containers wanted on h2 (MockAM adds the /default-rack and * rows).
    am.allocate("h2", GB, 2, new ArrayList<>());
    List<Container> tasks = heartbeatUntil(rm, nm2, am, 2);
    assertEquals(2, tasks.size());
    for (Container c : tasks) {
      assertEquals(nm2.getNodeId(), c.getNodeId());
      assertEquals(GB, c.getResource().getMemorySize());
      assertNotNull("the RM issued a container token", c.getContainerToken());
    }
    FiCaSchedulerNode node2 = scheduler.getSchedulerNode(nm2.getNodeId());
    assertEquals(6 * GB, node2.getUnallocatedResource().getMemorySize());
    assertEquals(3 * GB, rm.getResourceScheduler().getRootQueueMetrics().getAllocatedMB());

    JsonNode stats = stats(rm);
    assertEquals(3, stats.get("allocations").asInt());
    assertEquals(2, stats.get("node_local").asInt());
    assertEquals(2, stats.get("nodes").asInt());
    assertEquals(1, stats.get("apps").asInt());
    assertEquals(0, stats.get("pending_containers").asInt());

    // The NM reports both tasks finished: their resources are free again, in the RM and core.
    ApplicationAttemptId attempt = am.getApplicationAttemptId();
    for (Container c : tasks) {
      nm2.nodeHeartbeat(attempt, c.getId().getContainerId(), ContainerState.COMPLETE);
    }
    // The dispatcher hands heartbeats over; locus-scheduler books them.
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals(0, node2.getAllocatedResource().getMemorySize());
    assertEquals(GB, rm.getResourceScheduler().getRootQueueMetrics().getAllocatedMB());
    assertEquals(1, stats(rm).get("running_containers").asInt());

    // The AM finishes: the app leaves the scheduler and the core.
    am.unregisterAppAttempt();
    nm1.nodeHeartbeat(attempt, 1, ContainerState.COMPLETE);
    rm.waitForState(app.getApplicationId(), RMAppState.FINISHED);
    rm.drainEvents();
    assertTrue(scheduler.getSchedulerApplications().isEmpty());
    JsonNode end = stats(rm);
    assertEquals(0, end.get("apps").asInt());
    assertEquals(0, end.get("running_containers").asInt());
    assertEquals(0, scheduler.getUsedResource().getMemorySize());
  }

  @Test
  public void rackAndAnyAsksAreServedWhereNoNodeLocalChoiceExists() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    // A host that is not in the cluster: only the rack or * rows can be served on h1.
    am.allocate("h9", GB, 1, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    assertEquals(nm1.getNodeId(), got.get(0).getNodeId());
    JsonNode stats = stats(rm);
    assertEquals(0, stats.get("node_local").asInt());
    // The AM container (an ANY-only ask) is the other non-local one.
    assertEquals(2, stats.get("rack_local").asInt() + stats.get("off_switch").asInt());
  }

  @Test
  public void strictLocalityIsNeverRelaxed() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    // Only h2 will do: relax_locality=false on the rack and * rows.
    Resource one = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(10);
    List<ResourceRequest> strict = Arrays.asList(
        ResourceRequest.newInstance(p, "h2", one, 1, true),
        ResourceRequest.newInstance(p, "/default-rack", one, 1, false),
        ResourceRequest.newInstance(p, ResourceRequest.ANY, one, 1, false));
    am.allocate(strict, new ArrayList<>());
    for (int i = 0; i < 5; i++) {
      nm1.nodeHeartbeat(true);
      // Offered before the AM looks, or the check passes whatever the core decides.
      LocusRmFixture.settle(rm);
      assertTrue(am.allocate(new ArrayList<>(), new ArrayList<>())
          .getAllocatedContainers().isEmpty());
    }
    List<Container> got = heartbeatUntil(rm, nm2, am, 1);
    assertEquals(1, got.size());
    assertEquals(nm2.getNodeId(), got.get(0).getNodeId());
  }

  @Test
  public void decisionsTheRmCannotHonourAreReportedAsRejected() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    int rejectedBefore = stats(rm).get("rejected").asInt();

    // Two 4 GB containers wanted anywhere; h1 has 7 GB left after the AM.
    ResourceRequest any = ResourceRequest.newInstance(Priority.newInstance(10),
        ResourceRequest.ANY, Resource.newInstance(4 * GB, 1), 2);
    any.setAllocationRequestId(0L);
    am.allocate(Arrays.asList(any), new ArrayList<>());
    // allocate() only notes the rows; the scheduling thread sends them to the core.
    scheduler.awaitSchedulingIdle();

    String appId = app.getApplicationId().toString();
    scheduler.executeDecisions(Arrays.asList(
        // Names a host the node is not: nothing may be created.
        decision(appId, "h2", nm1.getNodeId(), 0, 1),
        // Asks for three where two are outstanding and only one fits: one is created.
        decision(appId, "*", nm1.getNodeId(), 2, 3)));

    List<Container> got = am.allocate(new ArrayList<>(), new ArrayList<>())
        .getAllocatedContainers();
    assertEquals(1, got.size());
    assertEquals(4 * GB, got.get(0).getResource().getMemorySize());
    assertEquals(3 * GB, scheduler.getSchedulerNode(nm1.getNodeId())
        .getUnallocatedResource().getMemorySize());
    // What the RM changed after the rejections reaches the core on the scheduling thread too.
    scheduler.awaitSchedulingIdle();
    JsonNode stats = stats(rm);
    assertEquals(rejectedBefore + 2, stats.get("rejected").asInt());
    // The core's view of the asks follows the RM's: one 4 GB container still wanted.
    assertEquals(1, stats.get("pending_containers").asInt());
  }

  /** A decision at priority 10 for 4 GB containers; locality 0 node, 1 rack, 2 off-switch. */
  private static DecisionsFrame.Decision decision(String app, String resourceName, NodeId node,
      int locality, int count) {
    return new DecisionsFrame.Decision(node, (byte) locality, 10, 0L, count, 4096, 1, app,
        resourceName);
  }

  /**
   * AMs calling allocate() on their own threads while NMs heartbeat on another: every asked
   * container arrives exactly once, no node is over-allocated, and the core ends up with the
   * RM's view. A lock-order bug would hang here, hence the generous hang guard (not a speed
   * requirement).
   */
  @Test(timeout = 300_000)
  public void concurrentAllocateCallsAndHeartbeatsAgree() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM[] nms = {rm.registerNode("h1:1234", 16 * GB, 16),
        rm.registerNode("h2:1234", 16 * GB, 16), rm.registerNode("h3:1234", 16 * GB, 16)};
    final int perApp = 8;
    List<MockAM> ams = new ArrayList<>();
    for (MockNM nm : nms) {
      RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
      ams.add(LocusRmFixture.launchAndRegisterAM(app, rm, nm));
    }

    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean(false);
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread heartbeats = new Thread(() -> {
      try {
        for (int i = 0; i < 2000 && !done.get(); i++) {
          for (MockNM nm : nms) {
            nm.nodeHeartbeat(true);
          }
          rm.drainEvents();
        }
      } catch (Throwable t) {
        errors.add(t);
      }
    });
    List<List<Container>> received = new ArrayList<>();
    List<Thread> amThreads = new ArrayList<>();
    for (MockAM am : ams) {
      List<Container> mine = java.util.Collections.synchronizedList(new ArrayList<>());
      received.add(mine);
      amThreads.add(new Thread(() -> {
        try {
          mine.addAll(am.allocate("*", GB, perApp, new ArrayList<>()).getAllocatedContainers());
          for (int i = 0; i < 2000 && mine.size() < perApp; i++) {
            mine.addAll(am.allocate(new ArrayList<>(), new ArrayList<>())
                .getAllocatedContainers());
            Thread.sleep(5);
          }
        } catch (Throwable t) {
          errors.add(t);
        }
      }));
    }
    heartbeats.start();
    amThreads.forEach(Thread::start);
    for (Thread t : amThreads) {
      t.join();
    }
    done.set(true);
    heartbeats.join();
    assertTrue("errors: " + errors, errors.isEmpty());

    java.util.Set<ContainerId> ids = new java.util.HashSet<>();
    for (List<Container> mine : received) {
      assertEquals(perApp, mine.size());
      for (Container c : mine) {
        assertTrue("container handed out twice: " + c.getId(), ids.add(c.getId()));
      }
    }
    LocusScheduler scheduler = scheduler(rm);
    long allocatedMb = 0;
    for (MockNM nm : nms) {
      FiCaSchedulerNode node = scheduler.getSchedulerNode(nm.getNodeId());
      assertTrue(node.getUnallocatedResource().getMemorySize() >= 0);
      allocatedMb += node.getAllocatedResource().getMemorySize();
    }
    int running = nms.length * (perApp + 1);
    assertEquals(running * GB, allocatedMb);
    assertEquals(running * GB, scheduler.getUsedResource().getMemorySize());
    JsonNode stats = stats(rm);
    assertEquals(running, stats.get("running_containers").asInt());
    assertEquals(0, stats.get("pending_containers").asInt());
    assertEquals(running, stats.get("allocations").asInt());
  }

  @Test
  public void shrunkNodeIsFilledOnlyToItsNewSize() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    rm.getAdminService().updateNodeResource(
        org.apache.hadoop.yarn.server.api.protocolrecords.UpdateNodeResourceRequest.newInstance(
            java.util.Collections.singletonMap(nm1.getNodeId(),
                org.apache.hadoop.yarn.api.records.ResourceOption.newInstance(
                    Resource.newInstance(3 * GB, 3), -1))));
    rm.drainEvents();
    assertEquals(3 * GB, scheduler(rm).getSchedulerNode(nm1.getNodeId()).getTotalResource()
        .getMemorySize());

    am.allocate("*", GB, 5, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 5);
    assertEquals("3 GB node with a 1 GB AM holds two more", 2, got.size());
    assertEquals(3, stats(rm).get("pending_containers").asInt());
  }

  @Test
  public void containerResizeIsRefusedWithAReason() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    am.allocate("h1", GB, 1, new ArrayList<>());
    Container task = heartbeatUntil(rm, nm1, am, 1).get(0);
    nm1.nodeHeartbeat(am.getApplicationAttemptId(), task.getId().getContainerId(),
        ContainerState.RUNNING);
    rm.drainEvents();

    org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse response =
        am.sendContainerUpdateRequest(Arrays.asList(
            org.apache.hadoop.yarn.api.records.UpdateContainerRequest.newInstance(
                task.getVersion(), task.getId(),
                org.apache.hadoop.yarn.api.records.ContainerUpdateType.INCREASE_RESOURCE,
                Resource.newInstance(2 * GB, 1), null)));
    assertEquals(1, response.getUpdateErrors().size());
    assertTrue(response.getUpdateErrors().get(0).getReason(),
        response.getUpdateErrors().get(0).getReason().contains("Locus does not update"));
    assertEquals(GB, scheduler(rm).getRMContainer(task.getId()).getAllocatedResource()
        .getMemorySize());
  }

  @Test
  public void singleDefaultQueueAnswersQueueQueries() throws Exception {
    MockRM rm = cluster.start(locusConf());
    rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockRM.waitForAttemptScheduled(app, rm);
    LocusScheduler scheduler = scheduler(rm);

    assertEquals(Arrays.asList(app.getCurrentAppAttempt().getAppAttemptId()),
        scheduler.getAppsInQueue("default"));
    assertEquals(null, scheduler.getAppsInQueue("nope"));
    assertEquals("default", scheduler.getQueueInfo("default", false, false).getQueueName());
    // As FifoScheduler: any other name describes default, where such an app runs.
    assertEquals("default", scheduler.getQueueInfo("nope", false, false).getQueueName());
    org.apache.hadoop.yarn.api.records.QueueInfo root = scheduler.getQueueInfo("root", true, false);
    assertEquals(1, root.getChildQueues().size());
    assertEquals("default", root.getChildQueues().get(0).getQueueName());
    try {
      scheduler.moveApplication(app.getApplicationId(), "other");
      fail("move accepted");
    } catch (org.apache.hadoop.yarn.exceptions.YarnException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("other"));
    }
    assertTrue(scheduler.checkAccess(
        org.apache.hadoop.security.UserGroupInformation.createRemoteUser("anyone"),
        org.apache.hadoop.yarn.api.records.QueueACL.SUBMIT_APPLICATIONS, "default"));
    assertEquals(1, scheduler.getQueueUserAclInfo().size());
  }

  @Test
  public void anAppNamingAnotherQueueRunsInDefault() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submit(rm,
        org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData.Builder
            .createWithMemory(GB, rm).withQueue("research").build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    assertEquals("research", app.getQueue());
    assertEquals(Arrays.asList(am.getApplicationAttemptId()),
        scheduler(rm).getAppsInQueue("default"));
  }

  @Test
  public void removedNodeTakesItsContainersAway() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    am.allocate("h2", GB, 2, new ArrayList<>());
    assertEquals(2, heartbeatUntil(rm, nm2, am, 2).size());

    rm.sendNodeLost(nm2);
    rm.drainEvents();
    LocusScheduler scheduler = scheduler(rm);
    assertEquals(1, scheduler.getNumClusterNodes());
    assertEquals(GB, scheduler.getUsedResource().getMemorySize());
    JsonNode stats = stats(rm);
    assertEquals(1, stats.get("nodes").asInt());
    assertEquals(1, stats.get("running_containers").asInt());

    // The AM hears that both were lost.
    List<ContainerStatus> completed = new ArrayList<>();
    for (int i = 0; i < ROUNDS && completed.size() < 2; i++) {
      completed.addAll(am.allocate(new ArrayList<>(), new ArrayList<>())
          .getCompletedContainersStatuses());
    }
    assertEquals(2, completed.size());
  }

  @Test
  public void unknownLocusSettingStopsTheResourceManagerNamingTheKey() {
    YarnConfiguration conf = locusConf();
    conf.set("locus.foo", "bar");
    try {
      cluster.start(conf);
      fail("RM started with an unknown locus.* key");
    } catch (RuntimeException e) {
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertTrue("message should name locus.foo: " + messages,
          messages.toString().contains("locus.foo"));
    }
  }

  @Test
  public void refreshWithBadSettingKeepsRunningAndReportsTheKey() throws Exception {
    MockRM rm = cluster.start(locusConf());
    org.apache.hadoop.conf.Configuration bad = new org.apache.hadoop.conf.Configuration(false);
    bad.set("locus.policy", "no-such-policy");
    try {
      scheduler(rm).reinitialize(bad, rm.getRMContext());
      fail("bad locus.policy accepted on refresh");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("locus.policy"));
    }
    // The scheduler's Configuration is still the running one, not the refused one.
    assertNotEquals("no-such-policy", scheduler(rm).getConf().get("locus.policy"));
    // Still schedules after the refused refresh.
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
  }

  private static NMContainerStatus running(ApplicationAttemptId attempt, int id) {
    return NMContainerStatus.newInstance(ContainerId.newContainerId(attempt, id), 0,
        ContainerState.RUNNING, Resource.newInstance(GB, 1), "running before the restart", 0,
        Priority.newInstance(0), 0L, "", ExecutionType.GUARANTEED, -1L);
  }

  @Test
  public void workPreservingRestartRecoversRunningContainersIntoTheCore() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);

    MockRM rm1 = cluster.start(conf);
    MockNM nm1 = new MockNM("h1:1234", 8 * GB, rm1.getResourceTrackerService());
    nm1.registerNode();
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm1);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm1, nm1);
    ApplicationAttemptId attempt = am.getApplicationAttemptId();

    MockRM rm2 = new MockRM(conf, rm1.getRMStateStore());
    quietLogs();
    cluster.track(rm2);
    rm2.start();
    nm1.setResourceTrackerService(rm2.getResourceTrackerService());
    // The NM comes back with the AM container and one task container still running.
    nm1.registerNode(Arrays.asList(running(attempt, 1), running(attempt, 2)), null);
    rm2.drainEvents();

    LocusScheduler scheduler = scheduler(rm2);
    SchedulerApplicationAttempt recovered =
        scheduler.getApplicationAttempt(attempt);
    assertNotNull(recovered);
    assertEquals(2, recovered.getLiveContainers().size());
    assertEquals(6 * GB, scheduler.getSchedulerNode(nm1.getNodeId())
        .getUnallocatedResource().getMemorySize());
    JsonNode stats = stats(rm2);
    assertEquals(2, stats.get("recovered").asInt());
    assertEquals(2, stats.get("running_containers").asInt());
    assertEquals(1, stats.get("nodes").asInt());
    assertEquals(1, stats.get("apps").asInt());
    assertEquals("recovered containers are not new allocations",
        0, stats.get("allocations").asInt());

    // The re-registered AM keeps getting containers from the new RM's core.
    am.setAMRMProtocol(rm2.getApplicationMasterService(), rm2.getRMContext());
    am.registerAppAttempt(false);
    am.allocate("h1", GB, 1, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm2, nm1, am, 1);
    assertEquals(1, got.size());
    assertFalse("a fresh container id, not a recovered one",
        got.get(0).getId().getContainerId() <= 2);
  }
}
