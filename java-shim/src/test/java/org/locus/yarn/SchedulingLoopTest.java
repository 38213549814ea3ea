package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.ROUNDS;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.apache.hadoop.test.MetricsAsserts.getIntGauge;
import static org.apache.hadoop.test.MetricsAsserts.getLongGauge;
import static org.apache.hadoop.test.MetricsAsserts.getMetrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.junit.Rule;
import org.junit.Test;

/**
 * When and on which thread Locus decides: on a scheduling thread of its own, never on the RM's
 * dispatcher, with allocate() recording asks for it instead of waiting on it.
 */
public class SchedulingLoopTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** MockNMs heartbeat only when a test says so: they must not look dead in between. */
  private static YarnConfiguration conf(String mode) {
    YarnConfiguration conf = locusConf();
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 600_000);
    if (mode != null) {
      conf.set("locus.scheduling.mode", mode);
    } else {
      conf.unset("locus.scheduling.mode");
    }
    return conf;
  }

  private static List<Container> pollWithoutNodeHeartbeats(MockAM am, int n, int rounds)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < rounds && got.size() < n; i++) {
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      if (got.size() < n) {
        Thread.sleep(50);
      }
    }
    return got;
  }

  /**
   * MockRM.launchAM waits for the attempt to be SCHEDULED, then heartbeats: in async mode the
   * AM container is placed before that heartbeat, so the attempt is already ALLOCATED.
   */
  private static MockAM launchWithoutHeartbeats(RMApp app, MockRM rm) throws Exception {
    rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    ApplicationAttemptId id = app.getCurrentAppAttempt().getAppAttemptId();
    rm.waitForState(id, RMAppAttemptState.ALLOCATED);
    rm.sendAMLaunched(id);
    rm.waitForState(id, RMAppAttemptState.LAUNCHED);
    MockAM am = new MockAM(rm.getRMContext(), rm.getApplicationMasterService(), id);
    am.registerAppAttempt();
    return am;
  }

  @Test(timeout = 120_000)
  public void asksArePlacedWithoutWaitingForANodeHeartbeat() throws Exception {
    placedWithoutNodeHeartbeats(conf("async"));
  }

  /** auto, the default mode, runs fsp asynchronously where no locality layer waits. */
  @Test(timeout = 120_000)
  public void autoRunsFspWithoutALocalityWaitAsync() throws Exception {
    YarnConfiguration conf = conf(null);
    conf.set("locus.locality", "hadoop");
    placedWithoutNodeHeartbeats(conf);
  }

  /**
   * ... and the default fsp + delay on heartbeats (real jobs finished later under async,
   * docs/results/default-policy.md): a new ask waits for its node's heartbeat.
   */
  @Test(timeout = 120_000)
  public void autoRunsTheDefaultFspAndDelayOnHeartbeats() throws Exception {
    MockRM rm = cluster.start(conf(null));
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    nm1.nodeHeartbeat(true);
    MockAM am = launchWithoutHeartbeats(app, rm);

    am.allocate("h1", GB, 2, new ArrayList<>());
    LocusRmFixture.settle(rm);
    assertEquals("placed without a node heartbeat", 0, pollWithoutNodeHeartbeats(am, 2, 10).size());
    nm1.nodeHeartbeat(true);
    LocusRmFixture.settle(rm);
    List<Container> got = pollWithoutNodeHeartbeats(am, 2, ROUNDS);
    assertEquals("containers placed after h1's heartbeat", 2, got.size());
  }

  private void placedWithoutNodeHeartbeats(YarnConfiguration conf) throws Exception {
    MockRM rm = cluster.start(conf);
    // Submitted before any node exists: MockRM's submit waits for the attempt to be SCHEDULED,
    // which async mode would otherwise skip past by placing the AM at once.
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    nm1.nodeHeartbeat(true);
    MockAM am = launchWithoutHeartbeats(app, rm);

    // No NM heartbeats from here on: in async mode the scheduling thread places the new asks
    // on the idle, live node by itself.
    am.allocate("h1", GB, 2, new ArrayList<>());
    // The passes those asks start, not a fixed time of polls.
    LocusRmFixture.settle(rm);
    List<Container> got = pollWithoutNodeHeartbeats(am, 2, ROUNDS);
    assertEquals("containers placed without a node heartbeat", 2, got.size());
    for (Container c : got) {
      assertEquals(nm1.getNodeId(), c.getNodeId());
    }
  }

  /**
   * Under async, the sweeps offer h1 and h3 while the map waits for h2 (full): they are not
   * scheduling opportunities, so however many there are the map keeps waiting (before the offers
   * frame marked them, the first sweep placed it on h3). A heartbeat of h1 is one: with the
   * node threshold at 0.3 x 3 nodes, one missed heartbeat ends the wait.
   */
  @Test(timeout = 120_000)
  public void inAsyncModeSweepsDoNotEndALocalityWaitButAHeartbeatDoes() throws Exception {
    YarnConfiguration conf = conf("async");
    conf.set("locus.delay.node-locality-threshold", "0.3");
    MockRM rm = cluster.start(conf);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    // h2 has room for the AM only.
    MockNM nm2 = rm.registerNode("h2:1234", GB, 1);
    nm2.nodeHeartbeat(true);
    MockAM am = launchWithoutHeartbeats(app, rm);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm3 = rm.registerNode("h3:1234", 8 * GB, 8);
    nm1.nodeHeartbeat(true);
    nm3.nodeHeartbeat(true);
    // nodeHeartbeat returns before the RM's dispatcher hands NODE_UPDATE to the scheduler: a
    // heartbeat still in flight would reach the loop after the ask and be a (real) missed
    // opportunity, which this test is not about.
    rm.drainEvents();
    scheduler(rm).awaitSchedulingIdle();

    am.allocate("h2", GB, 1, new ArrayList<>());
    scheduler(rm).awaitSchedulingIdle();
    assertEquals("placed away from h2 by sweeps, before any node heartbeated", 0,
        pollWithoutNodeHeartbeats(am, 1, 5).size());

    nm1.nodeHeartbeat(true);
    LocusRmFixture.settle(rm);
    List<Container> got = pollWithoutNodeHeartbeats(am, 1, ROUNDS);
    assertEquals(1, got.size());
    assertTrue("on h1 or h3: " + got.get(0).getNodeId(),
        !got.get(0).getNodeId().equals(nm2.getNodeId()));
  }

  @Test(timeout = 120_000)
  public void heartbeatModeDecidesOnlyWhenTheNodeHeartbeats() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    am.allocate("h1", GB, 2, new ArrayList<>());
    scheduler(rm).awaitSchedulingIdle();
    assertEquals("placed with no node heartbeat in heartbeat mode", 0,
        pollWithoutNodeHeartbeats(am, 1, 5).size());
    assertEquals(2, heartbeatUntil(rm, nm1, am, 2).size());
  }

  /**
   * A scheduling pass held after the core decided (a test hook): the AM's next allocate(),
   * with a new ask and a release, still returns; the held decisions are committed afterwards.
   */
  @Test(timeout = 300_000)
  public void allocateReturnsWhileASchedulingPassIsHeld() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    am.allocate("h2", GB, 1, new ArrayList<>());
    List<Container> first = heartbeatUntil(rm, nm2, am, 1);
    assertEquals(1, first.size());

    HeldPass pass = new HeldPass(scheduler);
    am.allocate("h2", GB, 2, new ArrayList<>());
    nm2.nodeHeartbeat(true);
    assertTrue("a scheduling pass decided for the new asks", pass.awaitHeld());

    ResourceRequest more = ResourceRequest.newInstance(Priority.newInstance(5),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), 1);
    List<ContainerId> releases = Collections.singletonList(first.get(0).getId());
    ExecutorService amThread = Executors.newSingleThreadExecutor();
    try {
      Future<AllocateResponse> call = amThread.submit(
          () -> am.allocate(Collections.singletonList(more), releases));
      try {
        // A hang guard, not a speed requirement: the call must return while the pass is held.
        call.get(60, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("allocate() did not return while a scheduling pass was held");
      }
    } finally {
      pass.release();
      amThread.shutdownNow();
    }
    // The held decisions (two on h2) and the new ask reach the AM afterwards.
    List<Container> later = heartbeatUntil(rm, nm2, am, 3);
    assertEquals(3, later.size());
  }

  /**
   * The RM's dispatcher hands a heartbeat over and returns, even while the scheduling thread
   * (here: a test) holds the scheduler's lock to commit decisions. Before, NODE_UPDATE did the
   * RM's bookkeeping of the heartbeat on the dispatcher under that lock and waited for it; the
   * heartbeat's completed containers are still released, by the scheduling thread.
   */
  /** {@code app}'s AM and one task placed on h1; returns the task. */
  private static ContainerId taskOnH1(MockRM rm, MockNM nm1, RMApp app) throws Exception {
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    am.allocate("h1", GB, 1, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    ContainerId task = got.get(0).getId();
    rm.waitForState(nm1, task, RMContainerState.ALLOCATED);
    return task;
  }

  @Test(timeout = 300_000)
  public void aNodeHeartbeatDoesNotWaitForTheSchedulersLock() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    LocusScheduler scheduler = scheduler(rm);
    ContainerId task = taskOnH1(rm, nm1, app);

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch handedOver = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (scheduler) {
        held.countDown();
        try {
          handedOver.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, "holds-the-scheduler-lock");
    holder.start();
    assertTrue(held.await(60, TimeUnit.SECONDS));
    ExecutorService nm = Executors.newSingleThreadExecutor();
    try {
      // The NM reports the task done; the RM's dispatcher delivers the NODE_UPDATE.
      Future<?> call = nm.submit(() -> {
        nm1.nodeHeartbeat(Collections.singletonList(ContainerStatus.newInstance(task,
            ContainerState.COMPLETE, "done", 0)), true);
        rm.drainEvents();
        return null;
      });
      try {
        // A hang guard, not a speed requirement: the dispatcher must not wait for the lock.
        call.get(60, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("NODE_UPDATE waited for the scheduler's lock on the RM's dispatcher");
      }
    } finally {
      handedOver.countDown();
      holder.join();
      nm.shutdownNow();
    }
    scheduler.awaitSchedulingIdle();
    rm.waitForState(nm1, task, RMContainerState.COMPLETED);
    assertEquals("the completed task's memory is back on h1", 7 * GB,
        scheduler.getSchedulerNode(nm1.getNodeId()).getUnallocatedResource().getMemorySize());
  }

  /**
   * A heartbeat queued for locus-scheduler is booked before any scheduler event the RM sent
   * after it: a task its NM reported finished (exit 0) and whose application is then killed
   * stays a finished task, as when the dispatcher booked heartbeats itself, not one killed
   * with its application.
   */
  @Test(timeout = 300_000)
  public void aQueuedHeartbeatIsBookedBeforeTheEventsThatFollowIt() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    LocusScheduler scheduler = scheduler(rm);
    ContainerId task = taskOnH1(rm, nm1, app);
    RMContainer container = scheduler.getRMContainer(task);

    CountDownLatch release = new CountDownLatch(1);
    scheduler.setBookkeepingHook(() -> {
      try {
        release.await(120, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      nm1.nodeHeartbeat(Collections.singletonList(ContainerStatus.newInstance(task,
          ContainerState.COMPLETE, "done", 0)), true);
      rm.drainEvents();
      rm.killApp(app.getApplicationId());
      rm.waitForState(app.getApplicationId(), RMAppState.KILLED);
      rm.drainEvents();
    } finally {
      release.countDown();
      scheduler.setBookkeepingHook(null);
    }
    scheduler.awaitSchedulingIdle();
    assertEquals("the task its NM reported finished", RMContainerState.COMPLETED,
        container.getState());
    assertEquals(0, container.getContainerExitStatus());
  }

  /**
   * A heartbeat the dispatcher books (before another event) wakes a sleeping locus-scheduler.
   * The window: the dispatcher has taken the heartbeat off the bookkeeping queue and not yet
   * marked its node due an offer, so both queues look empty to a thread deciding to sleep.
   * Here the dispatcher's booking (a test thread calling what the router calls before every
   * event) is held in that window until locus-scheduler sleeps; once released, the node must
   * be offered with no further heartbeat or event: the AM container is placed on it.
   */
  @Test(timeout = 300_000)
  public void aBookingOnTheDispatcherWakesTheSleepingSchedulingThread() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    LocusScheduler scheduler = scheduler(rm);
    scheduler.awaitSchedulingIdle();
    ApplicationAttemptId attempt = app.getCurrentAppAttempt().getAppAttemptId();
    assertEquals("heartbeat mode: the AM waits for h1's heartbeat", RMAppAttemptState.SCHEDULED,
        app.getCurrentAppAttempt().getAppAttemptState());

    CountDownLatch loopHeld = new CountDownLatch(1);
    CountDownLatch releaseLoop = new CountDownLatch(1);
    scheduler.setBookkeepingHook(() -> {
      loopHeld.countDown();
      await(releaseLoop);
    });
    CountDownLatch bookingHeld = new CountDownLatch(1);
    CountDownLatch releaseBooking = new CountDownLatch(1);
    scheduler.setBookedHook(() -> {
      if (Thread.currentThread().getName().equals("plays-the-dispatcher")) {
        bookingHeld.countDown();
        await(releaseBooking);
      }
    });
    Thread dispatcher = new Thread(scheduler::bookkeepQueuedHeartbeats, "plays-the-dispatcher");
    try {
      // locus-scheduler wakes for the heartbeat and is held before it books it...
      nm1.nodeHeartbeat(true);
      rm.drainEvents();
      assertTrue(loopHeld.await(60, TimeUnit.SECONDS));
      // ... the "dispatcher" books it and is held in the window ...
      dispatcher.start();
      assertTrue(bookingHeld.await(60, TimeUnit.SECONDS));
      // ... locus-scheduler finds nothing to book or offer and, 100 ms later, sleeps.
      releaseLoop.countDown();
      Thread loop = scheduler.schedulingThread();
      long deadline = System.currentTimeMillis() + 60_000;
      while (!(scheduler.schedulingThreadAsleep() && loop.getState() == Thread.State.WAITING)) {
        assertTrue("locus-scheduler went to sleep", System.currentTimeMillis() < deadline);
        Thread.sleep(5);
      }
    } finally {
      releaseLoop.countDown();
      releaseBooking.countDown();
      dispatcher.join(60_000);
      scheduler.setBookkeepingHook(null);
      scheduler.setBookedHook(null);
    }
    // A hang guard, not a speed requirement: without a wake-up the node is never offered.
    long deadline = System.currentTimeMillis() + 20_000;
    while (scheduler.getSchedulerNode(nm1.getNodeId()).getNumContainers() == 0
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertEquals("h1, booked by the dispatcher, offered without another heartbeat: the AM on it",
        1, scheduler.getSchedulerNode(nm1.getNodeId()).getNumContainers());
    rm.waitForState(attempt, RMAppAttemptState.ALLOCATED);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * An operator sees the heartbeats waiting for their bookkeeping on locus-scheduler: the
   * LocusScheduler metrics source's depth and oldest-age gauges show one heartbeat held there,
   * its age growing, and nothing once it is booked.
   */
  @Test(timeout = 300_000)
  public void theQueuedHeartbeatsShowInTheMetrics() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    MetricsSource source = scheduler.getLocusMetrics();
    scheduler.awaitSchedulingIdle();
    assertEquals(0, getIntGauge("QueuedHeartbeats", getMetrics(source)));
    assertEquals(0, getLongGauge("OldestQueuedHeartbeatAgeMs", getMetrics(source)));

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    scheduler.setBookkeepingHook(() -> {
      held.countDown();
      try {
        release.await(120, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      nm1.nodeHeartbeat(true);
      rm.drainEvents();
      assertTrue("locus-scheduler reached the queued heartbeat", held.await(60, TimeUnit.SECONDS));
      assertEquals(1, getIntGauge("QueuedHeartbeats", getMetrics(source)));
      long first = getLongGauge("OldestQueuedHeartbeatAgeMs", getMetrics(source));
      Thread.sleep(50);
      long later = getLongGauge("OldestQueuedHeartbeatAgeMs", getMetrics(source));
      assertTrue("the oldest heartbeat's age grows while it waits: " + first + " then " + later,
          later >= first + 50);
    } finally {
      release.countDown();
      scheduler.setBookkeepingHook(null);
    }
    scheduler.awaitSchedulingIdle();
    assertEquals(0, getIntGauge("QueuedHeartbeats", getMetrics(source)));
    assertEquals(0, getLongGauge("OldestQueuedHeartbeatAgeMs", getMetrics(source)));
  }

  @Test(timeout = 120_000)
  public void aFailingPassIsLoggedAndTheNextOnePlaces() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    AtomicInteger failed = new AtomicInteger();
    scheduler.setPassHook((node, response) -> {
      if (response != null && !response.decisions.isEmpty()
          && failed.getAndIncrement() == 0) {
        // An Error, not an Exception: only a VirtualMachineError may end the thread.
        throw new AssertionError("injected failure inside a scheduling pass");
      }
    });
    am.allocate("h1", GB, 1, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertTrue("the failure was injected", failed.get() >= 2);
    assertEquals(1, got.size());
  }

  @Test(timeout = 120_000)
  public void schedulingSurvivesACoreRebuild() throws Exception {
    MockRM rm = cluster.start(conf("heartbeat"));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    CoreFaults.panic(scheduler.currentCore(), "core bug during scheduling");
    am.allocate("h1", GB, 2, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 2);
    assertEquals(2, got.size());
    assertEquals(1, scheduler.getCoreRebuilds());
  }
}
