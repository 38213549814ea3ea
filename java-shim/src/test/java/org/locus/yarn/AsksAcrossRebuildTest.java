package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * An AM's asks reach the core in service whatever rebuild happens in between: a change the
 * scheduling thread could not send because the old core was out of service, and that the
 * replay read too early to contain, is sent to the new core once it is in service, without
 * the AM having to change anything again.
 */
public class AsksAcrossRebuildTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static ResourceRequest any(int priority, int count) {
    return ResourceRequest.newInstance(Priority.newInstance(priority), ResourceRequest.ANY,
        Resource.newInstance(GB, 1), count);
  }

  /**
   * Breaks the core and, once the rebuild has replayed the RM's bookkeeping but before the new
   * core is in service, runs {@code change} (an AM's allocate()) and lets the scheduling thread
   * try to send it. Returns when the new core is in service.
   */
  private static void changeDuringRebuild(MockRM rm, MockAM am, Runnable change)
      throws Exception {
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    AtomicReference<Throwable> failed = new AtomicReference<>();
    AtomicBoolean droppedInWindow = new AtomicBoolean();
    scheduler.setRebuildReplayedHook(() -> {
      try {
        change.run();
        // The scheduling thread tries to send it now, to the old core out of service (no
        // node offers are due, so its pass does not wait for the scheduler's lock held here).
        scheduler.awaitSchedulingIdle();
        droppedInWindow.set(attempt.owesDroppedAsks());
      } catch (Throwable t) {
        failed.set(t);
      }
    });
    LocusCore broken = scheduler.currentCore();
    CoreFaults.panic(broken, "broken while an AM changes its asks");
    // The next scheduler event that reaches the core (a node registering) finds it poisoned
    // and starts the rebuild.
    rm.registerNode("h2:1234", GB, 1);
    rm.drainEvents();
    scheduler.lastCoreRebuild().get(60, TimeUnit.SECONDS);
    scheduler.setRebuildReplayedHook(null);
    assertNull("the AM's call during the rebuild", failed.get());
    assertTrue("the change was dropped between the replay and the swap",
        droppedInWindow.get());
    assertNotSame(broken, scheduler.currentCore());
    assertEquals(1, scheduler.getCoreRebuilds());
  }

  @Test
  public void anAskChangeDuringARebuildReachesTheNewCoreWithoutAnotherChange() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    changeDuringRebuild(rm, am, () -> {
      try {
        am.allocate(Collections.singletonList(any(1, 1)), new ArrayList<>());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    // The AM now only heartbeats (empty allocate calls): it must still get its container.
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals("containers for the ask made during the rebuild", 1, got.size());
    assertEquals(0, stats(rm).get("pending_containers").asInt());
  }

  /**
   * The same for an application whose previous asks the core refused: the change made during
   * the rebuild (which withdraws the refused row) was never seen by any core, so it is sent,
   * and the refusal the owner saw is lifted only once a core accepted it.
   */
  @Test
  public void aRefusedApplicationsChangeDuringARebuildIsNotTakenForAccepted() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    // A negative priority: the RM takes it, the core refuses the asks.
    am.allocate(Collections.singletonList(any(-1, 1)), new ArrayList<>());
    scheduler(rm).awaitSchedulingIdle();
    am.allocate(new ArrayList<>(), new ArrayList<>());
    assertTrue(app.getDiagnostics().toString(),
        app.getDiagnostics().toString().contains("Locus refused"));

    changeDuringRebuild(rm, am, () -> {
      try {
        List<ResourceRequest> rows = new ArrayList<>();
        rows.add(any(-1, 0));
        rows.add(any(1, 1));
        am.allocate(rows, new ArrayList<>());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals("containers for the corrected asks", 1, got.size());
    am.allocate(new ArrayList<>(), new ArrayList<>());
    assertTrue(app.getDiagnostics().toString(),
        !app.getDiagnostics().toString().contains("Locus refused"));
  }
}
