package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.junit.Test;

/**
 * The shim writes the offers frame rust-core/src/offers.rs reads, the core decides it, and the
 * shim reads the decisions frame of rust-core/src/decisions_frame.rs back.
 */
public class OffersFrameTest {
  private static final String SETUP = "[{\"type\":\"node_added\",\"node\":\"h1:8041\","
      + "\"host\":\"h1\",\"rack\":\"/r1\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"node_added\",\"node\":\"h2:8041\",\"host\":\"h2\",\"rack\":\"/r1\","
      + "\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"app_added\",\"app\":\"application_1_0001\",\"queue\":\"default\","
      + "\"user\":\"u\"},{\"type\":\"attempt_added\",\"app\":\"application_1_0001\","
      + "\"attempt\":\"a1\"},{\"type\":\"asks_updated\",\"app\":\"application_1_0001\","
      + "\"asks\":[{\"priority\":20,\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1024,"
      + "\"vcores\":1},\"count\":3,\"relax_locality\":true}]}]";

  /** The core's answer to {@code frame}, which offered {@code offered}, read as the shim reads it. */
  private static DecisionsFrame.Answer answer(LocusCore core, ByteBuffer frame,
      List<NodeId> offered) throws LocusException {
    byte[] got = core.offers(frame);
    return got == null ? null : DecisionsFrame.decode(got, offered);
  }

  private static int placed(DecisionsFrame.Answer answer) {
    int placed = 0;
    for (DecisionsFrame.Decision d : answer.decisions) {
      placed += d.count;
    }
    return placed;
  }

  private static ByteBuffer frame(long nowMs, List<NodeId> offered, String... nodes) {
    NodeId[] ids = new NodeId[nodes.length];
    Resource[] free = new Resource[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      ids[i] = NodeId.fromString(nodes[i]);
      free[i] = Resource.newInstance(8192, 8);
    }
    return OffersFrame.encode(Arrays.asList(ids), Arrays.asList(free),
        Collections.nCopies(ids.length, false), nowMs, offered);
  }

  @Test
  public void theCoreDecidesEveryNodeOfABatchAndNamesTheOnesItRefuses() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      List<NodeId> offered = new ArrayList<>();
      DecisionsFrame.Answer got =
          answer(core, frame(1_000, offered, "h1:8041", "ghost:1", "h2:8041"), offered);
      assertEquals("the three asked containers, over the two known nodes", 3, placed(got));
      for (DecisionsFrame.Decision d : got.decisions) {
        assertTrue(d.toString(), d.node == offered.get(0) || d.node == offered.get(2));
        assertEquals(d.toString(), "*", d.resourceName);
        assertEquals("application_1_0001", d.app);
      }
      assertEquals(1, got.refused.size());
      assertEquals("ghost:1", got.refused.get(0).node.toString());
      assertTrue(got.refused.get(0).reason, got.refused.get(0).reason.contains("ghost:1"));
      assertEquals("the two known nodes were offered", 2,
          CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
      // Nothing left to decide: no answer at all, not an empty one.
      assertNull(core.offers(frame(2_000, new ArrayList<>(), "h1:8041", "h2:8041")));
    }
  }

  @Test
  public void aNodeWhoseIdDoesNotFitIsLeftOutAndTheOthersAreOffered() throws Exception {
    StringBuilder host = new StringBuilder();
    for (int i = 0; i <= OffersFrame.MAX_ID_BYTES; i++) {
      host.append('h');
    }
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      List<NodeId> offered = new ArrayList<>();
      DecisionsFrame.Answer got =
          answer(core, frame(1_000, offered, "h1:8041", host + ":1", "h2:8041"), offered);
      assertEquals("the frame holds the two that fit, in order",
          Arrays.asList("h1:8041", "h2:8041"), Arrays.asList(offered.get(0).toString(),
              offered.get(1).toString()));
      assertEquals("the three asked containers, over the two nodes that fit", 3, placed(got));
      assertEquals(0, got.refused.size());
      assertEquals(2, CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
    }
  }

  @Test
  public void aBrokenFrameIsAnExceptionNamingTheByte() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      ByteBuffer cut = frame(1_000, new ArrayList<>(), "h1:8041");
      cut.limit(cut.limit() - 1);
      LocusException e = assertThrows(LocusException.class, () -> core.offers(cut));
      assertTrue(e.getMessage(), e.getMessage().startsWith("malformed offers frame at byte"));
      assertEquals("nothing of it reached the core", 0,
          CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
      assertThrows(LocusException.class, () -> LocusNative.decide(0, cut, cut.limit()));
    }
  }

  /** A map whose split is on h2 (host, rack and * rows), under the default fsp + delay. */
  private static final String LOCATED = "[{\"type\":\"asks_updated\",\"app\":"
      + "\"application_1_0001\",\"asks\":["
      + "{\"priority\":20,\"resource_name\":\"h2\",\"capability\":{\"memory_mb\":1024,"
      + "\"vcores\":1},\"count\":1,\"relax_locality\":true},"
      + "{\"priority\":20,\"resource_name\":\"/r1\",\"capability\":{\"memory_mb\":1024,"
      + "\"vcores\":1},\"count\":1,\"relax_locality\":true},"
      + "{\"priority\":20,\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1024,"
      + "\"vcores\":1},\"count\":1,\"relax_locality\":true}]}]";

  private static ByteBuffer offer(long nowMs, String node, boolean sweep) {
    return offer(nowMs, node, sweep, new ArrayList<>());
  }

  private static ByteBuffer offer(long nowMs, String node, boolean sweep, List<NodeId> offered) {
    return OffersFrame.encode(Arrays.asList(NodeId.fromString(node)),
        Arrays.asList(Resource.newInstance(8192, 8)), Arrays.asList(sweep), nowMs, offered);
  }

  /**
   * An async sweep's offers of h1 are not the scheduling opportunities delay counts: however
   * many, the h2 map keeps waiting for h2, while two heartbeats of h1 (threshold 1.0 x 2 nodes)
   * end the wait.
   */
  @Test
  public void sweepOffersDoNotRunDownTheLocalityWaitButHeartbeatsDo() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      core.events(LOCATED);
      for (int i = 0; i < 100; i++) {
        assertNull("sweep " + i + " placed the h2 map on h1",
            core.offers(offer(i, "h1:8041", true)));
      }
      assertNull(core.offers(offer(1_000, "h1:8041", false)));
      assertNull(core.offers(offer(2_000, "h1:8041", false)));
      List<NodeId> offered = new ArrayList<>();
      DecisionsFrame.Answer got = answer(core, offer(2_005, "h1:8041", true, offered), offered);
      assertEquals(1, got.decisions.size());
      assertEquals("h1:8041", got.decisions.get(0).nodeName());
      assertEquals(NodeType.RACK_LOCAL, got.decisions.get(0).locality);
    }
  }
}
