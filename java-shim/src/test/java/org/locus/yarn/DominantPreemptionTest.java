package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.settle;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.junit.Rule;
import org.junit.Test;

/**
 * Inter-queue preemption under {@code DominantResourceCalculator} (Cloudera CDP's default) with
 * the scheduling monitor on, under CapacityScheduler and under Locus in one run: two 50 %
 * queues that may each grow to 100 %; queue a holds every vcore of the cluster with
 * vcore-heavy containers but less than half its memory; then queue b's application asks for
 * its AM and two vcore-heavy containers. By memory alone a is within its guarantee and b
 * would wait for ever; by dominant share a is over it, and b gets its containers from a's. With
 * a third queue over its guarantee in memory only, the queue over in vcores is the one that
 * gives back, as many containers as under CapacityScheduler.
 */
public class DominantPreemptionTest {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(DominantPreemptionTest.class);
  private static final String CS = "yarn.scheduler.capacity.";
  /**
   * Two nodes of 16 GB and 20 vcores: a tenth of the cluster (CapacityScheduler's default per
   * round) is 3276 MB and 4 vcores, so a round may take one container of 4 vcores.
   */
  private static final int NODE_GB = 16;
  private static final int NODE_VCORES = 20;
  /** a's AM and tasks, and b's tasks: 1 GB and 4 vcores. */
  private static final int HEAVY = 4;
  private static final int A_TASKS = 2 * NODE_VCORES / HEAVY - 1;
  private static final int GIVE_UP_STEPS = 400;
  private static final long STEP_MS = 100;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  static YarnConfiguration conf(boolean capacityScheduler) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    if (capacityScheduler) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    }
    conf.set(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS,
        DominantResourceCalculator.class.getName());
    conf.set(CS + "root.queues", "a,b");
    for (String q : new String[] {"a", "b"}) {
      conf.set(CS + "root." + q + ".capacity", "50");
      conf.set(CS + "root." + q + ".maximum-capacity", "100");
      conf.set(CS + "root." + q + ".user-limit-factor", "2");
    }
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PreemptionTest.PCPP);
    conf.set(PreemptionTest.P + "monitoring_interval", "1000");
    conf.set(PreemptionTest.P + "max_wait_before_kill", "3000");
    return conf;
  }

  /** What one run saw. */
  static final class Outcome {
    /** Steps until b held its AM and two containers; -1 if it never did. */
    int steps = -1;
    /** a's containers killed with a preempted status. */
    final List<ContainerId> preempted = new ArrayList<>();
    int bHolds;
  }

  private Outcome run(YarnConfiguration conf, int steps) throws Exception {
    MockRM rm = cluster.start(conf);
    try {
      MockNM nm1 = rm.registerNode("h1:1234", Resource.newInstance(NODE_GB * GB, NODE_VCORES));
      MockNM nm2 = rm.registerNode("h2:1234", Resource.newInstance(NODE_GB * GB, NODE_VCORES));
      Resource heavy = Resource.newInstance(GB, HEAVY);
      RMApp appA = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithResource(heavy, rm).withQueue("a").build());
      MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm1);
      amA.allocate(ResourceRequest.ANY, heavy, A_TASKS, new ArrayList<>(), null);
      List<Container> tasks = new ArrayList<>();
      for (int i = 0; i < LocusRmFixture.ROUNDS && tasks.size() < A_TASKS; i++) {
        nm1.nodeHeartbeat(true);
        nm2.nodeHeartbeat(true);
        settle(rm);
        tasks.addAll(amA.allocate(new ArrayList<>(), new ArrayList<>())
            .getAllocatedContainers());
      }
      assertEquals("queue a holds every vcore", A_TASKS, tasks.size());

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
        for (ContainerStatus s : r.getCompletedContainersStatuses()) {
          if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
            out.preempted.add(s.getContainerId());
          }
        }
        RMAppAttempt attemptB = appB.getCurrentAppAttempt();
        if (amB == null && attemptB != null && attemptB.getMasterContainer() != null) {
          rm.waitForState(attemptB.getAppAttemptId(), RMAppAttemptState.ALLOCATED);
          amB = rm.sendAMLaunched(attemptB.getAppAttemptId());
          amB.registerAppAttempt();
          amB.allocate(ResourceRequest.ANY, heavy, 2, new ArrayList<>(), null);
        } else if (amB != null) {
          bTasks += amB.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers()
              .size();
        }
        if (amB != null && bTasks >= 2) {
          out.steps = step;
          break;
        }
      }
      out.bHolds = (amB == null ? 0 : 1) + bTasks;
      return out;
    } finally {
      rm.stop();
    }
  }

  @Test
  public void aQueueOverItsGuaranteeInVcoresGivesBackAsUnderCapacityScheduler()
      throws Exception {
    Outcome cs = run(conf(true), GIVE_UP_STEPS);
    assertTrue("under CapacityScheduler b got its AM and two containers", cs.steps > 0);
    Outcome locus = run(conf(false), GIVE_UP_STEPS);
    LOG.info("b held its AM and two containers after {} steps under CapacityScheduler ({} of "
        + "a's containers preempted), after {} under Locus ({})", cs.steps, cs.preempted.size(),
        locus.steps, locus.preempted.size());
    assertTrue("under Locus b got its AM and two containers (it holds " + locus.bHolds + ")",
        locus.steps > 0);
    // One container of 4 vcores frees room for b's AM, one for each of its tasks: by memory
    // a is within its guarantee and would give back nothing.
    assertEquals("CapacityScheduler took one of a's containers per container of b", 3,
        cs.preempted.size());
    assertEquals("as many of a's containers preempted as under CapacityScheduler",
        cs.preempted.size(), locus.preempted.size());
  }

  /** Absolute capacities under this calculator with the monitor on: refused at start. */
  @Test
  public void absoluteCapacitiesWithPreemptionAreRefusedNamingTheKeys() throws Exception {
    YarnConfiguration conf = conf(false);
    conf.set(CS + "root.a.capacity", "[memory=28672,vcores=8]");
    conf.set(CS + "root.b.capacity", "[memory=4096,vcores=32]");
    try {
      cluster.start(conf);
      fail("Locus started preemption over absolute capacities under the dominant calculator");
    } catch (Exception e) {
      String m = LocusRmFixture.messages(e);
      assertTrue(m, m.contains(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS));
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
      assertTrue(m, m.contains("absolute resources"));
    }
  }

  /** Per queue, a's and c's containers killed with a preempted status, and what b holds. */
  static final class ThreeQueues {
    int steps = -1;
    int preemptedA;
    int preemptedC;
    int bHolds;
  }

  private static int preempted(MockAM am) throws Exception {
    int n = 0;
    for (ContainerStatus s : am.allocate(new ArrayList<>(), new ArrayList<>())
        .getCompletedContainersStatuses()) {
      if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
        n++;
      }
    }
    return n;
  }

  /** Heartbeats {@code nm} until {@code am} holds {@code n} more containers. */
  private static void fill(MockRM rm, MockNM nm, MockAM am, Resource each, int n)
      throws Exception {
    am.allocate(ResourceRequest.ANY, each, n, new ArrayList<>(), null);
    int got = 0;
    for (int i = 0; i < LocusRmFixture.ROUNDS && got < n; i++) {
      nm.nodeHeartbeat(true);
      settle(rm);
      got += am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers().size();
    }
    assertEquals(n, got);
  }

  /**
   * One node of 32 GB and 40 vcores; a (25 %) holds 11 GB and 6 vcores in memory-heavy
   * containers, c (25 %) 7 GB and 28 vcores in vcore-heavy ones, b (50 %) its AM and one of
   * three 4-vcore tasks; one vcore is left.
   */
  private ThreeQueues runThree(boolean capacityScheduler, int steps) throws Exception {
    YarnConfiguration conf = conf(capacityScheduler);
    conf.set(CS + "root.queues", "a,b,c");
    conf.set(CS + "root.a.capacity", "25");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.c.capacity", "25");
    conf.set(CS + "root.c.maximum-capacity", "100");
    conf.set(CS + "root.a.user-limit-factor", "4");
    conf.set(CS + "root.c.user-limit-factor", "4");
    MockRM rm = cluster.start(conf);
    try {
      MockNM nm = rm.registerNode("h1:1234", Resource.newInstance(32 * GB, 40));
      Resource heavy = Resource.newInstance(GB, HEAVY);
      RMApp appA = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue("a").build());
      MockAM amA = LocusRmFixture.launchAndRegisterAM(appA, rm, nm);
      fill(rm, nm, amA, Resource.newInstance(2 * GB, 1), 5);
      RMApp appC = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithResource(heavy, rm).withQueue("c").build());
      MockAM amC = LocusRmFixture.launchAndRegisterAM(appC, rm, nm);
      fill(rm, nm, amC, heavy, 6);
      RMApp appB = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue("b").build());
      MockAM amB = LocusRmFixture.launchAndRegisterAM(appB, rm, nm);
      amB.allocate(ResourceRequest.ANY, heavy, 3, new ArrayList<>(), null);
      ThreeQueues out = new ThreeQueues();
      int bTasks = 0;
      for (int step = 1; step <= steps; step++) {
        Thread.sleep(STEP_MS);
        nm.nodeHeartbeat(true);
        settle(rm);
        out.preemptedA += preempted(amA);
        out.preemptedC += preempted(amC);
        bTasks += amB.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers()
            .size();
        if (bTasks >= 3) {
          out.steps = step;
          break;
        }
      }
      out.bHolds = 1 + bTasks;
      return out;
    } finally {
      rm.stop();
    }
  }

  /**
   * a is over its guarantee in memory, c in vcores; b waits for vcores. By memory alone a
   * would be the one asked (c holds less memory than its guarantee); by dominant share
   * CapacityScheduler asks c, whose containers free the vcores b waits for.
   */
  @Test
  public void theQueueOverItsGuaranteeByDominantShareGivesBackAsUnderCapacityScheduler()
      throws Exception {
    ThreeQueues cs = runThree(true, GIVE_UP_STEPS);
    assertTrue("under CapacityScheduler b got its three tasks", cs.steps > 0);
    ThreeQueues locus = runThree(false, GIVE_UP_STEPS);
    LOG.info("three queues: CapacityScheduler took {} from a and {} from c in {} steps; Locus {}"
        + " and {} in {}", cs.preemptedA, cs.preemptedC, cs.steps, locus.preemptedA,
        locus.preemptedC, locus.steps);
    assertTrue("CapacityScheduler took from c", cs.preemptedC > 0);
    assertTrue("under Locus b got its three tasks (it holds " + locus.bHolds + ")",
        locus.steps > 0);
    assertEquals("as many of a's containers as under CapacityScheduler", cs.preemptedA,
        locus.preemptedA);
    assertEquals("as many of c's containers as under CapacityScheduler", cs.preemptedC,
        locus.preemptedC);
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  /** Rounds within a queue weigh memory only: with this calculator the start is refused. */
  @Test
  public void intraQueuePreemptionUnderTheDominantCalculatorIsRefusedNamingBothKeys()
      throws Exception {
    YarnConfiguration conf = conf(false);
    conf.setBoolean(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED, true);
    try {
      cluster.start(conf);
      fail("Locus started intra-queue preemption under the dominant calculator");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED));
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
      assertTrue(m, m.contains(DominantResourceCalculator.class.getName()));
    }
  }
}
