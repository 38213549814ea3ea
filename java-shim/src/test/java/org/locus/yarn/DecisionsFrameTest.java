package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.junit.Test;

/**
 * The shim reads the core's decisions frame (rust-core/src/decisions_frame.rs) as the core
 * wrote it, and refuses a frame that does not follow the layout with an exception naming the
 * byte, never another exception and never a decision on the wrong node.
 */
public class DecisionsFrameTest {
  private static final String SETUP = "[{\"type\":\"node_added\",\"node\":\"h1:8041\","
      + "\"host\":\"h1\",\"rack\":\"/r1\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"node_added\",\"node\":\"h2:8041\",\"host\":\"h2\",\"rack\":\"/r1\","
      + "\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"app_added\",\"app\":\"application_1_0001\",\"queue\":\"default\","
      + "\"user\":\"u\"},{\"type\":\"attempt_added\",\"app\":\"application_1_0001\","
      + "\"attempt\":\"a1\"},{\"type\":\"asks_updated\",\"app\":\"application_1_0001\","
      + "\"asks\":[{\"priority\":20,\"allocation_request_id\":-3,\"resource_name\":\"*\","
      + "\"capability\":{\"memory_mb\":2048,\"vcores\":2},\"count\":5,"
      + "\"relax_locality\":true}]}]";

  /** The core's answer to offering h2, an unknown node, then h1: decisions and a refusal. */
  private static byte[] realAnswer(List<NodeId> offered) throws Exception {
    return realAnswer(offered, "{}");
  }

  private static byte[] realAnswer(List<NodeId> offered, String properties) throws Exception {
    try (LocusCore core = LocusCore.open(properties)) {
      core.events(SETUP);
      List<NodeId> ids = Arrays.asList(NodeId.fromString("h2:8041"),
          NodeId.fromString("ghost:1"), NodeId.fromString("h1:8041"));
      ByteBuffer frame = OffersFrame.encode(ids,
          Collections.nCopies(3, Resource.newInstance(8192, 8)),
          Collections.nCopies(3, false), 1_000, offered);
      byte[] answer = core.offers(frame);
      assertNotNull(answer);
      return answer;
    }
  }

  @Test
  public void decisionsCarryTheCoresFieldsAndTheOfferedNodeObjects() throws Exception {
    List<NodeId> offered = new ArrayList<>();
    DecisionsFrame.Answer got = DecisionsFrame.decode(realAnswer(offered), offered);
    int placed = 0;
    for (DecisionsFrame.Decision d : got.decisions) {
      placed += d.count;
      // The offered object itself: no id parsed, no lookup by name.
      assertTrue(d.toString(), d.node == offered.get(0) || d.node == offered.get(2));
      assertEquals("application_1_0001", d.app);
      assertEquals(20, d.priority);
      assertEquals(-3L, d.allocationRequestId);
      assertEquals(NodeType.OFF_SWITCH, d.locality);
      assertEquals("*", d.resourceName);
      assertEquals(2048L, d.memoryMb);
      assertEquals(2, d.vcores);
    }
    assertEquals("4 of 2 GB fit each 8 GB node; 5 were asked", 5, placed);
    assertEquals(1, got.refused.size());
    assertSame(offered.get(1), got.refused.get(0).node);
  }

  @Test
  public void aDecisionCarriesTheQueueLimitsTheCoreDecidedUnder() throws Exception {
    List<NodeId> offered = new ArrayList<>();
    for (DecisionsFrame.Decision d : DecisionsFrame.decode(realAnswer(offered), offered)
        .decisions) {
      assertEquals("no queue limits outside capacity", -1L, d.queueMaxMb);
      assertEquals(-1L, d.userLimitMb);
      assertEquals(0, d.ancestorMaxMb.length);
    }
    offered.clear();
    String capacity = "{\"locus.policy\":\"capacity\","
        + "\"locus.capacity.queues\":\"default:50:75,other:50\"}";
    List<DecisionsFrame.Decision> got =
        DecisionsFrame.decode(realAnswer(offered, capacity), offered).decisions;
    assertTrue(got.size() > 0);
    for (DecisionsFrame.Decision d : got) {
      assertEquals("75 % of the two 8 GB nodes", 12288L, d.queueMaxMb);
      assertEquals(0, d.ancestorMaxMb.length);
    }
  }

  @Test
  public void everyTruncationIsRefusedNamingTheFrame() throws Exception {
    List<NodeId> offered = new ArrayList<>();
    byte[] answer = realAnswer(offered);
    for (int cut = 0; cut < answer.length; cut++) {
      byte[] part = Arrays.copyOf(answer, cut);
      LocusException e = assertThrows("cut at " + cut, LocusException.class,
          () -> DecisionsFrame.decode(part, offered));
      assertTrue(e.getMessage(), e.getMessage().startsWith("malformed decisions frame at byte"));
    }
    byte[] longer = Arrays.copyOf(answer, answer.length + 1);
    LocusException e = assertThrows(LocusException.class,
        () -> DecisionsFrame.decode(longer, offered));
    assertTrue(e.getMessage(), e.getMessage().contains("1 bytes after the last entry"));
  }

  @Test
  public void aNodeIndexOutsideTheOfferOrABadLocalityIsRefused() throws Exception {
    List<NodeId> offered = new ArrayList<>();
    byte[] answer = realAnswer(offered);
    ByteBuffer b = ByteBuffer.wrap(answer).order(ByteOrder.LITTLE_ENDIAN);
    byte[] outside = answer.clone();
    ByteBuffer.wrap(outside).order(ByteOrder.LITTLE_ENDIAN)
        .putInt(DecisionsFrame.HEADER_BYTES, 3);
    LocusException e = assertThrows(LocusException.class,
        () -> DecisionsFrame.decode(outside, offered));
    assertTrue(e.getMessage(), e.getMessage().contains("node index 3 outside the 3 offered"));
    // Answered against a shorter offer, the same frame names a node it does not have.
    assertThrows(LocusException.class,
        () -> DecisionsFrame.decode(answer, offered.subList(0, 1)));

    byte[] locality = answer.clone();
    locality[DecisionsFrame.HEADER_BYTES + 4] = 7;
    e = assertThrows(LocusException.class, () -> DecisionsFrame.decode(locality, offered));
    assertTrue(e.getMessage(), e.getMessage().contains("locality 7"));

    byte[] huge = answer.clone();
    ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(4, Integer.MAX_VALUE);
    e = assertThrows(LocusException.class, () -> DecisionsFrame.decode(huge, offered));
    assertTrue(e.getMessage(), e.getMessage().contains("decisions announced"));
    assertEquals(DecisionsFrame.MAGIC, b.getInt(0));
  }
}
