package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.settle;
import static org.locus.yarn.LocusRmFixture.stats;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * An AM's blacklist reaches the core, which decides nothing for a blacklisted node: an AM that
 * blacklists every node used to draw a rejected decision (and a WARN line) from each node again
 * and again, backed off but never ending. Under CapacityScheduler (the oracle, same steps) the
 * app gets nothing while every node is blacklisted and its container on the node it takes off
 * the list.
 */
public class BlacklistTest {
  /** Heartbeats of each node while every node is blacklisted. */
  private static final int BLACKLISTED_ROUNDS = 40;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** What one scheduler did: containers while blacklisted, the node of the one after. */
  private static final class Outcome {
    int whileBlacklisted;
    NodeId placedOn;
    long rejected;
    long decided;
  }

  /** One allocate() of {@code am}: the containers it got. */
  private static List<Container> allocate(MockAM am, List<ResourceRequest> asks,
      List<String> additions, List<String> removals) throws Exception {
    AllocateRequest req = AllocateRequest.newInstance(0, 0f, asks, new ArrayList<>(),
        ResourceBlacklistRequest.newInstance(additions, removals));
    return am.allocate(req).getAllocatedContainers();
  }

  private Outcome run(Class<? extends ResourceScheduler> scheduler) throws Exception {
    YarnConfiguration conf = locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    MockAM am = LocusRmFixture.launchAndRegisterAM(
        MockRMAppSubmitter.submitWithMemory(GB, rm), rm, nm1);
    boolean locus = rm.getResourceScheduler() instanceof LocusScheduler;
    JsonNode before = locus ? stats(rm) : null;

    Outcome out = new Outcome();
    List<ResourceRequest> ask = am.createReq(new String[] {"*"}, GB, 1, 1, 0L);
    out.whileBlacklisted += allocate(am, ask, Arrays.asList("h1", "h2"),
        Collections.emptyList()).size();
    for (int i = 0; i < BLACKLISTED_ROUNDS; i++) {
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      out.whileBlacklisted += allocate(am, new ArrayList<>(), Collections.emptyList(),
          Collections.emptyList()).size();
    }
    if (locus) {
      JsonNode after = stats(rm);
      out.rejected = after.get("rejected").asLong() - before.get("rejected").asLong();
      out.decided = after.get("decided_containers").asLong()
          - before.get("decided_containers").asLong();
    }
    List<Container> got = new ArrayList<>(allocate(am, new ArrayList<>(),
        Collections.emptyList(), Collections.singletonList("h2")));
    for (int i = 0; i < LocusRmFixture.ROUNDS && got.isEmpty(); i++) {
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      got.addAll(allocate(am, new ArrayList<>(), Collections.emptyList(),
          Collections.emptyList()));
    }
    out.placedOn = got.isEmpty() ? null : got.get(0).getNodeId();
    rm.stop();
    return out;
  }

  @Test(timeout = 300_000)
  public void anAppBlacklistingEveryNodeGetsNoDecisionsUntilItTakesOneOff() throws Exception {
    Outcome cs = run(CapacityScheduler.class);
    assertEquals("CapacityScheduler placed nothing while every node was blacklisted", 0,
        cs.whileBlacklisted);
    assertEquals(NodeId.fromString("h2:1234"), cs.placedOn);

    Outcome locus = run(LocusScheduler.class);
    assertEquals("containers while every node was blacklisted", 0, locus.whileBlacklisted);
    assertEquals("decisions rejected for blacklisted nodes in " + BLACKLISTED_ROUNDS
        + " heartbeats of each node", 0, locus.rejected);
    assertEquals("containers decided for blacklisted nodes", 0, locus.decided);
    assertEquals("placed on the node taken off the blacklist", cs.placedOn, locus.placedOn);
  }
}
