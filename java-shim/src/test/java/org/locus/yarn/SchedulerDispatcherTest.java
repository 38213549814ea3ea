package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.Permission;
import java.util.Collections;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.event.EventDispatcher;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.UpdatedContainerInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

/**
 * LocusScheduler behind a real Hadoop {@link EventDispatcher} with exit-on-error left on, as
 * the ResourceManager's SchedulerEventDispatcher runs it: any throwable escaping
 * {@code handle()} makes it call {@code System.exit}. MockRM's DrainDispatcher switches that
 * off, so here a SecurityManager turns the exit into a recorded failure instead of killing the
 * test JVM (and the dispatcher thread dies, so later events are never handled).
 */
@SuppressWarnings("removal") // SecurityManager: still the way to trap System.exit on JDK 17.
public class SchedulerDispatcherTest {
  /** Records System.exit attempts and refuses them; allows everything else. */
  private static final class ExitTrap extends SecurityManager {
    final AtomicInteger exits = new AtomicInteger();

    @Override
    public void checkExit(int status) {
      exits.incrementAndGet();
      throw new SecurityException("System.exit(" + status + ") from the scheduler dispatcher");
    }

    @Override
    public void checkPermission(Permission perm) {
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
    }
  }

  private SecurityManager previous;
  private ExitTrap trap;
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();
  private MockRM rm;
  private EventDispatcher<SchedulerEvent> dispatcher;
  private final Semaphore handled = new Semaphore(0);

  @Before
  public void trapExits() {
    previous = System.getSecurityManager();
    trap = new ExitTrap();
    System.setSecurityManager(trap);
  }

  @After
  public void restore() {
    if (dispatcher != null) {
      dispatcher.stop();
    }
    System.setSecurityManager(previous);
  }

  private LocusScheduler startRm() {
    rm = cluster.start();
    LocusScheduler scheduler = scheduler(rm);
    // Counts what the dispatcher handed to the scheduler (whatever came of it), so a test waits
    // for its events instead of polling the queue.
    dispatcher = new EventDispatcher<>(event -> {
      try {
        scheduler.handle(event);
      } finally {
        handled.release();
      }
    }, "LocusTestSchedulerEventDispatcher");
    dispatcher.init(rm.getConfig());
    dispatcher.start();
    return scheduler;
  }

  /** Feeds {@code event} through the dispatcher and waits until the scheduler handled it. */
  private void dispatch(SchedulerEvent event) throws InterruptedException {
    dispatcher.handle(event);
    assertTrue("the dispatcher handed " + event.getType() + " to the scheduler",
        handled.tryAcquire(30, TimeUnit.SECONDS));
  }

  private static RMNode node(String host) {
    return MockNodes.newNodeInfo(0, Resource.newInstance(8 * GB, 8), 1, host, 1234);
  }

  private static int coreNodes(LocusScheduler scheduler) throws Exception {
    return CoreMessages.JSON.readTree(scheduler.getCoreStatsJson()).get("nodes").asInt();
  }

  @Test
  public void failuresInsideHandleNeitherExitTheRmNorStopTheDispatcher() throws Exception {
    LocusScheduler scheduler = startRm();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    rm.drainEvents();

    // A heartbeat whose container report the RM cannot read: the failure comes from the
    // RM's own bookkeeping inside nodeUpdate, before the core is asked anything.
    RMNode broken = mock(RMNode.class);
    when(broken.getNodeID()).thenReturn(nm1.getNodeId());
    when(broken.pullContainerUpdates())
        .thenThrow(new IllegalStateException("container report of h1 cannot be read"));
    dispatch(new NodeUpdateSchedulerEvent(broken));
    // A release of a container the RM no longer has.
    dispatch(new ReleaseContainerEvent(null));

    // The dispatcher thread still serves: a node registered afterwards is added.
    dispatch(new NodeAddedSchedulerEvent(node("h2")));
    assertEquals("System.exit calls from the scheduler dispatcher", 0, trap.exits.get());
    assertEquals(2, scheduler.getNumClusterNodes());
    JsonNode stats = CoreMessages.JSON.readTree(scheduler.getCoreStatsJson());
    assertEquals(2, stats.get("nodes").asInt());
    // Both failed in the shim before the core was told anything: the core's view is the
    // RM's, and a rebuild would not mend a shim bug (only repeat once a minute if it recurs).
    assertEquals(0, stats.get("core_rebuilds").asInt());
  }

