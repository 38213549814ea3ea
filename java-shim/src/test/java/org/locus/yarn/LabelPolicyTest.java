package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.ArrayList;
import java.security.Permission;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.mockito.ArgumentCaptor;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.event.EventDispatcher;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.After;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Node labels with {@code yarn.node-labels.enabled=true} and a label the cluster knows: an
 * application or an ask naming it is refused with the label in the message (Locus schedules
 * the default partition only), never left pending.
 */
public class LabelPolicyTest {
  private static final int GB = 1024;

  private MockRM rm;

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  @After
  public void stop() {
    if (rm != null) {
      rm.stop();
    }
  }

  private void start() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    // Stepped by hand with MockRM's helpers, which need decisions at heartbeats (LocusRmFixture).
    conf.set("locus.scheduling.mode", "heartbeat");
    conf.set("locus.scheduling.eager", "false");
    rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
    rm.start();
    rm.getRMContext().getNodeLabelManager()
        .addToCluserNodeLabelsWithDefaultExclusivity(Collections.singleton("gpu"));
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  @Test
  public void aLabelledApplicationIsRefusedNamingTheLabel() throws Exception {
    start();
    rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app;
    try {
      app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withAppNodeLabel("gpu").withAmLabel("gpu")
          .withWaitForAppAcceptedState(false).build());
    } catch (Exception refusedByTheRm) {
      // The RM's own validation refused it before the scheduler saw it: fine if it says why.
      assertTrue(messages(refusedByTheRm), messages(refusedByTheRm).contains("gpu"));
      return;
    }
    rm.waitForState(app.getApplicationId(), RMAppState.FAILED);
    String why = app.getDiagnostics().toString();
    assertTrue(why, why.contains("'gpu'") && why.contains("default partition"));
  }

  @Test
  public void aLabelledAskIsRefusedAtAllocateAndNothingOfItIsPending() throws Exception {
    start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submit(rm,
        MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    try {
      am.allocate("*", GB, 3, new ArrayList<>(), "gpu");
      fail("a labelled ask was accepted");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains("gpu"));
    }
    QueueMetrics root = rm.getResourceScheduler().getRootQueueMetrics();
    assertEquals("nothing of the refused call is pending", 0, root.getPendingMB());
    // The same AM's unlabelled asks are served as before.
    am.allocate("*", GB, 1, new ArrayList<>());
    assertEquals(GB, root.getPendingMB());
    ApplicationId id = app.getApplicationId();
    assertEquals(RMAppState.RUNNING, rm.getRMContext().getRMApps().get(id).getState());
  }

  /** Records System.exit attempts from the dispatcher and refuses them (see SchedulerDispatcherTest). */
  @SuppressWarnings("removal")
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

  /**
   * The RM validates labels only for new submissions: an application recovered after a restart
   * (e.g. one submitted under CapacityScheduler with a label, before the switch to Locus)
   * reaches the scheduler with its label. It is killed naming the label, through the real
   * scheduler dispatcher, not admitted to wait forever.
   */
  @Test
  @SuppressWarnings("removal")
  public void aRecoveredLabelledApplicationIsKilledNamingTheLabel() throws Exception {
    start();
    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    ApplicationId id = ApplicationId.newInstance(1L, 42);
    ApplicationSubmissionContext ctx = Records.newRecord(ApplicationSubmissionContext.class);
    ctx.setApplicationId(id);
    ctx.setNodeLabelExpression("gpu");
    RMApp recovered = mock(RMApp.class);
    when(recovered.getApplicationId()).thenReturn(id);
    when(recovered.getApplicationSubmissionContext()).thenReturn(ctx);
    rm.getRMContext().getRMApps().put(id, recovered);

    SecurityManager previous = System.getSecurityManager();
    ExitTrap trap = new ExitTrap();
    System.setSecurityManager(trap);
    EventDispatcher<SchedulerEvent> dispatcher =
        new EventDispatcher<>(scheduler, "LabelPolicyTestDispatcher");
    try {
      dispatcher.init(new YarnConfiguration());
      dispatcher.start();
      dispatcher.handle(new AppAddedSchedulerEvent(id, "default", "alice", true, null, null,
          null));
      for (int i = 0; i < 100 && dispatcher.getEventQueueSize() > 0; i++) {
        Thread.sleep(20);
      }
      Thread.sleep(100);
    } finally {
      dispatcher.stop();
      System.setSecurityManager(previous);
    }
    rm.drainEvents();
    assertEquals(0, trap.exits.get());
    assertTrue("not admitted", !scheduler.getSchedulerApplications().containsKey(id));
    ArgumentCaptor<RMAppEvent> events = ArgumentCaptor.forClass(RMAppEvent.class);
    verify(recovered, atLeastOnce()).handle(events.capture());
    RMAppEvent kill = events.getValue();
    assertEquals(RMAppEventType.KILL, kill.getType());
    assertTrue(kill.getDiagnosticMsg(), kill.getDiagnosticMsg().contains("'gpu'"));
  }

  /**
   * A labelled ask the RM's own validation let through (or a caller that skips it) reaches
   * allocate: the call fails naming the label, and nothing of it is recorded as pending.
   */
  @Test
  public void aLabelledAskReachingTheSchedulerFailsTheCallNamingTheLabel() throws Exception {
    start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submit(rm,
        MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    ResourceRequest labelled = ResourceRequest.newInstance(Priority.newInstance(1),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), 3);
    labelled.setNodeLabelExpression("gpu");
    List<ResourceRequest> asks = new ArrayList<>(Collections.singletonList(labelled));
    try {
      rm.getResourceScheduler().allocate(am.getApplicationAttemptId(), asks, null,
          new ArrayList<>(), null, null, null);
      fail("a labelled ask was accepted by the scheduler");
    } catch (RuntimeException e) {
      assertTrue(messages(e), messages(e).contains("'gpu'"));
    }
    assertEquals(0, rm.getResourceScheduler().getRootQueueMetrics().getPendingMB());
  }
}
