package org.locus.yarn;

import static org.apache.hadoop.test.MetricsAsserts.getLongCounter;
import static org.apache.hadoop.test.MetricsAsserts.getMetrics;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.settle;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.web.QueueView;
import org.locus.yarn.web.SchedulerInfoJson;

/**
 * Inter-queue preemption with the RM's scheduling monitor on and CapacityScheduler's
 * {@code ProportionalCapacityPreemptionPolicy} named, under CapacityScheduler and under Locus
 * in one run: two 50 % queues that may each grow to 100 %; queue a fills the cluster, then an
 * application in queue b asks for its AM and two containers. Under both, b gets them from a's
 * containers, each of which a's AM was told of in a PreemptionMessage before it was killed with
 * a preempted status, and as many of them; with the monitor off, b waits.
 */
public class PreemptionTest {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PreemptionTest.class);
  static final String PCPP = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
      + "ProportionalCapacityPreemptionPolicy";
  static final String P = "yarn.resourcemanager.monitor.capacity.preemption.";
  private static final String CS = "yarn.scheduler.capacity.";
  /** Two nodes of 8 GB: 16 GB, so CapacityScheduler's default 10 % per round is one 1 GB task. */
  private static final int NODE_GB = 8;
  /** Steps of the scenario before giving up (a step sleeps {@link #STEP_MS}); not a timing. */
  private static final int GIVE_UP_STEPS = 400;
  private static final long STEP_MS = 100;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  static YarnConfiguration conf(boolean capacityScheduler, boolean monitor) {
    return conf(capacityScheduler, monitor, false);
  }

  static YarnConfiguration conf(boolean capacityScheduler, boolean monitor,
      boolean aNotPreemptable) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    if (capacityScheduler) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    }
    conf.set(CS + "root.queues", "a,b");
    for (String q : new String[] {"a", "b"}) {
      conf.set(CS + "root." + q + ".capacity", "50");
      conf.set(CS + "root." + q + ".maximum-capacity", "100");
      // One user may hold up to the queue's maximum, not only its guarantee.
      conf.set(CS + "root." + q + ".user-limit-factor", "2");
    }
    if (aNotPreemptable) {
      conf.set(CS + "root.a.disable_preemption", "true");
    }
    if (monitor) {
      conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
      conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PCPP);
      conf.set(P + "monitoring_interval", "1000");
      conf.set(P + "max_wait_before_kill", "3000");
    }
    return conf;
  }

  /** What one run saw. */
  static final class Outcome {
    /** Steps until b held its AM and two containers; -1 if it never did. */
    int steps = -1;
    /** a's containers killed with a preempted status. */
    final Set<ContainerId> preempted = new LinkedHashSet<>();
    /** a's containers its AM was told to give back, before their kill. */
    final Set<ContainerId> announced = new LinkedHashSet<>();
    /** Killed without an earlier PreemptionMessage naming them. */
    final Set<ContainerId> unannounced = new LinkedHashSet<>();
    int bHolds;
    /** Exit status and diagnostics of each preempted container, as a's AM saw them. */
    final Set<String> preemptedStatuses = new LinkedHashSet<>();
    /** Queue a's and root's QueueMetrics: containers preempted, their MB, their MB-seconds. */
    long aPreempted;
    long aPreemptedMb;
    long aPreemptedMbSeconds;
    long rootPreempted;
    /** Queue a's preempted containers in Locus's {@code /ws/v1/cluster/scheduler} (Locus only). */
    long aPreemptedInRest = -1;
    /** a's attempt as the RM reports it: non-AM containers preempted, their MB, MB-seconds. */
    int appPreempted;
    long appPreemptedMb;
    long appPreemptedMbSeconds;
    /** Locus's metrics2 source (Locus only): containers marked for preemption, then killed. */
    long metricsMarked = -1;
    long metricsPreempted = -1;
  }

  private Outcome run(boolean capacityScheduler, boolean monitor, int steps) throws Exception {
    return run(conf(capacityScheduler, monitor), steps);
  }

  private Outcome run(YarnConfiguration conf, int steps) throws Exception {
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", NODE_GB * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", NODE_GB * GB, 8);
    RMApp appA = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("a").build());
    MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm1);
    amA.allocate("*", GB, 2 * NODE_GB - 1, new ArrayList<>());
    List<Container> tasks = new ArrayList<>();
    for (int i = 0; i < LocusRmFixture.ROUNDS && tasks.size() < 2 * NODE_GB - 1; i++) {
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      tasks.addAll(amA.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
    }
    assertEquals("queue a fills the cluster", 2 * NODE_GB - 1, tasks.size());

    RMApp appB = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("b").build());
    Outcome out = new Outcome();
    MockAM amB = null;
    int bTasks = 0;
    for (int step = 1; step <= steps; step++) {
      Thread.sleep(STEP_MS);
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      AllocateResponse r = amA.allocate(new ArrayList<>(), new ArrayList<>());
      PreemptionMessage m = r.getPreemptionMessage();
      if (m != null) {
        if (m.getStrictContract() != null) {
          for (PreemptionContainer c : m.getStrictContract().getContainers()) {
            out.announced.add(c.getId());
          }
        }
        if (m.getContract() != null) {
          for (PreemptionContainer c : m.getContract().getContainers()) {
            out.announced.add(c.getId());
          }
        }
      }
      for (ContainerStatus s : r.getCompletedContainersStatuses()) {
        if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
          out.preempted.add(s.getContainerId());
          out.preemptedStatuses.add(s.getExitStatus() + " " + s.getDiagnostics());
          if (!out.announced.contains(s.getContainerId())) {
            out.unannounced.add(s.getContainerId());
          }
        }
      }
      RMAppAttempt attemptB = appB.getCurrentAppAttempt();
      if (amB == null && attemptB != null && attemptB.getMasterContainer() != null) {
        rm.waitForState(attemptB.getAppAttemptId(), RMAppAttemptState.ALLOCATED);
        amB = rm.sendAMLaunched(attemptB.getAppAttemptId());
        amB.registerAppAttempt();
        amB.allocate("*", GB, 2, new ArrayList<>());
      } else if (amB != null) {
        bTasks += amB.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers()
            .size();
      }
      if (amB != null && bTasks >= 2 && out.steps < 0) {
        out.steps = step;
        break;
      }
    }
    out.bHolds = (amB == null ? 0 : 1) + bTasks;
    SchedulerApplicationAttempt attemptA = ((AbstractYarnScheduler<?, ?>) rm
        .getResourceScheduler()).getApplicationAttempt(amA.getApplicationAttemptId());
    QueueMetrics a = attemptA.getQueue().getMetrics();
    out.aPreempted = a.getAggregatePreemptedContainers();
    out.aPreemptedMb = a.getAggregateMemoryMBPreempted();
    out.aPreemptedMbSeconds = a.getAggregateMemoryMBSecondsPreempted().value();
    out.rootPreempted = rm.getResourceScheduler().getRootQueueMetrics()
        .getAggregatePreemptedContainers();
    if (rm.getResourceScheduler() instanceof LocusScheduler) {
      JsonNode info = SchedulerInfoJson.render(
          QueueView.root(rm.getResourceScheduler(), rm.getRMContext()), null)
          .path("scheduler").path("schedulerInfo");
      for (JsonNode q : info.path("queues").path("queue")) {
        if ("a".equals(q.path("queueName").asText())) {
          out.aPreemptedInRest = q.path("locus").path("preemptedContainers").asLong(-1);
        }
      }
      MetricsRecordBuilder rb = getMetrics(((LocusScheduler) rm.getResourceScheduler())
          .getLocusMetrics());
      out.metricsMarked = getLongCounter("ContainersMarkedForPreemption", rb);
      out.metricsPreempted = getLongCounter("ContainersPreempted", rb);
    }
    RMAppMetrics app = appA.getRMAppMetrics();
    out.appPreempted = app.getNumNonAMContainersPreempted();
    out.appPreemptedMb = app.getResourcePreempted().getMemorySize();
    out.appPreemptedMbSeconds = app.getPreemptedMemorySeconds();
    rm.stop();
    return out;
  }

  @Test
  public void queueBGetsItsShareBackAsUnderCapacitySchedulerAndWaitsWithoutPreemption()
      throws Exception {
    Outcome cs = run(true, true, GIVE_UP_STEPS);
    assertTrue("under CapacityScheduler b got its AM and two containers", cs.steps > 0);
    Outcome locus = run(false, true, GIVE_UP_STEPS);
    LOG.info("b held its AM and two containers after {} steps under CapacityScheduler ({} of "
        + "a's containers preempted), after {} under Locus ({})", cs.steps, cs.preempted.size(),
        locus.steps, locus.preempted.size());
    assertTrue("under Locus b got its AM and two containers (it holds " + locus.bHolds + ")",
        locus.steps > 0);
    assertEquals("a's AM heard of every container before its kill", new LinkedHashSet<>(),
        locus.unannounced);
    assertEquals("CapacityScheduler's AM too", new LinkedHashSet<>(), cs.unannounced);
    assertEquals("as many of a's containers preempted as under CapacityScheduler",
        cs.preempted.size(), locus.preempted.size());
    assertTrue("b's three containers came from a", locus.preempted.size() >= 3);
    assertVisibleAsUnderCapacityScheduler(cs, locus);

    // Without the monitor b waits: twice as long as it took with it, it still holds nothing.
    Outcome off = run(false, false, 2 * Math.max(cs.steps, locus.steps));
    assertEquals("nothing preempted", 0, off.preempted.size());
    assertEquals("b still waits for its AM", 0, off.bHolds);
  }

  /**
   * Queue b's one user may hold only 1 GB (user-limit-factor 0.125 of b's 8 GB): b gets its AM
   * from a's containers, and then, its user at its limit, nothing more is taken for its two
   * tasks, since CapacityScheduler counts a queue's pending only up to each asking user's
   * headroom. The same count of a's containers is preempted under both schedulers.
   */
  @Test
  public void aQueueWhoseUserIsAtItsLimitTakesNoMoreThanUnderCapacityScheduler()
      throws Exception {
    Outcome[] outs = new Outcome[2];
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      YarnConfiguration conf = conf(capacityScheduler, true);
      conf.set(CS + "root.b.user-limit-factor", "0.125");
      outs[capacityScheduler ? 0 : 1] = run(conf, 120);
    }
    Outcome cs = outs[0];
    Outcome locus = outs[1];
    LOG.info("b's user at its limit: CapacityScheduler preempted {} (b holds {}), Locus {} ({})",
        cs.preempted.size(), cs.bHolds, locus.preempted.size(), locus.bHolds);
    assertTrue("CapacityScheduler took a's room for b's AM", cs.preempted.size() >= 1);
    assertTrue("b's user stopped short of its two tasks under CapacityScheduler",
        cs.bHolds < 3);
    assertEquals("as many of a's containers preempted as under CapacityScheduler",
        cs.preempted.size(), locus.preempted.size());
    assertEquals("b holds as much as under CapacityScheduler", cs.bHolds, locus.bHolds);
  }

  /** What a run with b's second application asking for its AM saw. */
  static final class HeldBack {
    /** a's containers killed with a preempted status. */
    int preempted;
    /** Whether b's second application got its AM container, and after how many steps. */
    boolean secondAmPlaced;
    int steps;
  }

  /**
   * Queue b (at most its 50 %) runs its first application's AM, which asks for nothing more;
   * a fills the rest of the cluster; then b's second application asks for its AM. Heartbeats
   * {@code steps} times, or until that AM is placed, counting a's containers preempted.
   */
  private HeldBack runSecondAm(YarnConfiguration conf, int steps) throws Exception {
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", NODE_GB * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", NODE_GB * GB, 8);
    RMApp b1 = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("b").build());
    LocusRmFixture.launchAndRegisterAM(b1, rm, nm1);
    RMApp appA = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("a").build());
    MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm1);
    int free = 2 * NODE_GB - 2;
    amA.allocate("*", GB, free, new ArrayList<>());
    int tasks = 0;
    for (int i = 0; i < LocusRmFixture.ROUNDS && tasks < free; i++) {
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      tasks += amA.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers().size();
    }
    assertEquals("queue a fills what b's first AM left", free, tasks);
    RMApp b2 = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("b").build());
    HeldBack out = new HeldBack();
    for (int step = 1; step <= steps && !out.secondAmPlaced; step++) {
      Thread.sleep(STEP_MS);
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      for (ContainerStatus s : amA.allocate(new ArrayList<>(), new ArrayList<>())
          .getCompletedContainersStatuses()) {
        if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
          out.preempted++;
        }
      }
      RMAppAttempt attempt = b2.getCurrentAppAttempt();
      out.secondAmPlaced = attempt != null && attempt.getMasterContainer() != null;
      out.steps = step;
    }
    rm.stop();
    return out;
  }

  /**
   * CapacityScheduler counts a leaf's pending over its activated applications only
   * ({@code getTotalPendingResourcesConsideringUserLimit} walks {@code getApplications()}): b's
   * second application, whose AM b's {@code maximum-am-resource-percent} (10 % of b's 8 GB, one
   * 1 GB AM) holds back, cannot run on room preemption frees, so nothing is taken from a for it,
   * for longer than preemption took with the limit at all of b's guarantee, where the second
   * application is activated and gets its AM from a's containers. Both under both schedulers.
   */
  @Test
  public void anApplicationItsQueuesAmLimitHoldsBackTakesNothingAsUnderCapacityScheduler()
      throws Exception {
    HeldBack[] admitted = new HeldBack[2];
    HeldBack[] held = new HeldBack[2];
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      int i = capacityScheduler ? 0 : 1;
      for (String percent : new String[] {"1.0", "0.1"}) {
        YarnConfiguration conf = conf(capacityScheduler, true);
        conf.set(CS + "root.b.maximum-capacity", "50");
        conf.set(CS + "root.b.maximum-am-resource-percent", percent);
        if (percent.equals("1.0")) {
          admitted[i] = runSecondAm(conf, GIVE_UP_STEPS);
        } else {
          held[i] = runSecondAm(conf, 2 * admitted[i].steps);
        }
      }
    }
    LOG.info("b's second AM: admitted, CapacityScheduler preempted {} (placed {}), Locus {} ({});"
        + " held back, CapacityScheduler {} ({}), Locus {} ({})", admitted[0].preempted,
        admitted[0].secondAmPlaced, admitted[1].preempted, admitted[1].secondAmPlaced,
        held[0].preempted, held[0].secondAmPlaced, held[1].preempted, held[1].secondAmPlaced);
    assertTrue("admitted: CapacityScheduler placed b's second AM on a's room",
        admitted[0].secondAmPlaced && admitted[0].preempted >= 1);
    assertTrue("admitted: Locus placed b's second AM on a's room",
        admitted[1].secondAmPlaced && admitted[1].preempted >= 1);
    assertTrue("held back: CapacityScheduler took nothing and placed no AM",
        held[0].preempted == 0 && !held[0].secondAmPlaced);
    assertEquals("held back: a's containers preempted under Locus as under CapacityScheduler",
        held[0].preempted, held[1].preempted);
    assertTrue("held back: Locus placed no AM", !held[1].secondAmPlaced);
  }

  /**
   * What the RM shows of the preempted containers: queue a's QueueMetrics (and root's, which adds
   * up its children), a's application report, and each container's exit status and diagnostics,
   * as under CapacityScheduler. MB-seconds depend on how long each container ran, so they are only
   * required to be there, as under CapacityScheduler.
   */
  private static void assertVisibleAsUnderCapacityScheduler(Outcome cs, Outcome locus) {
    int n = cs.preempted.size();
    assertEquals("CapacityScheduler counts a's preempted containers in a's QueueMetrics", n,
        cs.aPreempted);
    assertEquals("CapacityScheduler's statuses", Collections.singleton(
        ContainerExitStatus.PREEMPTED + " " + SchedulerUtils.PREEMPTED_CONTAINER),
        cs.preemptedStatuses);
    assertEquals("the preempted containers' exit status and diagnostics", cs.preemptedStatuses,
        locus.preemptedStatuses);
    assertEquals("queue a's AggregateContainersPreempted", cs.aPreempted, locus.aPreempted);
    assertEquals("root's AggregateContainersPreempted", cs.rootPreempted, locus.rootPreempted);
    assertEquals("queue a's preempted containers in REST", cs.aPreempted, locus.aPreemptedInRest);
    assertEquals("containers preempted in Locus's metrics source", cs.aPreempted,
        locus.metricsPreempted);
    assertTrue("every preempted container was marked first in Locus's metrics source ("
        + locus.metricsMarked + " marked)", locus.metricsMarked >= locus.metricsPreempted);
    assertEquals("queue a's AggregateMemoryMBPreempted", cs.aPreemptedMb, locus.aPreemptedMb);
    assertTrue("queue a's AggregateMemoryMBSecondsPreempted under CapacityScheduler",
        cs.aPreemptedMbSeconds > 0);
    assertTrue("queue a's AggregateMemoryMBSecondsPreempted (" + locus.aPreemptedMbSeconds + ")",
        locus.aPreemptedMbSeconds > 0);
    assertEquals("a's application: non-AM containers preempted", cs.appPreempted,
        locus.appPreempted);
    assertEquals("a's application: memory preempted", cs.appPreemptedMb, locus.appPreemptedMb);
    assertTrue("a's application: preempted MB-seconds under CapacityScheduler",
        cs.appPreemptedMbSeconds > 0);
    assertTrue("a's application: preempted MB-seconds (" + locus.appPreemptedMbSeconds + ")",
        locus.appPreemptedMbSeconds > 0);
  }

  /**
   * {@code disable_preemption} on queue a: under both schedulers nothing is taken from it and b
   * waits, for more steps than b needed for its AM and both containers with preemption on.
   */
  @Test
  public void aQueueWithPreemptionDisabledKeepsItsContainersAsUnderCapacityScheduler()
      throws Exception {
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      Outcome out = run(conf(capacityScheduler, true, true), 160);
      String under = capacityScheduler ? "CapacityScheduler" : "Locus";
      assertEquals(under + ": nothing preempted", 0, out.preempted.size());
      assertEquals(under + ": b still waits for its AM", 0, out.bHolds);
    }
  }

  @Test
  public void aRefreshWithABadPreemptionSettingChangesNothing() throws Exception {
    YarnConfiguration conf = conf(false, true);
    MockRM rm = cluster.start(conf);
    YarnConfiguration bad = conf(false, true);
    bad.set(P + "total_preemption_per_round", "-1");
    try {
      LocusRmFixture.scheduler(rm).reinitialize(bad, rm.getRMContext());
      fail("a refresh took total_preemption_per_round=-1");
    } catch (java.io.IOException e) {
      assertTrue(messages(e), messages(e).contains(P + "total_preemption_per_round"));
    }
    assertTrue("the monitor still runs",
        !LocusRmFixture.scheduler(rm).getSchedulingMonitorManager().isRSMEmpty());
  }

  @Test
  public void anUnknownMonitorPolicyStopsTheRmNamingIt() {
    YarnConfiguration conf = conf(false, true);
    String other = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
        + "NoSuchCapacityPolicy";
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, other);
    try {
      cluster.start(conf);
      fail("the RM started with " + other);
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(other));
    }
  }

  @Test
  public void aBadPreemptionSettingStopsTheRmNamingTheKey() {
    YarnConfiguration conf = conf(false, true);
    conf.set(P + "natural_termination_factor", "fast");
    try {
      cluster.start(conf);
      fail("the RM started with a bad natural_termination_factor");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(P + "natural_termination_factor"));
    }
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t).append('\n');
    }
    return out.toString();
  }
}
