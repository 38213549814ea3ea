package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.ROUNDS;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.mockito.Mockito;
import org.slf4j.LoggerFactory;

/**
 * What the shim does when the core cannot be trusted or refuses something: a panicked core is
 * replaced by one rebuilt from the RM's bookkeeping, and a refused application fails with the
 * core's reason instead of waiting in ACCEPTED forever.
 */
public class CoreRecoveryTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();
  @Rule
  public final TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aPanickedCoreIsReplacedByOneRebuiltFromTheRmsBookkeeping() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 4 * GB, 4);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    am.allocate("h1", GB, 2, new ArrayList<>());
    assertEquals(2, heartbeatUntil(rm, nm1, am, 2).size());
    // Two more wanted on h2, not yet handed out when the core breaks.
    am.allocate("h2", GB, 2, new ArrayList<>());

    LocusCore broken = scheduler(rm).currentCore();
    try {
      CoreFaults.panic(broken, "invariant broken by a test");
    } catch (LocusCorePoisonedException expected) {
      // The call that panicked says so; the next scheduler event notices and rebuilds.
    }

    // The AM still gets what it asked for, from a core that knows what already runs.
    List<Container> onH2 = heartbeatUntil(rm, nm2, am, 2);
    assertEquals(2, onH2.size());
    for (Container c : onH2) {
      assertEquals(nm2.getNodeId(), c.getNodeId());
    }
    assertNotSame(broken, scheduler(rm).currentCore());
    assertTrue("the broken core was closed", broken.isClosed());
    JsonNode stats = stats(rm);
    assertEquals(1, stats.get("core_rebuilds").asInt());
    assertEquals(2, stats.get("nodes").asInt());
    assertEquals(1, stats.get("apps").asInt());
    // AM + 2 on h1 replayed as recovered containers, + 2 new on h2.
    assertEquals(5, stats.get("running_containers").asInt());
    assertEquals(3, stats.get("recovered").asInt());
    assertEquals(0, stats.get("pending_containers").asInt());
    // The new core knows h1 holds 3 GB of its 8: a 6 GB container fits no node (5 GB free on
    // h1, 4 GB on h2), so it decides nothing. A core that thought h1 empty would place it there
    // and the shim would have to refuse the decision.
    long decidedBefore = stats.get("decided_containers").asLong();
    am.allocate(ResourceRequest.ANY, 6 * GB, 1, new ArrayList<>());
    assertEquals(0, heartbeatUntil(rm, nm1, am, 1).size());
    JsonNode after = stats(rm);
    assertEquals(decidedBefore, after.get("decided_containers").asLong());
    assertEquals(0, after.get("rejected").asInt());
    assertEquals(1, after.get("pending_containers").asInt());
  }

  /**
   * Node heartbeats (the rebuild starts when an offer finds the core poisoned) until {@code n}
   * rebuilds; each settled, so a rebuild under way is waited for, not given a fixed time.
   */
  private static void heartbeatUntilRebuilt(MockRM rm, MockNM nm, long n) throws Exception {
    for (int i = 0; i < ROUNDS && scheduler(rm).getCoreRebuilds() < n; i++) {
      nm.nodeHeartbeat(true);
      LocusRmFixture.settle(rm);
    }
    assertEquals(n, scheduler(rm).getCoreRebuilds());
  }

  @Test
  public void profilesTheOldCoreLearnedAreInTheRebuiltCore() throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set("locus.profile.store", new File(tmp.getRoot(), "profiles.json").getPath());
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withAppType("MAPREDUCE").withAppName("wordcount").build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    am.allocate(ResourceRequest.ANY, GB, 1, 20, new ArrayList<>(), null);
    List<Container> maps = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, maps.size());
    nm1.nodeHeartbeat(am.getApplicationAttemptId(), maps.get(0).getId().getContainerId(),
        ContainerState.COMPLETE);
    rm.drainEvents();
    scheduler(rm).awaitSchedulingIdle();
    MockRM.finishAMAndVerifyAppState(app, rm, nm1, am);
    rm.drainEvents();
    assertEquals("the finished job's profile", 1, stats(rm).get("profiles").asInt());

    // The old core's writer may not have written it yet when the core breaks: the new core
    // opens only after the old one closed (which waits for its writer), so it reads it back.
    CoreFaults.panic(scheduler(rm).currentCore(), "broken after a job finished");
    heartbeatUntilRebuilt(rm, nm1, 1);
    assertEquals("profiles learned by the old core, read back from the store", 1,
        stats(rm).get("profiles").asInt());
  }

  @Test
  public void aRebuildAfterTheSideFilesBecameUnreadableStillPlacesContainers() throws Exception {
    File mapping = tmp.newFile("mapping.txt");
    java.nio.file.Files.write(mapping.toPath(), "h1 east\n".getBytes("UTF-8"));
    File store = new File(tmp.getRoot(), "profiles.json");
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set("locus.datacenter.mapping.file", mapping.getPath());
    conf.set("locus.profile.store", store.getPath());
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);

    // Both files become unreadable (a directory in the place of each; the RM runs as root in
    // some test setups, so permissions would not do).
    assertTrue(mapping.delete() && mapping.mkdir() && store.mkdir());
    CoreFaults.panic(scheduler(rm).currentCore(), "broken after the files went away");
    heartbeatUntilRebuilt(rm, nm1, 1);
    am.allocate(ResourceRequest.ANY, GB, 2, new ArrayList<>());
    assertEquals("containers placed after the rebuild", 2,
        heartbeatUntil(rm, nm1, am, 2).size());
  }

  @Test
  public void aCoreThatCannotBeRebuiltIsRetriedAfterABackoffNotAtEveryEvent() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    // Settings no core accepts: every rebuild fails when it opens the new core.
    scheduler.getConf().set("locus.policy", "no-such-policy");
    GenericTestUtils.setLogLevel(LoggerFactory.getLogger(LocusScheduler.class),
        org.slf4j.event.Level.DEBUG);
    LogCapturer logs = LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      CoreFaults.panic(scheduler.currentCore(), "broken for good");
      for (int i = 0; i < 5; i++) {
        nm1.nodeHeartbeat(true);
        rm.drainEvents();
      }
      // The scheduling thread's offer finds the core poisoned and starts the rebuild: wait
      // for it, or lastCoreRebuild may still be null.
      scheduler.awaitSchedulingIdle();
      // The first heartbeat found the core poisoned and started a rebuild, on its own thread.
      try {
        scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
        fail("a core with an unknown policy opened");
      } catch (ExecutionException expected) {
        // it failed, and the link backs off
      }
      String out = logs.getOutput();
      // FailureLog writes every failure at DEBUG with its detail (the WARN line is rate-limited).
      int attempts = out.split("Rebuilding the Locus core failed for the cluster: [^\\n]*; detail:",
          -1).length - 1;
      // The first attempt fails; the next waits a second (doubling up to a minute), whatever
      // number of events arrive meanwhile.
      assertTrue("rebuild attempts for 5 heartbeats within a second: " + attempts
          + "\n" + out, attempts >= 1 && attempts <= 2);
      assertEquals(0, scheduler.getCoreRebuilds());
    } finally {
      logs.stopCapturing();
      GenericTestUtils.setLogLevel(LoggerFactory.getLogger(LocusScheduler.class),
          org.slf4j.event.Level.INFO);
    }
  }

  @Test
  public void containersAStoppedAttemptKeepsForItsSuccessorAreInTheRebuiltCore()
      throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withKeepContainers(true).build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    ApplicationAttemptId attempt = am.getApplicationAttemptId();
    am.allocate("h1", GB, 2, new ArrayList<>());
    List<Container> got = heartbeatUntil(rm, nm1, am, 2);
    assertEquals(2, got.size());
    for (long id = 1; id <= 3; id++) {
      nm1.nodeHeartbeat(attempt, id, ContainerState.RUNNING);
    }
    for (Container c : got) {
      rm.waitForState(nm1, c.getId(), RMContainerState.RUNNING);
    }
    // The AM failed under a work-preserving restart: its running containers stay, for the
    // next attempt, and still hold 3 GB of h1.
    scheduler(rm).handle(new AppAttemptRemovedSchedulerEvent(attempt, RMAppAttemptState.FAILED,
        true));
    int kept = scheduler(rm).getApplicationAttempt(attempt).getLiveContainers().size();
    assertEquals(3, kept);

    CoreFaults.panic(scheduler(rm).currentCore(), "broken between attempts");
    heartbeatUntilRebuilt(rm, nm1, 1);
    JsonNode stats = stats(rm);
    assertEquals("the kept containers still use h1", kept,
        stats.get("running_containers").asInt());
    assertEquals(kept, stats.get("recovered").asInt());
  }

  @Test
  public void containersPulledForTheAmReachItWhenShowingARefusalFails() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    ApplicationAttemptId attempt = am.getApplicationAttemptId();
    LocusScheduler scheduler = scheduler(rm);
    scheduler.allocate(attempt, Collections.singletonList(ResourceRequest.newInstance(
        Priority.newInstance(1), ResourceRequest.ANY, Resource.newInstance(GB, 1), 2)),
        null, new ArrayList<>(), null, null, null);
    for (int i = 0; i < ROUNDS
        && scheduler.getApplicationAttempt(attempt).getLiveContainers().size() < 3; i++) {
      nm1.nodeHeartbeat(true);
      rm.drainEvents();
      // locus-scheduler books the heartbeat, then places: without waiting, the rounds can all
      // pass before it does (RMNodeImpl sends no new NODE_UPDATE until the last is booked).
      scheduler.awaitSchedulingIdle();
    }
    assertEquals("AM + 2 placed, not yet pulled", 3,
        scheduler.getApplicationAttempt(attempt).getLiveContainers().size());
    // The next allocate is refused (negative priority), and putting that verdict in the
    // application's diagnostics fails.
    RMApp unreadable = Mockito.spy(app);
    Mockito.doThrow(new IllegalStateException("application record unreadable"))
        .when(unreadable).getRMAppAttempt(attempt);
    rm.getRMContext().getRMApps().put(app.getApplicationId(), unreadable);
    try {
      Allocation allocation = scheduler.allocate(attempt, Collections.singletonList(
          ResourceRequest.newInstance(Priority.newInstance(-1), ResourceRequest.ANY,
              Resource.newInstance(GB, 1), 1)), null, new ArrayList<>(), null, null, null);
      assertEquals("the containers pulled for the AM", 2, allocation.getContainers().size());
    } finally {
      rm.getRMContext().getRMApps().put(app.getApplicationId(), app);
    }
  }

  @Test
  public void anApplicationTheCoreRefusesFailsWithTheCoresReason() throws Exception {
    MockRM rm = cluster.start();
    rm.registerNode("h1:1234", 8 * GB, 8);
    // The core now runs capacity queues the shim's queue tree does not have (as a core limit
    // would): the shim places the app in "default", the core refuses that queue.
    scheduler(rm).currentCore().reconfigure(
        "{\"locus.policy\":\"capacity\",\"locus.capacity.queues\":\"a:50,b:50\"}");

    RMApp refused = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withWaitForAppAcceptedState(false).build());
    rm.waitForState(refused.getApplicationId(), RMAppState.FAILED);
    String diagnostics = refused.getDiagnostics().toString();
    assertTrue(diagnostics, diagnostics.contains("locus.capacity.queues"));
    assertTrue(diagnostics, diagnostics.contains(refused.getApplicationId().toString()));
    assertTrue(scheduler(rm).getSchedulerApplications().isEmpty());
    assertEquals(0, rm.getResourceScheduler().getRootQueueMetrics().getAppsSubmitted());
  }

  @Test
  public void asksTheCoreRefusesAreThatApplicationsAloneAndLoggedOnce() throws Exception {
    MockRM rm = cluster.start();
    // 20 GB: the default AM share (CapacityScheduler's 10 %, 2 GB) starts both 1 GB AMs; on
    // 8 GB it is one AM's worth, in CapacityScheduler as in Locus.
    MockNM nm1 = rm.registerNode("h1:1234", 20 * GB, 8);
    RMApp bad = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM badAm = LocusRmFixture.launchAndRegisterAM(bad, rm, nm1);
    RMApp good = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM goodAm = LocusRmFixture.launchAndRegisterAM(good, rm, nm1);
    LogCapturer logs =
        LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      // The RM takes a negative priority; the core refuses the changed rows, then the whole
      // snapshot every time the AM changes it.
      for (int n = 1; n <= 5; n++) {
        badAm.allocate(Collections.singletonList(ResourceRequest.newInstance(
            Priority.newInstance(-1), ResourceRequest.ANY, Resource.newInstance(GB, 1), n)),
            new ArrayList<>());
      }
      goodAm.allocate("h1", GB, 2, new ArrayList<>());
      assertEquals("the other application is served", 2,
          heartbeatUntil(rm, nm1, goodAm, 2).size());
      // The scheduling thread refused the asks after allocate() returned: the AM's next call
      // shows the verdict.
      scheduler(rm).awaitSchedulingIdle();
      badAm.allocate(new ArrayList<>(), new ArrayList<>());

      String out = logs.getOutput();
      String line = "Locus core update failed for application " + bad.getApplicationId();
      assertEquals(out, out.indexOf(line), out.lastIndexOf(line));
      assertTrue(out, out.contains(line + ": event 0 (asks_changed) rejected"));
      assertTrue(out, out.contains("negative priority"));
      assertFalse("no JSON dump in the RM log: " + out, out.contains("\"resource_name\""));
      assertEquals(RMAppState.RUNNING, bad.getState());
      // The owner sees why in the application's diagnostics; the other app sees nothing.
      String diagnostics = bad.getDiagnostics().toString();
      assertTrue(diagnostics, diagnostics.contains("Locus refused this application's resource"
          + " requests") && diagnostics.contains("negative priority"));
      assertFalse(good.getDiagnostics().toString().contains("Locus refused"));

      // Once the AM withdraws the bad row, the core takes its asks (on the scheduling thread,
      // after allocate() returned) and the AM's next heartbeat clears the refusal.
      badAm.allocate(Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(-1), ResourceRequest.ANY, Resource.newInstance(GB, 1), 0)),
          new ArrayList<>());
      scheduler(rm).awaitSchedulingIdle();
      badAm.allocate(new ArrayList<>(), new ArrayList<>());
      assertFalse(bad.getDiagnostics().toString().contains("Locus refused"));
    } finally {
      logs.stopCapturing();
    }
  }

  /**
   * The RM's bookkeeping goes on whatever the core says: when the core refuses a bookkeeping
   * event (here a node's new resource, for a node the core lost), its view is short of the
   * RM's, and only a resync from the RM's bookkeeping mends it. An application refusal
   * (asks, admission) is a verdict instead, and handled where it is made.
   */
  @Test
  public void aRefusedBookkeepingEventResynchronisesTheCore() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    // The core loses h1 behind the shim's back (as a lost or misapplied event would).
    scheduler.currentCore().events(CoreMessages.array(Collections.singletonList(
        CoreMessages.nodeRemoved(nm1.getNodeId()))));
    assertEquals(0, stats(rm).get("nodes").asInt());
    // The operator gives h1 more room; the RM applies it, the core refuses it (unknown node).
    RMNode h1 = rm.getRMContext().getRMNodes().get(nm1.getNodeId());
    scheduler.handle(new NodeResourceUpdateSchedulerEvent(h1,
        ResourceOption.newInstance(Resource.newInstance(8 * GB, 8), -1)));
    // handle() ends by starting the resync (the core's stats are unreadable until it is done).
    assertNotNull("a resync after the refused update", scheduler.lastCoreRebuild());
    scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
    JsonNode stats = stats(rm);
    assertEquals("h1 in the core after the refused update", 1, stats.get("nodes").asInt());
    assertEquals(1, stats.get("core_rebuilds").asInt());
    // And the core schedules on h1 as the RM has it now: a 4 GB container beside the AM.
    am.allocate(ResourceRequest.ANY, 4 * GB, 1, new ArrayList<>());
    assertEquals(1, heartbeatUntil(rm, nm1, am, 1).size());
  }

  @Test
  public void aRefreshDuringARebuildIsRefusedAsSuchAndWorksAfterIt() throws Exception {
    MockRM rm = cluster.start();
    rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    try {
      CoreFaults.panic(scheduler.currentCore(), "broken before a refresh");
    } catch (LocusCorePoisonedException expected) {
      // Nothing has rebuilt it yet.
    }
    YarnConfiguration refreshed = new YarnConfiguration(rm.getConfig());
    refreshed.set("locus.policy", "fair");
    try {
      scheduler.reinitialize(refreshed, rm.getRMContext());
      fail("a refresh against a core out of service must not pass for accepted");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("being rebuilt after a failure"));
    }
    // The refused refresh noticed the failure and started the rebuild; a node registering
    // meanwhile is in the RM's bookkeeping the new core is built from (or sent to it after).
    rm.registerNode("h2:1234", 8 * GB, 8);
    rm.drainEvents();
    scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
    assertEquals(1, scheduler.getCoreRebuilds());
    scheduler.reinitialize(refreshed, rm.getRMContext());
    assertEquals(2, stats(rm).get("nodes").asInt());
  }
}
