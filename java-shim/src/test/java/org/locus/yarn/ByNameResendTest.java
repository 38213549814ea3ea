package org.locus.yarn;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Rule;
import org.junit.Test;

/**
 * A numbered frame the core refuses is followed by the attempt's whole table by name
 * ({@link CoreLink#sendAsks}). When the shim refuses that table itself (a row the core cannot
 * hold, more rows than the limit), the verdict is the application's, exactly as if the core
 * had refused it: returned, recorded and shown to the owner, a snapshot owed. It is never a
 * failure of the core, which would cost every application a full rebuild.
 */
public class ByNameResendTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static CoreLink link(MockRM rm) throws Exception {
    java.lang.reflect.Field f = LocusScheduler.class.getDeclaredField("link");
    f.setAccessible(true);
    return (CoreLink) f.get(scheduler(rm));
  }

  private static List<ResourceRequest> rows(int priority, String host, int n) {
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(priority);
    return Arrays.asList(ResourceRequest.newInstance(p, host, size, n),
        ResourceRequest.newInstance(p, "/default-rack", size, n),
        ResourceRequest.newInstance(p, ResourceRequest.ANY, size, n));
  }

  /**
   * Writes a numbered change setting {@code change} while h2 is a node, then tells the core h2
   * left, so the core refuses the frame's id and the link re-sends the table by name; returns
   * the link's verdict.
   */
  private static LocusException numberedChangeRefused(MockRM rm, MockNM nm2,
      LocusAppAttempt attempt, List<ResourceRequest> change) throws Exception {
    CoreLink link = link(rm);
    synchronized (attempt) {
      attempt.updateResourceRequests(change);
      attempt.noteAsksChanged(change);
      ByteBuffer frame = attempt.takeAsksFrame(link.nameIds(), link.maxAskRows());
      assertTrue(AsksFrame.hasNumberedRow(frame));
      assertNull(link.send(Collections.singletonList(CoreMessages.nodeRemoved(nm2.getNodeId())),
          Collections.emptySet()));
      return link.sendAsks(frame, attempt);
    }
  }

  private static void assertShown(RMApp app, MockAM am, String reason) throws Exception {
    am.allocate(Collections.emptyList(), Collections.emptyList());
    String shown = app.getDiagnostics().toString();
    assertTrue(shown, shown.contains("Locus refused") && shown.contains(reason));
  }

  /**
   * The RM's table holds a blank row the core never took: put there behind the shim's back,
   * after the core was sent the table (no snapshot owed).
   */
  @Test
  public void aRowTheCoreCannotHoldInTheResendIsTheApplicationsRefusal() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    CoreLink link = link(rm);
    synchronized (attempt) {
      attempt.updateResourceRequests(rows(1, "h1", 1));
      attempt.noteAsksChanged(rows(1, "h1", 1));
      assertNull(link.sendAsks(attempt.takeAsksFrame(link.nameIds(), link.maxAskRows()),
          attempt));
      attempt.updateResourceRequests(rows(2, " ", 1));
    }

    LocusException refusal = numberedChangeRefused(rm, nm2, attempt, rows(1, "h2", 3));
    assertNotNull("the by-name resend's verdict is returned", refusal);
    assertTrue(refusal.getMessage(), refusal.getMessage().contains("empty resource_name"));
    assertNull("no core failure, no rebuild", link(rm).rebuildIfNeeded());
    assertShown(app, am, "empty resource_name");
  }

  /** The row the change adds takes the table over the limit. */
  @Test
  public void aTableOverTheLimitInTheResendIsTheApplicationsRefusal() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", "3");
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    CoreLink link = link(rm);
    synchronized (attempt) {
      // Three rows, at the limit: taken. (Sent here, not by the scheduling thread, so no pass
      // places them meanwhile.)
      attempt.updateResourceRequests(rows(1, "h1", 1));
      attempt.noteAsksChanged(rows(1, "h1", 1));
      assertNull(link.sendAsks(attempt.takeAsksFrame(link.nameIds(), link.maxAskRows()),
          attempt));
    }

    LocusException refusal = numberedChangeRefused(rm, nm2, attempt,
        Collections.singletonList(rows(1, "h2", 1).get(0)));
    assertNotNull("the by-name resend's verdict is returned", refusal);
    assertTrue(refusal.getMessage(), refusal.getMessage().contains(
        "4 rows in one message, over locus.app.max-ask-rows = 3"));
    assertNull("no core failure, no rebuild", link(rm).rebuildIfNeeded());
    assertShown(app, am, "over locus.app.max-ask-rows = 3");
  }
}