  @Test
  public void aCorePanicUnderTheRealDispatcherIsRebuiltNotFatal() throws Exception {
    LocusScheduler scheduler = startRm();
    dispatch(new NodeAddedSchedulerEvent(node("h1")));
    assertEquals(1, coreNodes(scheduler));
    CoreFaults.panic(scheduler.currentCore(), "core bug under the dispatcher");
    // The next event finds the core poisoned and starts the rebuild; the one after may come
    // before or after the new core is in service, and reaches it either way.
    dispatch(new NodeAddedSchedulerEvent(node("h2")));
    dispatch(new NodeAddedSchedulerEvent(node("h3")));
    scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
    assertEquals("System.exit calls from the scheduler dispatcher", 0, trap.exits.get());
    assertEquals(1, scheduler.getCoreRebuilds());
    assertEquals("every node the RM tracks is in the new core", 3, coreNodes(scheduler));
  }

  private static boolean schedulingThreadAlive() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("locus-scheduler") && t.isAlive()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Decisions are made on Locus's own thread, not the dispatcher's: a failure there (here a
   * LinkageError, as from a broken native library) neither exits the RM nor ends the thread,
   * and the RM's serviceStop ends it.
   */
  @Test
  public void theSchedulingThreadSurvivesFailuresAndStopsWithTheRm() throws Exception {
    LocusScheduler scheduler = startRm();
    Semaphore offered = new Semaphore(0);
    scheduler.setPassHook((node, response) -> {
      offered.release();
      throw new LinkageError("native library broken during a scheduling pass");
    });
    RMNode h1 = node("h1");
    dispatch(new NodeAddedSchedulerEvent(h1));
    dispatch(new NodeUpdateSchedulerEvent(h1));
    assertTrue("the heartbeat reached the scheduling thread",
        offered.tryAcquire(30, TimeUnit.SECONDS));
    dispatch(new NodeUpdateSchedulerEvent(h1));
    assertTrue("the thread offered the node again after the failure",
        offered.tryAcquire(30, TimeUnit.SECONDS));
    assertEquals("System.exit calls", 0, trap.exits.get());
    assertTrue(schedulingThreadAlive());
    rm.stop();
    assertFalse("the scheduling thread outlived the RM", schedulingThreadAlive());
  }

  /**
   * Hadoop's contract for a heartbeat whose node is gone (AbstractYarnScheduler.nodeUpdate
   * skips the node's own updates when the scheduler no longer tracks it, and processes the
   * reported completions, which the removal already made; RMNodeImpl's reconnect and
   * deactivation queue NODE_REMOVED beside heartbeats). Locus runs that bookkeeping on
   * locus-scheduler, in event order (docs/results/2026-11-24-benchmarks.md, "The heartbeat's
   * bookkeeping runs on locus-scheduler"): a completion reported after the removal changes nothing, counts stay
   * equal in the RM, the shim and the core, and the RM keeps going.
   */
  @Test
  public void aHeartbeatAfterItsNodesRemovalCompletesNothingTwice() throws Exception {
    LocusScheduler scheduler = startRm();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    ContainerId am = app.getCurrentAppAttempt().getMasterContainer().getId();
    assertEquals(GB, scheduler.getUsedResource().getMemorySize());

    // The NM's report of the AM container's end, still queued when the node is removed.
    RMNode late = mock(RMNode.class);
    when(late.getNodeID()).thenReturn(nm1.getNodeId());
    when(late.pullContainerUpdates()).thenReturn(Collections.singletonList(
        new UpdatedContainerInfo(Collections.emptyList(), Collections.singletonList(
            ContainerStatus.newInstance(am, ContainerState.COMPLETE, "exited", 0)),
        Collections.emptyList())));
    dispatch(new NodeRemovedSchedulerEvent(rm.getRMContext().getRMNodes().get(nm1.getNodeId())));
    dispatch(new NodeUpdateSchedulerEvent(late));
    rm.drainEvents();
    // locus-scheduler books the late heartbeat: nothing of it may be completed twice.
    scheduler.awaitSchedulingIdle();

    assertEquals("System.exit calls from the scheduler dispatcher", 0, trap.exits.get());
    assertEquals(0, scheduler.getNumClusterNodes());
    JsonNode stats = CoreMessages.JSON.readTree(scheduler.getCoreStatsJson());
    assertEquals(0, stats.get("nodes").asInt());
    // Once, by the removal: a second completion would take the queue's use below zero.
    assertEquals(0, scheduler.getUsedResource().getMemorySize());
    assertEquals(0, scheduler.getRootQueueMetrics().getAllocatedMB());
    assertEquals(0, stats.get("running_containers").asInt());
    assertEquals(0, stats.get("core_rebuilds").asInt());

    dispatch(new NodeAddedSchedulerEvent(node("h2")));
    assertEquals(1, scheduler.getNumClusterNodes());
    assertEquals(1, coreNodes(scheduler));
  }
}
