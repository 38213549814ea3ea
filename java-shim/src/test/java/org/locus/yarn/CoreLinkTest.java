package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.junit.After;
import org.junit.Test;
import org.slf4j.LoggerFactory;

/** The rebuild mechanism of {@link CoreLink} without an RM: backoff, ordering, shutdown. */
public class CoreLinkTest {
  private static final NodeId H1 = NodeId.newInstance("h1", 1234);

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final AtomicBoolean openFails = new AtomicBoolean();
  private final AtomicInteger opened = new AtomicInteger();
  /** Stands in for the scheduler's monitor. */
  private final Object schedulerLock = new Object();
  private final List<LocusCore> cores = Collections.synchronizedList(new ArrayList<>());
  private volatile Runnable onOpen = () -> { };
  private final CoreLink link = new CoreLink(now::get, settings -> {
    onOpen.run();
    opened.incrementAndGet();
    if (openFails.get()) {
      throw new LocusConfigException("locus.policy: no such policy (a test)");
    }
    LocusCore c = LocusCore.open(settings);
    cores.add(c);
    return c;
  });

  @After
  public void close() {
    link.close();
    for (LocusCore c : cores) {
      c.close();
    }
  }

  private void open() {
    link.open("{}", schedulerLock, () -> "{}", () -> {
      assertTrue("the replay reads the RM's bookkeeping under the scheduler lock",
          Thread.holdsLock(schedulerLock));
      return new CoreRebuild.Replay(Collections.singletonList(node()),
          Collections.emptyList());
    });
  }

  private static ObjectNode node() {
    return CoreMessages.nodeAdded(H1, "h1", "/default-rack", Resource.newInstance(8192, 8));
  }

  /** Panics the core in service and lets the link find out, as a failing call would. */
  private CompletableFuture<Void> poison() {
    CoreFaults.panic(link.current(), "broken by a test");
    assertTrue(link.send(Collections.singletonList(node()), Collections.emptySet())
        instanceof LocusCorePoisonedException);
    return link.lastRebuild();
  }

  private static void await(CompletableFuture<Void> rebuild, boolean succeeds) throws Exception {
    assertNotNull("a rebuild was started", rebuild);
    try {
      rebuild.get(30, TimeUnit.SECONDS);
      assertTrue("the rebuild succeeded", succeeds);
    } catch (ExecutionException e) {
      assertFalse("the rebuild failed: " + e.getCause(), succeeds);
    }
  }

  @Test
  public void repeatedFailedRebuildsBackOffFromOneSecondDoublingToAMinute() throws Exception {
    open();
    openFails.set(true);
    await(poison(), false);
    long[] waits = {1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000};
    for (long wait : waits) {
      now.addAndGet(wait - 1);
      assertNull("retried before " + wait + " ms", link.rebuildIfNeeded());
      now.addAndGet(1);
      await(link.rebuildIfNeeded(), false);
    }
    assertEquals("the first core, then one open per attempt", 1 + 1 + waits.length,
        opened.get());
    openFails.set(false);
    now.addAndGet(60_000);
    await(link.rebuildIfNeeded(), true);
    assertEquals(1, link.rebuilds());
    assertNull("nothing to rebuild", link.rebuildIfNeeded());
    // A success resets the backoff: after the next failure the wait is 1 s again.
    openFails.set(true);
    await(poison(), false);
    now.addAndGet(999);
    assertNull(link.rebuildIfNeeded());
    now.addAndGet(1);
    assertNotNull(link.rebuildIfNeeded());
  }

  @Test
  public void theOldCoreIsClosedBeforeTheNewOneOpensAndNeitherUnderTheSchedulerLock()
      throws Exception {
    open();
    LocusCore old = link.current();
    AtomicReference<String> seen = new AtomicReference<>();
    // Closing waits for the old core's profile writer; opening reads the store it wrote.
    onOpen = () -> seen.set("old closed: " + old.isClosed() + ", scheduler lock held: "
        + Thread.holdsLock(schedulerLock));
    CompletableFuture<Void> rebuild;
    synchronized (schedulerLock) {
      // The scheduler's thread only starts the rebuild: it never waits for the close.
      rebuild = poison();
      assertFalse(rebuild.isDone());
    }
    await(rebuild, true);
    assertEquals("old closed: true, scheduler lock held: false", seen.get());
    assertNotSame(old, link.current());
    assertEquals(1, link.rebuilds());
    assertEquals(1, CoreMessages.JSON.readTree(link.statsJson()).get("nodes").asInt());
  }

