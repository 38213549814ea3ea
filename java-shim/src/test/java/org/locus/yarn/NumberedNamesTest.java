package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Rule;
import org.junit.Test;

/**
 * Host rows cross as the ids the core published for its nodes' hosts ({@link NameIds}): the
 * shim learns a host's id when a node of it is added, forgets it when one is removed, takes a
 * new core's ids after a rebuild, and a numbered frame the core refuses (a node removed after
 * the frame was written, a replaced core's ids) reaches the core by name instead of being shown
 * to the application's owner as a refusal.
 */
public class NumberedNamesTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static CoreLink link(MockRM rm) throws Exception {
    java.lang.reflect.Field f = LocusScheduler.class.getDeclaredField("link");
    f.setAccessible(true);
    return (CoreLink) f.get(scheduler(rm));
  }

  private static List<ResourceRequest> onHost(String host, int n) {
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(1);
    return Arrays.asList(ResourceRequest.newInstance(p, host, size, n),
        ResourceRequest.newInstance(p, "/default-rack", size, n),
        ResourceRequest.newInstance(p, ResourceRequest.ANY, size, n));
  }

  private static LocusAppAttempt attempt(MockRM rm, MockAM am) {
    return (LocusAppAttempt) scheduler(rm).getApplicationAttempt(am.getApplicationAttemptId());
  }

  private static void assertNotRefused(RMApp app) {
    assertFalse(app.getDiagnostics().toString(),
        app.getDiagnostics().toString().contains("Locus refused"));
  }

  @Test
  public void hostsOfNodesAreNumberedAndTheirRowsPlaceNodeLocal() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    NameIds ids = link(rm).nameIds();
    assertNotNull(ids.id("h1"));
    assertNotNull(ids.id("h2"));
    assertNotEquals(ids.id("h1"), ids.id("h2"));
    assertNull("racks go by name", ids.id("/default-rack"));

    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    synchronized (attempt(rm, am)) {
      attempt(rm, am).updateResourceRequests(onHost("h2", 2));
      attempt(rm, am).noteAsksChanged(onHost("h2", 2));
      assertTrue("the frame numbers h2",
          AsksFrame.numbered(attempt(rm, am).takeAsksFrame(link(rm).nameIds())));
    }
    am.allocate(onHost("h2", 2), new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm2, am, 2);
    assertEquals(2, got.size());
    for (Container c : got) {
      assertEquals(nm2.getNodeId(), c.getNodeId());
    }
    assertNotRefused(app);
  }

  @Test
  public void aRemovedNodesHostIsForgottenAndLearnedAgainWhenItReturns() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    Integer h2 = link(rm).nameIds().id("h2");
    assertNotNull(h2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    rm.sendNodeLost(nm2);
    rm.drainEvents();
    assertNull("forgotten with its node", link(rm).nameIds().id("h2"));
    // Rows naming the host still reach the core, by name.
    am.allocate(onHost("h2", 2), new ArrayList<>());
    scheduler(rm).awaitSchedulingIdle();
    assertEquals(2, stats(rm).get("pending_containers").asInt());
    assertNotRefused(app);

    MockNM back = rm.registerNode("h2:1235", 8 * GB, 8);
    assertEquals("the same core gives the host its id back", h2,
        link(rm).nameIds().id("h2"));
    assertEquals(2, heartbeatUntil(rm, back, am, 2).size());
    assertNotRefused(app);
  }

  /**
   * A frame written while h2 was a node, sent after the core removed it: the core refuses the
   * id, and the link sends the asks by name at once, so the owner sees no refusal and the
   * core holds the rows.
   */
  @Test
  public void aFrameNumberedBeforeItsNodeLeftReachesTheCoreByName() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusAppAttempt attempt = attempt(rm, am);
    CoreLink link = link(rm);
    synchronized (attempt) {
      attempt.updateResourceRequests(onHost("h2", 3));
      attempt.noteAsksChanged(onHost("h2", 3));
      ByteBuffer frame = attempt.takeAsksFrame(link.nameIds());
      assertTrue(AsksFrame.numbered(frame));
      // The core hears of the node's removal between the frame and its send.
      assertNull(link.send(java.util.Collections.singletonList(
          CoreMessages.nodeRemoved(nm2.getNodeId())), java.util.Collections.emptySet()));
      assertNull("accepted by name", link.sendAsks(frame, attempt));
    }
    assertEquals(3, stats(rm).get("pending_containers").asInt());
    am.allocate(new ArrayList<>(), new ArrayList<>());
    assertNotRefused(app);
  }

  /**
   * After a rebuild the link holds the new core's ids (another epoch), and a frame numbered
   * from the old core's table reaches the new core by name.
   */
  @Test
  public void aRebuiltCoreIsNumberedAfreshAndOldIdsAreNotReused() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    NameIds old = link(rm).nameIds();
    assertNotNull(old.id("h1"));

    CoreFaults.panic(scheduler.currentCore(), "broken to be rebuilt");
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    rm.drainEvents();
    scheduler.lastCoreRebuild().get(60, TimeUnit.SECONDS);
    NameIds fresh = link(rm).nameIds();
    assertNotEquals("a new numbering", old.epoch(), fresh.epoch());
    assertNotNull("replayed nodes are numbered", fresh.id("h1"));
    assertNotNull(fresh.id("h2"));

    LocusAppAttempt attempt = attempt(rm, am);
    scheduler.awaitSchedulingIdle();
    synchronized (attempt) {
      attempt.updateResourceRequests(onHost("h1", 2));
      attempt.noteAsksChanged(onHost("h1", 2));
      ByteBuffer stale = attempt.takeAsksFrame(old);
      assertNull("the old core's ids are refused, the asks re-sent by name",
          link(rm).sendAsks(stale, attempt));
    }
    assertEquals(2, stats(rm).get("pending_containers").asInt());
    am.allocate(onHost("h2", 1), new ArrayList<>());
    assertEquals(1, heartbeatUntil(rm, nm2, am, 1).size());
    assertNotRefused(app);
  }
}
