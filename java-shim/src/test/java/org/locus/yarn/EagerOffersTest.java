package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.ROUNDS;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;

/**
 * Under Locus's default (fsp + delay, which {@code auto} runs on node heartbeats) an ask with
 * nothing to wait for, an AM's or one naming no host or rack (a Spark executor without
 * preferences, a DistributedShell container), is placed as soon as a live node has room, as
 * CapacityScheduler's asynchronous scheduling places it, without waiting for the next NM
 * heartbeat; an ask naming a host still waits for heartbeats, which count its locality wait.
 * MockNMs heartbeat only when a test says so, so anything placed between two of their
 * heartbeats was placed without one.
 */
public class EagerOffersTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();
  /** The AM {@link #amAndExecutorsWithoutHeartbeats} registered. */
  private MockAM am;

  /** Locus as shipped: the default policy, locality and mode. */
  private static YarnConfiguration locus() {
    YarnConfiguration conf = locusConf();
    conf.unset(SchedulingMode.KEY);
    conf.unset("locus.scheduling.eager");
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 600_000);
    return conf;
  }

  /** CapacityScheduler with asynchronous scheduling (Hadoop 3.5's default for CS). */
  private static YarnConfiguration capacityAsync() {
    YarnConfiguration conf = locus();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
        ResourceScheduler.class);
    conf.setBoolean(CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_ENABLE, true);
    return conf;
  }

  /** Waits for the RM: Locus's passes by their end, CapacityScheduler's thread by polling. */
  private static void await(MockRM rm) throws Exception {
    LocusRmFixture.settle(rm);
  }

  private static List<Container> pollWithoutNodeHeartbeats(MockRM rm, MockAM am, int n)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < ROUNDS && got.size() < n; i++) {
      await(rm);
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<ContainerId>())
          .getAllocatedContainers());
      if (got.size() < n) {
        Thread.sleep(50);
      }
    }
    return got;
  }

  /**
   * Two idle nodes that heartbeated once; an application submitted after; then no heartbeat:
   * what the scheduler placed. The AM's container, then two executors asked anywhere.
   */
  private List<String> amAndExecutorsWithoutHeartbeats(MockRM rm, MockNM[] nms)
      throws Exception {
    List<String> transcript = new ArrayList<>();
    nms[0] = rm.registerNode("h1:1234", 8 * GB, 8);
    nms[1] = rm.registerNode("h2:1234", 8 * GB, 8);
    nms[0].nodeHeartbeat(true);
    nms[1].nodeHeartbeat(true);
    await(rm);
    RMApp app = MockRMAppSubmitter.submit(rm,
        MockRMAppSubmissionData.Builder.createWithMemory(GB, rm)
            .withWaitForAppAcceptedState(false).build());
    rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    RMAppAttempt attempt = app.getCurrentAppAttempt();
    ApplicationAttemptId id = attempt.getAppAttemptId();
    for (int i = 0; i < ROUNDS
        && attempt.getAppAttemptState() != RMAppAttemptState.ALLOCATED; i++) {
      await(rm);
      if (attempt.getAppAttemptState() != RMAppAttemptState.ALLOCATED) {
        Thread.sleep(50);
      }
    }
    transcript.add("AM container without an NM heartbeat: " + attempt.getAppAttemptState());
    if (attempt.getAppAttemptState() != RMAppAttemptState.ALLOCATED) {
      return transcript;
    }
    rm.sendAMLaunched(id);
    rm.waitForState(id, RMAppAttemptState.LAUNCHED);
    am = new MockAM(rm.getRMContext(), rm.getApplicationMasterService(), id);
    am.registerAppAttempt();

    am.allocate(Collections.singletonList(ResourceRequest.newInstance(Priority.newInstance(1),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), 2)), new ArrayList<>());
    transcript.add("executors asked anywhere, placed without an NM heartbeat: "
        + pollWithoutNodeHeartbeats(rm, am, 2).size());
    return transcript;
  }

  private static final List<String> PLACED_AT_ONCE = java.util.Arrays.asList(
      "AM container without an NM heartbeat: ALLOCATED",
      "executors asked anywhere, placed without an NM heartbeat: 2");

  @Test(timeout = 180_000)
  public void anAmAndAsksNamingNoHostArePlacedWithoutAHeartbeatAsUnderCapacitySchedulerAsync()
      throws Exception {
    MockRM cs = cluster.start(capacityAsync());
    List<String> underCs = amAndExecutorsWithoutHeartbeats(cs, new MockNM[2]);
    cs.stop();
    assertEquals("CapacityScheduler (async), the reference", PLACED_AT_ONCE, underCs);

    MockRM rm = cluster.start(locus());
    assertEquals("the default runs on heartbeats", SchedulingMode.HEARTBEAT,
        scheduler(rm).schedulingMode());
    assertEquals("Locus's default", underCs,
        amAndExecutorsWithoutHeartbeats(rm, new MockNM[2]));
  }

  /**
   * An ask naming a host still waits for heartbeats: not placed between them, not placed by the
   * first heartbeat of another node (delay's node threshold is 1.0 x 2 nodes), and node-local
   * at its own node's heartbeat.
   */
  @Test(timeout = 180_000)
  public void anAskNamingAHostStillWaitsForHeartbeats() throws Exception {
    MockRM rm = cluster.start(locus());
    MockNM[] nms = new MockNM[2];
    assertEquals(PLACED_AT_ONCE, amAndExecutorsWithoutHeartbeats(rm, nms));

    am.allocate(am.createReq(new String[] {"h2"}, GB, 2, 1, 0L), new ArrayList<>());
    await(rm);
    assertEquals("a map placed without a heartbeat", 0, am.allocate(new ArrayList<>(),
        new ArrayList<ContainerId>()).getAllocatedContainers().size());
    nms[0].nodeHeartbeat(true);
    await(rm);
    assertEquals("a map placed away from h2 at its first missed heartbeat", 0,
        am.allocate(new ArrayList<>(), new ArrayList<ContainerId>())
            .getAllocatedContainers().size());
    nms[1].nodeHeartbeat(true);
    List<Container> got = pollWithoutNodeHeartbeats(rm, am, 1);
    assertEquals(1, got.size());
    assertEquals("node-local", nms[1].getNodeId(), got.get(0).getNodeId());
  }

  /**
   * Off, only heartbeats place anything in heartbeat mode: the AM waits for one (the behaviour
   * MockRM's own helpers and the papers' per-heartbeat definitions assume).
   */
  @Test(timeout = 180_000)
  public void offOnlyHeartbeatsPlace() throws Exception {
    YarnConfiguration conf = locus();
    conf.set("locus.scheduling.eager", "false");
    MockRM rm = cluster.start(conf);
    assertEquals(java.util.Arrays.asList("AM container without an NM heartbeat: SCHEDULED"),
        amAndExecutorsWithoutHeartbeats(rm, new MockNM[2]));
  }
}