  @Test
  public void aCoreBuiltAfterShutdownIsClosed() throws Exception {
    open();
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch shutDown = new CountDownLatch(1);
    onOpen = () -> {
      opening.countDown();
      try {
        shutDown.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    CompletableFuture<Void> rebuild = poison();
    assertTrue(opening.await(30, TimeUnit.SECONDS));
    link.close();
    shutDown.countDown();
    await(rebuild, true);
    assertEquals("the first core and the one built late", 2, cores.size());
    LocusCore builtLate = cores.get(1);
    assertTrue("the core built after shutdown leaks", builtLate.isClosed());
    assertEquals(0, link.rebuilds());
    assertNull("no rebuild after shutdown", link.rebuildIfNeeded());
  }

  @Test
  public void aCallThatReachesAReplacedCoreIsNeitherARefusalNorAFailureOfTheNewCore()
      throws Exception {
    open();
    assertNull(link.send(Collections.singletonList(node()), Collections.emptySet()));
    // An allocate found the core in service, then the core panicked and was replaced before
    // its call ran: the call lands on a closed core.
    LocusCore old = link.current();
    await(poison(), true);
    LogCapturer logs = LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      assertNull("a failure of a replaced core reported as a refusal", link.callEvents(old,
          Collections.singletonList(CoreMessages.nodeResourceUpdated(H1,
              Resource.newInstance(8192, 8))), Collections.emptySet(), true));
      // A core that panicked but is no longer the one in service.
      LocusCore stray = LocusCore.open("{}");
      cores.add(stray);
      CoreFaults.panic(stray, "a replaced core's panic");
      assertNull(link.callEvents(stray, Collections.singletonList(node()),
          Collections.emptySet(), true));
      assertNull(link.callOffers(old, offerH1(1), new ArrayList<>(), "node " + H1));
    } finally {
      logs.stopCapturing();
    }
    String out = logs.getOutput();
    assertFalse(out, out.contains("failed for"));
    assertFalse(out, out.contains("out of service"));
    assertNull("the new core stays in service", link.rebuildIfNeeded());
    assertEquals(1, link.rebuilds());
    // The new core took the offer: decided (nothing to place), not refused.
    assertNull(link.offers(offerH1(2), new ArrayList<>(), "node " + H1));
    String stats = link.current().stats();
    assertEquals(stats, 1, CoreMessages.JSON.readTree(stats).path("heartbeats").asLong());
  }

  /** H1 offered with 8 GB and 8 cores free at {@code nowMs}, as a heartbeat. */
  private static java.nio.ByteBuffer offerH1(long nowMs) {
    return OffersFrame.encode(Collections.singletonList(H1),
        Collections.singletonList(Resource.newInstance(8192, 8)), nowMs);
  }

  /**
   * A container released while a scheduling pass holds the core reaches the
   * core without waiting for the pass, and every later call sees it.
   */
  @Test
  public void aReleaseDoesNotWaitForAPassHoldingTheCore() throws Exception {
    open();
    ContainerId container = ContainerId.newContainerId(ApplicationAttemptId.newInstance(
        ApplicationId.newInstance(1, 1), 1), 2);
    ApplicationId app = container.getApplicationAttemptId().getApplicationId();
    assertNull(link.send(java.util.Arrays.asList(node(),
        CoreMessages.appAdded(app, "default", "u", "job", "MAPREDUCE",
            Collections.emptySet(), 1, 0),
        CoreMessages.attemptAdded(container.getApplicationAttemptId()),
        CoreMessages.containerAllocated(container, H1, 1, 0, Resource.newInstance(1024, 1),
            org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType.OFF_SWITCH, true)),
        Collections.emptySet()));
    assertEquals(1, running());
    AtomicReference<Object> answer = new AtomicReference<>();
    CountDownLatch answered = new CountDownLatch(1);
    AtomicBoolean answeredWhileHeld = new AtomicBoolean();
    CoreFaults.hold(link.current(), () -> {
      Thread dispatcher = new Thread(() -> {
        EventsFrame released = new EventsFrame();
        released.containerReleased(container, H1, Resource.newInstance(1024, 1));
        answer.set(link.sendDeferrable(released));
        answered.countDown();
      }, "dispatcher");
      dispatcher.start();
      try {
        // Ordering, not timing: the timeout only turns a stuck call into a failure.
        answeredWhileHeld.set(answered.await(30, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(answered.await(30, TimeUnit.SECONDS));
    assertTrue("container_released waited for the pass holding the core",
        answeredWhileHeld.get());
    assertNull("nothing refused", answer.get());
    assertEquals("applied before the next call saw the core", 0, running());
    assertNull("nothing to resynchronise", link.rebuildIfNeeded());
  }

  /** A queued event the core refused later is resynchronised as a refused event sent now. */
  @Test
  public void aRefusedQueuedEventResynchronisesTheCore() throws Exception {
    open();
    assertNull(link.rebuildIfNeeded());
    LogCapturer logs = LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      link.queuedRefused(link.current(), "queued while the core was busy: 1 of 1 events "
          + "rejected, the others applied: event 0 (container_released) rejected: a test");
    } finally {
      logs.stopCapturing();
    }
    assertTrue(logs.getOutput(), logs.getOutput().contains(
        "Locus core update failed for the cluster: queued while the core was busy"));
    await(link.rebuildIfNeeded(), true);
    assertEquals(1, link.rebuilds());
  }

  private int running() throws Exception {
    return CoreMessages.JSON.readTree(link.statsJson()).get("running_containers").asInt();
  }
}
