package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.After;
import org.junit.BeforeClass;
import org.junit.Test;
import org.slf4j.LoggerFactory;

/**
 * What the shim does when the core cannot be trusted or refuses something: a panicked core is
 * replaced by one rebuilt from the RM's bookkeeping, and a refused application fails with the
 * core's reason instead of waiting in ACCEPTED forever.
 */
public class CoreRecoveryTest {
  private static final int GB = 1024;
  private static final int ROUNDS = 40;

  private final List<MockRM> rms = new ArrayList<>();

  @BeforeClass
  public static void resolveTestHosts() {
    for (String host : new String[] {"h1", "h2"}) {
      NetUtils.addStaticResolution(host, "127.0.0.1");
    }
  }

  @After
  public void stopRms() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  private MockRM start() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    MockRM rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
    rms.add(rm);
    rm.start();
    return rm;
  }

  private static LocusScheduler scheduler(MockRM rm) {
    return (LocusScheduler) rm.getResourceScheduler();
  }

  private static JsonNode stats(MockRM rm) throws Exception {
    return CoreMessages.JSON.readTree(scheduler(rm).getCoreStatsJson());
  }

  private static List<Container> heartbeatUntil(MockRM rm, MockNM nm, MockAM am, int n)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < ROUNDS && got.size() < n; i++) {
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      if (got.size() < n) {
        Thread.sleep(50);
      }
    }
    return got;
  }

  @Test
  public void aPanickedCoreIsReplacedByOneRebuiltFromTheRmsBookkeeping() throws Exception {
    MockRM rm = start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 4 * GB, 4);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm1);
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
    // h1 is full as far as the new core knows: 3 GB of 8 used.
    assertEquals(5 * GB,
        scheduler(rm).getSchedulerNode(nm1.getNodeId()).getUnallocatedResource().getMemorySize());
  }

  @Test
  public void anApplicationTheCoreRefusesFailsWithTheCoresReason() throws Exception {
    MockRM rm = start();
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
    MockRM rm = start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp bad = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM badAm = MockRM.launchAndRegisterAM(bad, rm, nm1);
    RMApp good = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM goodAm = MockRM.launchAndRegisterAM(good, rm, nm1);
    LogCapturer logs =
        LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      // The RM takes a negative priority; the core refuses the whole snapshot, every time the
      // AM changes it.
      for (int n = 1; n <= 5; n++) {
        badAm.allocate(Collections.singletonList(ResourceRequest.newInstance(
            Priority.newInstance(-1), ResourceRequest.ANY, Resource.newInstance(GB, 1), n)),
            new ArrayList<>());
      }
      goodAm.allocate("h1", GB, 2, new ArrayList<>());
      assertEquals("the other application is served", 2,
          heartbeatUntil(rm, nm1, goodAm, 2).size());

      String out = logs.getOutput();
      String line = "Locus core update failed for application " + bad.getApplicationId();
      assertEquals(out, out.indexOf(line), out.lastIndexOf(line));
      assertTrue(out, out.contains(line + ": event 0 (asks_updated) rejected"));
      assertTrue(out, out.contains("negative priority"));
      assertFalse("no JSON dump in the RM log: " + out, out.contains("\"resource_name\""));
      assertEquals(RMAppState.RUNNING, bad.getState());
      // The owner sees why in the application's diagnostics; the other app sees nothing.
      String diagnostics = bad.getDiagnostics().toString();
      assertTrue(diagnostics, diagnostics.contains("Locus refused this application's resource"
          + " requests") && diagnostics.contains("negative priority"));
      assertFalse(good.getDiagnostics().toString().contains("Locus refused"));

      // Once the AM withdraws the bad row, the core takes its asks and the refusal is gone.
      badAm.allocate(Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(-1), ResourceRequest.ANY, Resource.newInstance(GB, 1), 0)),
          new ArrayList<>());
      assertFalse(bad.getDiagnostics().toString().contains("Locus refused"));
    } finally {
      logs.stopCapturing();
    }
  }

  @Test
  public void aRefreshDuringARebuildIsRefusedAsSuchAndWorksAfterIt() throws Exception {
    MockRM rm = start();
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
    rm.registerNode("h2:1234", 8 * GB, 8);
    rm.drainEvents();
    assertEquals(1, scheduler.getCoreRebuilds());
    scheduler.reinitialize(refreshed, rm.getRMContext());
    assertEquals(2, stats(rm).get("nodes").asInt());
  }
}
