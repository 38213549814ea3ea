package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * The bridge carries changes, not states: what crosses into the core when a job whose maps
 * name 5,000 hosts gets a container, or changes a few of its rows, is bounded by the rows that
 * changed, never by the size of its ask table. And when the RM's asks drift from the core's
 * (the RM changed them on a path the shim does not forward), the per-application digest finds
 * it and one snapshot puts the core right.
 */
public class AskDeltaTest {
  private static final int HOSTS = 5_000;
  /** A few hundred bytes per event at most; the 5,000-row snapshot is about 775 KB. */
  private static final long SMALL = 4_096;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** Maps over {@code HOSTS} hosts (h1 among them), one container each, at priority 20. */
  static List<ResourceRequest> mapsOverManyHosts(int hosts, int each) {
    List<ResourceRequest> rows = new ArrayList<>();
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    rows.add(ResourceRequest.newInstance(p, "h1", size, each));
    for (int i = 1; i < hosts; i++) {
      rows.add(ResourceRequest.newInstance(p, "node-" + i + ".example", size, each));
    }
    rows.add(ResourceRequest.newInstance(p, "/default-rack", size, hosts * each));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, hosts * each));
    return rows;
  }

  @Test
  public void aContainerForAJobOverFiveThousandHostsSendsOnlyWhatChanged() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2); // the AM and one map
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);

    am.allocate(mapsOverManyHosts(HOSTS, 1), new ArrayList<>());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle(); // the scheduling thread sends the asks before its pass
    assertEquals(HOSTS, stats(rm).get("pending_containers").asInt());

    // One heartbeat places one map on h1 (node-local); nothing else changed.
    long before = scheduler.currentCore().sentToCore();
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    long crossed = scheduler.currentCore().sentToCore() - before;
    assertTrue("a container for a 5,000-host job sent " + crossed + " characters to the core",
        crossed < SMALL);
    assertEquals(HOSTS - 1, stats(rm).get("pending_containers").asInt());

    // The AM lowers three rows (as MapReduce does after a container): three rows cross.
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    List<ResourceRequest> three = new ArrayList<>();
    three.add(ResourceRequest.newInstance(p, "node-7.example", size, 0));
    three.add(ResourceRequest.newInstance(p, "/default-rack", size, HOSTS - 2));
    three.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, HOSTS - 2));
    before = scheduler.currentCore().sentToCore();
    am.allocate(three, Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    crossed = scheduler.currentCore().sentToCore() - before;
    assertTrue("a 3-row change of a 5,000-row table sent " + crossed + " characters",
        crossed < SMALL);
    assertEquals(HOSTS - 2, stats(rm).get("pending_containers").asInt());

    // An allocate that changes nothing sends nothing.
    before = scheduler.currentCore().sentToCore();
    am.allocate(Collections.emptyList(), Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    assertEquals(0, scheduler.currentCore().sentToCore() - before);
    assertEquals("no drift, no snapshot", 0, stats(rm).get("asks_drifts").asInt());
  }

  /**
   * The maps the shim keeps between sends, to note the rows allocate() changes, are bounded
   * by the keys the AM changed in the last round: an AM that changes a new allocation request
   * id in every call does not make them grow.
   */
  @Test
  public void notedRowsKeptBetweenSendsAreBoundedByTheLastRound() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    for (long id = 1; id <= 40; id++) {
      ResourceRequest r = ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 1);
      r.setAllocationRequestId(id);
      am.allocate(Collections.singletonList(r), Collections.emptyList());
      scheduler.awaitSchedulingIdle();
      assertTrue("after " + id + " keys, the shim keeps maps for " + attempt.notedKeys(),
          attempt.notedKeys() <= 2);
    }
    assertEquals(40, stats(rm).get("pending_containers").asInt());
  }

  /**
   * An AM's one allocate naming thousands of keys at count 0, then only heartbeats: the maps
   * the shim keeps to note rows do not stay one per key for the attempt's life.
   */
  @Test
  public void notedMapsOfKeysSentOnceAreNotKept() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    List<ResourceRequest> rows = new ArrayList<>();
    for (long id = 1; id <= 10_000; id++) {
      ResourceRequest r = ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 0);
      r.setAllocationRequestId(id);
      rows.add(r);
    }
    am.allocate(rows, Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    am.allocate(Collections.emptyList(), Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    assertTrue("after one allocate of 10,000 keys, the shim keeps maps for "
        + attempt.notedKeys(), attempt.notedKeys() <= LocusAppAttempt.MAX_KEPT_KEYS);
  }

  /**
   * A resource name longer than the core takes (a broken or hostile AM): the owner is told,
   * naming the row, as for any asks the core refuses; once the AM withdraws that row, the rest
   * of its asks are scheduled.
   */
  @Test
  public void aResourceNameTooLongIsRefusedToItsOwnerAndCanBeWithdrawn() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    StringBuilder host = new StringBuilder();
    while (host.length() < 70_000) {
      host.append("h");
    }
    List<ResourceRequest> rows = new ArrayList<>();
    rows.add(ResourceRequest.newInstance(p, host.toString(), size, 1));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 1));
    am.allocate(rows, Collections.emptyList());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    am.allocate(Collections.emptyList(), Collections.emptyList());
    String shown = app.getDiagnostics().toString();
    assertTrue(shown, shown.contains("Locus refused"));
    assertTrue("the row is named: " + shown,
        shown.contains("resource_name of 70000 bytes") && shown.contains("priority 20"));

    am.allocate(Collections.singletonList(
        ResourceRequest.newInstance(p, host.toString(), size, 0)), Collections.emptyList());
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals("containers for the asks left", 1, got.size());
    am.allocate(Collections.emptyList(), Collections.emptyList());
    shown = app.getDiagnostics().toString();
    assertTrue(shown, !shown.contains("Locus refused"));
  }

  @Test
  public void driftFoundByTheDigestIsMendedByOneSnapshot() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2); // the AM and one map
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    am.allocate(mapsOverManyHosts(20, 1), new ArrayList<>());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals(20, stats(rm).get("pending_containers").asInt());

    // The RM's asks change behind the shim's back (as when it puts back the ask of a container
    // lost before its AM acquired it): 10 more maps the core was never told about.
    LocusAppAttempt attempt =
        (LocusAppAttempt) scheduler.getApplicationAttempt(am.getApplicationAttemptId());
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    synchronized (attempt) {
      attempt.updateResourceRequests(Collections.singletonList(
          ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 30)));
    }
    assertEquals(20, stats(rm).get("pending_containers").asInt());

    // The next decision for the app carries the RM's digest; the core sees it differs and the
    // shim re-sends the app's asks once.
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    scheduler.awaitSchedulingIdle();
    assertEquals("the core's view after the resync", 29,
        stats(rm).get("pending_containers").asInt());
    assertEquals(1, stats(rm).get("asks_drifts").asInt());
  }

  /**
   * An AM that changes its asks while a scheduling pass decides for it is not drift: its rows
   * reach the core at the next pass, and the digest the executed decision carries must not make
   * the shim send the whole table in the meantime.
   */
  @Test
  public void anAskChangeDuringAPassIsNotTakenForDrift() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    am.allocate(Collections.singletonList(
        ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 1)), new ArrayList<>());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();

    HeldPass pass = new HeldPass(scheduler);
    nm1.nodeHeartbeat(true);
    assertTrue("a pass decided for the app", pass.awaitHeld());
    // Decided, not yet executed: the AM now wants five more at the same key.
    ExecutorService amThread = Executors.newSingleThreadExecutor();
    try {
      amThread.submit(() -> am.allocate(Collections.singletonList(
          ResourceRequest.newInstance(p, ResourceRequest.ANY, size, 6)), new ArrayList<>()))
          .get(60, TimeUnit.SECONDS);
    } finally {
      pass.release();
      amThread.shutdownNow();
    }
    scheduler.setPassHook(null);
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals("an ask change during a pass counted as drift", 0,
        stats(rm).get("asks_drifts").asInt());
    assertEquals(5, stats(rm).get("pending_containers").asInt());
  }
}
