package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.junit.Test;

/**
 * The shim writes the events frame rust-core/src/events_frame.rs reads: what the RM did with a
 * decision and with its containers reaches the core as the JSON events did.
 */
public class EventsFrameTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1, 1);
  private static final NodeId H1 = NodeId.fromString("h1:8041");
  private static final String SETUP = "[{\"type\":\"node_added\",\"node\":\"h1:8041\","
      + "\"host\":\"h1\",\"rack\":\"/r1\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"app_added\",\"app\":\"application_1_0001\",\"queue\":\"default\","
      + "\"user\":\"u\"},{\"type\":\"attempt_added\",\"app\":\"application_1_0001\","
      + "\"attempt\":\"appattempt_1_0001_000001\"},{\"type\":\"asks_updated\","
      + "\"app\":\"application_1_0001\",\"asks\":[{\"priority\":20,\"resource_name\":\"*\","
      + "\"capability\":{\"memory_mb\":1024,\"vcores\":1},\"count\":3,"
      + "\"relax_locality\":true}]}]";

  private static JsonNode stats(LocusCore core) throws Exception {
    return CoreMessages.JSON.readTree(core.stats());
  }

  private static ContainerId container(int id) {
    return ContainerId.newContainerId(ApplicationAttemptId.newInstance(APP, 1), id);
  }

  /** The core's decisions for one heartbeat of h1, with room for all three asked containers. */
  private static List<DecisionsFrame.Decision> decide(LocusCore core, long nowMs)
      throws Exception {
    List<NodeId> offered = new ArrayList<>();
    ByteBuffer frame = OffersFrame.encode(Collections.singletonList(H1),
        Collections.singletonList(Resource.newInstance(8192, 8)),
        Collections.singletonList(false), nowMs, offered);
    byte[] answer = core.offers(frame);
    return answer == null ? Collections.emptyList()
        : DecisionsFrame.decode(answer, offered).decisions;
  }

  private static int count(List<DecisionsFrame.Decision> decisions) {
    int n = 0;
    for (DecisionsFrame.Decision d : decisions) {
      n += d.count;
    }
    return n;
  }

  @Test
  public void executedRejectedAndReleasedContainersReachTheCore() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      List<DecisionsFrame.Decision> decided = decide(core, 1_000);
      assertEquals(3, count(decided));
      assertEquals(decided.size(), stats(core).get("in_flight").asInt());

      // Two of the three executed, the third handed back.
      EventsFrame done = new EventsFrame();
      int budget = 2;
      int rejections = 0;
      for (DecisionsFrame.Decision d : decided) {
        int executed = Math.min(budget, d.count);
        for (int i = 0; i < executed; i++) {
          done.containerAllocated(container(4 - budget--), H1, 20, 0L,
              Resource.newInstance(1024, 1), NodeType.OFF_SWITCH, false);
        }
        if (executed < d.count) {
          done.decisionRejected(d, executed, "node h1:8041 has <memory:0, vCores:0> unallocated");
          rejections++;
        }
      }
      done.asksDigest(APP, AsksDigest.term(20, 0L, 1));
      assertEquals(2 + rejections + 1, done.size());
      assertTrue(done.recordsBookkeeping());
      assertEquals("application application_1_0001", done.subject());
      String shown = done.toString();
      assertTrue(shown, shown.startsWith((3 + rejections) + " events: container_allocated "
          + "application_1_0001 container_1_0001_01_000002 h1:8041; container_allocated "
          + "application_1_0001 container_1_0001_01_000003 h1:8041; decision_rejected "
          + "application_1_0001 h1:8041 *"));
      assertTrue(shown, shown.endsWith("; asks_digest application_1_0001"));
      assertNull("the digest of one container outstanding at priority 20 is the core's",
          core.eventsFrame(done.direct()));
      JsonNode s = stats(core);
      assertEquals(s.toString(), 2, s.get("running_containers").asInt());
      assertEquals(s.toString(), 0, s.get("in_flight").asInt());
      assertEquals(s.toString(), 1, s.get("pending_containers").asInt());
      assertEquals(s.toString(), rejections, s.get("rejected").asInt());

      EventsFrame released = new EventsFrame();
      released.containerReleased(container(2), H1, Resource.newInstance(1024, 1));
      assertNull(core.deferrableEventsFrame(released.direct()));
      assertEquals(1, stats(core).get("running_containers").asInt());
    }
  }

  @Test
  public void aDriftIsNamedAndARecordTooLongForItsKindRidesAsJsonInOrder() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      EventsFrame check = new EventsFrame();
      check.asksDigest(APP, 42L);
      assertEquals("[\"application_1_0001\"]", core.eventsFrame(check.direct()));
      assertTrue("asks are a request, not the RM's bookkeeping", !check.recordsBookkeeping());

      // A container (binary), then its release naming a node id over a u16 text (JSON): the
      // core releases by container id, so only the order written leaves it released.
      char[] longHost = new char[70_000];
      Arrays.fill(longHost, 'h');
      EventsFrame both = new EventsFrame();
      both.containerAllocated(container(5), H1, 20, 0L, Resource.newInstance(1024, 1),
          NodeType.OFF_SWITCH, true);
      both.containerReleased(container(5), NodeId.newInstance(new String(longHost), 8041),
          Resource.newInstance(1024, 1));
      assertEquals(2, both.size());
      assertTrue(both.toString(), both.toString().contains("\"type\":\"container_released\""));
      assertTrue(both.recordsBookkeeping());
      assertNull(core.eventsFrame(both.direct()));
      assertEquals(0, stats(core).get("running_containers").asInt());
    }
  }

  @Test
  public void aMalformedFrameIsRefusedWholeNamingTheByte() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      EventsFrame one = new EventsFrame();
      one.containerAllocated(container(2), H1, 20, 0L, Resource.newInstance(1024, 1),
          NodeType.OFF_SWITCH, true);
      ByteBuffer cut = one.direct();
      cut.limit(cut.limit() - 1);
      LocusException e = assertThrows(LocusException.class, () -> core.eventsFrame(cut));
      assertTrue(e.getMessage(), e.getMessage().startsWith("malformed events frame at byte"));
      assertEquals("nothing of it applied", 0, stats(core).get("running_containers").asInt());
      // Only kinds no caller waits on may be queued, as in JSON.
      EventsFrame digest = new EventsFrame();
      digest.asksDigest(APP, 1L);
      e = assertThrows(LocusException.class, () -> core.deferrableEventsFrame(digest.direct()));
      assertTrue(e.getMessage(), e.getMessage().contains("(asks_digest) cannot be queued"));
    }
  }

  @Test
  public void aLongReasonIsCutAndTheFrameGrowsForManyRecords() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      List<DecisionsFrame.Decision> decided = decide(core, 1_000);
      // 30,000 three-byte characters: 90,000 bytes, more than a text can hold uncut.
      char[] wide = new char[30_000];
      Arrays.fill(wide, '\u20ac');
      EventsFrame many = new EventsFrame();
      for (DecisionsFrame.Decision d : decided) {
        many.decisionRejected(d, 0, new String(wide));
      }
      for (int i = 0; i < 500; i++) {
        many.asksDigest(APP, AsksDigest.term(20, 0L, 3));
      }
      assertNull(core.eventsFrame(many.direct()));
      assertEquals("the rejection handed all three back", 0,
          stats(core).get("in_flight").asInt());
    }
  }
}
