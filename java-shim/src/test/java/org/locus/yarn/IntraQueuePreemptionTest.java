package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.settle;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
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
import org.junit.Rule;
import org.junit.Test;

/**
 * Intra-queue preemption ({@code intra-queue-preemption.*}) under CapacityScheduler and under
 * Locus in one run, in one queue holding the whole cluster: a first application fills it, then
 * a second asks for its AM and three containers. User-limit-based: the second is another
 * user's, each owed half the queue. Priority-based: the second is of a higher application
 * priority, under {@code priority_first}. Under both schedulers the second gets them from the
 * first's containers, as many of them, and loses none of its own; without intra-queue
 * preemption, at equal priorities, or when the second is the first's user who already holds
 * its whole user limit, it waits under both.
 */
public class IntraQueuePreemptionTest {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(IntraQueuePreemptionTest.class);
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String INTRA = PreemptionTest.P + "intra-queue-preemption.";
  /** Two nodes of 8 GB: CapacityScheduler's default 10 % per round is 1.6 GB. */
  private static final int NODE_GB = 8;
  private static final int TASKS = 3;
  /** Steps of the scenario before giving up (a step sleeps {@link #STEP_MS}); not a timing. */
  private static final int GIVE_UP_STEPS = 400;
  /** Steps watched after the second application is served, for preemption beyond its need. */
  private static final int AFTER_STEPS = 30;
  /**
   * Steps a control watches for preemption that should not come: several monitoring intervals
   * past {@code max_wait_before_kill}, more than the served runs need to see their first kill.
   */
  private static final int CONTROL_STEPS = 40;
  private static final long STEP_MS = 100;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static YarnConfiguration conf(boolean capacityScheduler, boolean intraQueue) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    // Locus runs the file's queues under its capacity policy (CapacityScheduler ignores it).
    conf.set("locus.policy", "capacity");
    if (capacityScheduler) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    }
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.capacity", "100");
    // Room for both AMs, so the second application is admitted while the first fills the queue.
    conf.set(CS + "root.default.maximum-am-resource-percent", "0.5");
    conf.set(CS + "root.default.minimum-user-limit-percent", "50");
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PreemptionTest.PCPP);
    // Short, so a run takes seconds: the outcome does not depend on them.
    conf.set(PreemptionTest.P + "monitoring_interval", "500");
    conf.set(PreemptionTest.P + "max_wait_before_kill", "1000");
    conf.setBoolean(INTRA + "enabled", intraQueue);
    return conf;
  }

  /** What one run saw. */
  static final class Outcome {
    /** Steps until the second application held its AM and its containers; -1 if never. */
    int steps = -1;
    /** The first application's containers killed with a preempted status. */
    final Set<ContainerId> firstPreempted = new LinkedHashSet<>();
    /** The second application's containers killed with a preempted status. */
    final Set<ContainerId> secondPreempted = new LinkedHashSet<>();
    int secondHolds;

    @Override
    public String toString() {
      return "steps=" + steps + " first lost " + firstPreempted.size() + ", second lost "
          + secondPreempted.size() + ", second holds " + secondHolds;
    }
  }

  private static void collect(AllocateResponse r, Set<ContainerId> preempted) {
    for (ContainerStatus s : r.getCompletedContainersStatuses()) {
      if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
        preempted.add(s.getContainerId());
      }
    }
  }

  /**
   * The priority cases' settings: the cluster's maximum application priority raised from its
   * default 0 (under which every application's priority is capped to 0) and each user owed
   * the whole queue (the default minimum-user-limit-percent, 100), so no user is over its
   * limit and only priorities can order preemption.
   */
  private static YarnConfiguration priorityConf(boolean capacityScheduler, boolean intraQueue,
      String order) {
    YarnConfiguration conf = conf(capacityScheduler, intraQueue);
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    conf.set(INTRA + "preemption-order-policy", order);
    conf.unset(CS + "root.default.minimum-user-limit-percent");
    return conf;
  }

  private Outcome run(YarnConfiguration conf, int steps) throws Exception {
    return run(conf, steps, "user2", 0, 0);
  }

  private Outcome run(YarnConfiguration conf, int steps, String secondUser, int firstPriority,
      int secondPriority) throws Exception {
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", NODE_GB * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", NODE_GB * GB, 8);
    RMApp first = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("default").withUser("user1")
        .withAppPriority(Priority.newInstance(firstPriority)).build());
    MockAM amFirst = LocusRmFixture.launchAndRegisterAM(first, rm, nm1);
    amFirst.allocate("*", GB, 2 * NODE_GB - 1, new ArrayList<>());
    List<Container> tasks = new ArrayList<>();
    for (int i = 0; i < LocusRmFixture.ROUNDS && tasks.size() < 2 * NODE_GB - 1; i++) {
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      tasks.addAll(amFirst.allocate(new ArrayList<>(), new ArrayList<>())
          .getAllocatedContainers());
    }
    assertEquals("the first application fills the queue", 2 * NODE_GB - 1, tasks.size());

    RMApp second = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("default").withUser(secondUser)
        .withAppPriority(Priority.newInstance(secondPriority)).build());
    Outcome out = new Outcome();
    MockAM amSecond = null;
    int secondTasks = 0;
    int last = steps;
    for (int step = 1; step <= last; step++) {
      Thread.sleep(STEP_MS);
      nm1.nodeHeartbeat(true);
      nm2.nodeHeartbeat(true);
      settle(rm);
      collect(amFirst.allocate(new ArrayList<>(), new ArrayList<>()), out.firstPreempted);
      RMAppAttempt attempt = second.getCurrentAppAttempt();
      if (amSecond == null && attempt != null && attempt.getMasterContainer() != null) {
        rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.ALLOCATED);
        amSecond = rm.sendAMLaunched(attempt.getAppAttemptId());
        amSecond.registerAppAttempt();
        amSecond.allocate("*", GB, TASKS, new ArrayList<>());
      } else if (amSecond != null) {
        AllocateResponse r = amSecond.allocate(new ArrayList<>(), new ArrayList<>());
        secondTasks += r.getAllocatedContainers().size();
        collect(r, out.secondPreempted);
      }
      if (amSecond != null && secondTasks >= TASKS && out.steps < 0) {
        out.steps = step;
        last = Math.min(steps, step + AFTER_STEPS);
      }
    }
    out.secondHolds = (amSecond == null ? 0 : 1) + secondTasks;
    rm.stop();
    return out;
  }

  @Test
  public void aUserBelowItsLimitTakesFromAUserAboveItAsUnderCapacityScheduler()
      throws Exception {
    Outcome cs = run(conf(true, true), GIVE_UP_STEPS);
    Outcome locus = run(conf(false, true), GIVE_UP_STEPS);
    LOG.info("CapacityScheduler {}; Locus {}", cs, locus);
    assertTrue("under CapacityScheduler the second application is served: " + cs,
        cs.steps > 0);
    assertTrue("under Locus the second application is served: " + locus, locus.steps > 0);
    assertEquals("CapacityScheduler takes nothing from the second application", 0,
        cs.secondPreempted.size());
    assertEquals("nor does Locus", 0, locus.secondPreempted.size());
    assertTrue("its AM and containers came from the first application: " + cs,
        cs.firstPreempted.size() >= TASKS + 1);
    assertTrue("as many of the first application's containers preempted (CapacityScheduler "
        + cs + "; Locus " + locus + ")",
        Math.abs(cs.firstPreempted.size() - locus.firstPreempted.size()) <= 1);
  }

  /** Without intra-queue preemption the second application waits, under both schedulers. */
  @Test
  public void withoutIntraQueuePreemptionTheSecondApplicationWaits() throws Exception {
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      assertWaits(capacityScheduler ? "CapacityScheduler" : "Locus",
          run(conf(capacityScheduler, false), CONTROL_STEPS));
    }
  }

  /**
   * Priority-based: user1's priority-1 application fills the queue, then user2's priority-5
   * application asks; under {@code priority_first} both schedulers take its AM and containers
   * from the first.
   */
  @Test
  public void aHigherPriorityApplicationTakesFromALowerOneAsUnderCapacityScheduler()
      throws Exception {
    Outcome cs = run(priorityConf(true, true, "priority_first"), GIVE_UP_STEPS, "user2", 1, 5);
    Outcome locus =
        run(priorityConf(false, true, "priority_first"), GIVE_UP_STEPS, "user2", 1, 5);
    LOG.info("priority: CapacityScheduler {}; Locus {}", cs, locus);
    assertTrue("under CapacityScheduler the second application is served: " + cs,
        cs.steps > 0);
    assertTrue("under Locus the second application is served: " + locus, locus.steps > 0);
    assertEquals("nothing taken from the higher-priority application", 0,
        cs.secondPreempted.size() + locus.secondPreempted.size());
    assertTrue("its AM and containers came from the first application: " + cs,
        cs.firstPreempted.size() >= TASKS + 1);
    assertTrue("as many of the first application's containers preempted (CapacityScheduler "
        + cs + "; Locus " + locus + ")",
        Math.abs(cs.firstPreempted.size() - locus.firstPreempted.size()) <= 1);
  }

  /**
   * What makes the priority case preempt, each taken away in turn: intra-queue preemption off;
   * equal priorities; and the second application being the first's own user, who already
   * holds the whole queue, its user limit (CapacityScheduler then counts none of the queue's
   * asks as pending, and its intra-queue selector does not look within it). Under both
   * schedulers the second application waits.
   */
  @Test
  public void withoutAHigherPriorityWithinItsUsersLimitTheSecondApplicationWaits()
      throws Exception {
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      String under = capacityScheduler ? "CapacityScheduler" : "Locus";
      assertWaits(under + ", intra-queue preemption off",
          run(priorityConf(capacityScheduler, false, "priority_first"), CONTROL_STEPS,
              "user2", 1, 5));
      assertWaits(under + ", equal priorities",
          run(priorityConf(capacityScheduler, true, "priority_first"), CONTROL_STEPS,
              "user2", 1, 1));
      assertWaits(under + ", one user at its limit",
          run(priorityConf(capacityScheduler, true, "priority_first"), CONTROL_STEPS,
              "user1", 1, 5));
    }
  }

  private static void assertWaits(String under, Outcome out) {
    assertEquals(under + ": nothing preempted " + out, 0, out.firstPreempted.size());
    assertEquals(under + ": the second application waits for its AM " + out, 0,
        out.secondHolds);
  }
}
