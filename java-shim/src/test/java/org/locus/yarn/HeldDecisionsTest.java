package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.junit.Rule;
import org.junit.Test;

/**
 * Decisions the core made for a node that leaves the RM before the shim commits them: the
 * decisions frame names the node by its place in the offer, so the shim holds the node's id
 * from the offer, finds no such node any more, and hands the decision back; the core, which
 * gave the containers back to the asks when the node left, counts the rejection without giving
 * them back twice; nothing stays in flight, no drift is found, and the container goes to a node
 * that is still there.
 */
public class HeldDecisionsTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Test(timeout = 300_000)
  public void aDecisionForANodeRemovedMeanwhileIsHandedBackAndPlacedElsewhere()
      throws Exception {
    MockRM rm = startHeartbeatMode();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    MockAM am = LocusRmFixture.launchAndRegisterAM(
        MockRMAppSubmitter.submitWithMemory(GB, rm), rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    int rejectedBefore = stats(rm).get("rejected").asInt();

    int driftsBefore = stats(rm).get("asks_drifts").asInt();

    HeldPass pass = new HeldPass(scheduler);
    try {
      am.allocate("*", GB, 1, new ArrayList<>());
      scheduler.awaitSchedulingIdle();
      nm2.nodeHeartbeat(true);
      assertTrue("a scheduling pass decided for h2", pass.awaitHeld());
      // The node leaves while the pass holds its decision (the hook runs before the commit
      // takes the scheduler's lock, so the removal goes through).
      scheduler.handle(new NodeRemovedSchedulerEvent(
          rm.getRMContext().getRMNodes().get(nm2.getNodeId())));
    } finally {
      pass.release();
    }
    scheduler.awaitSchedulingIdle();

    JsonNode after = stats(rm);
    assertEquals(after.toString(), 0, after.get("in_flight").asInt());
    assertEquals(after.toString(), 1, after.get("nodes").asInt());
    assertEquals("the held decision was handed back", 1,
        after.get("rejected").asInt() - rejectedBefore);
    assertEquals("and not left to expire", 0, after.get("lost_decisions").asInt());
    // The core gave the container back to the asks when the node left, so the RM's digest
    // after the rejection is the core's: no drift, no snapshot of the application's asks.
    assertEquals(after.toString(), driftsBefore, after.get("asks_drifts").asInt());
    assertEquals(0, after.get("core_rebuilds").asInt());
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    assertEquals(nm1.getNodeId(), got.get(0).getNodeId());
  }

  /**
   * The node leaves and comes back under the same id (an idle NodeManager restarting on its
   * port: the RM removes and re-adds it back to back) while a pass holds a decision for it. The
   * core gave the decision's container back when the node left, so the shim must not create it
   * on the node that re-registered: that container would be counted twice (the core's asks
   * still hold it), found only as a drift. It is handed back instead, and the ask is decided
   * afresh.
   */
  @Test(timeout = 300_000)
  public void aDecisionForANodeThatReRegisteredMeanwhileIsHandedBack() throws Exception {
    MockRM rm = startHeartbeatMode();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    MockAM am = LocusRmFixture.launchAndRegisterAM(
        MockRMAppSubmitter.submitWithMemory(GB, rm), rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    int rejectedBefore = stats(rm).get("rejected").asInt();
    int driftsBefore = stats(rm).get("asks_drifts").asInt();
    org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode h2 =
        rm.getRMContext().getRMNodes().get(nm2.getNodeId());

    HeldPass pass = new HeldPass(scheduler);
    try {
      am.allocate("*", GB, 1, new ArrayList<>());
      scheduler.awaitSchedulingIdle();
      nm2.nodeHeartbeat(true);
      assertTrue("a scheduling pass decided for h2", pass.awaitHeld());
      scheduler.handle(new NodeRemovedSchedulerEvent(h2));
      scheduler.handle(
          new org.apache.hadoop.yarn.server.resourcemanager.scheduler.event
              .NodeAddedSchedulerEvent(h2));
    } finally {
      pass.release();
    }
    scheduler.awaitSchedulingIdle();

    JsonNode after = stats(rm);
    assertEquals("nothing was created on the node that came back", 0,
        scheduler.getSchedulerNode(nm2.getNodeId()).getNumContainers());
    assertEquals("the held decision was handed back", 1,
        after.get("rejected").asInt() - rejectedBefore);
    assertEquals(after.toString(), driftsBefore, after.get("asks_drifts").asInt());
    assertEquals(after.toString(), 0, after.get("in_flight").asInt());
    assertEquals(after.toString(), 1, after.get("pending_containers").asInt());
  }

  /** An RM whose nodes heartbeat only when a test says so, Locus scheduling on heartbeats. */
  private MockRM startHeartbeatMode() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 600_000);
    conf.set("locus.scheduling.mode", "heartbeat");
    return cluster.start(conf);
  }
}
