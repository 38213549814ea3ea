package org.locus.yarn;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * Idle auto-created queues removed as CapacityScheduler's {@code AutoCreatedQueueDeletionPolicy}
 * removes them, under CapacityScheduler and under Locus in one run: with the policy in the
 * monitor's list, a created leaf whose applications are gone and which saw no submission for
 * longer than {@code queue-expiration-time} is removed after two rounds of the policy; a created
 * leaf with a running application stays, as does one whose {@code queue-auto-removal.enable} is
 * off.
 */
public class AutoCreatedQueueDeletionTest {
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private List<String> run(boolean capacityScheduler) throws Exception {
    return run(capacityScheduler, new String[] {"root.users.alice", "root.users.bob",
        "root.users.carol"}, new int[] {0, 2}, 2);
  }

  /**
   * Submits one application to each of {@code queues} (users alice, bob, ... in turn), kills
   * those at {@code killed}, waits out the expiration time, then runs the policy
   * {@code rounds} times.
   */
  private List<String> run(boolean capacityScheduler, String[] queues, int[] killed,
      int rounds) throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    if (capacityScheduler) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    }
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "1w");
    conf.set(CS + "root.users.capacity", "1w");
    conf.set(CS + "root.users.auto-queue-creation-v2.enabled", "true");
    conf.set(CS + "root.users.carol.auto-queue-creation-v2.queue-auto-removal.enable", "false");
    conf.set(CS + "auto-queue-creation-v2.queue-expiration-time", "1");
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
        AutoCreatedQueueDeletionPolicy.class.getName());
    MockRM rm = cluster.start(conf);
    try {
      MockNM nm = rm.registerNode("h1:1234", 8 * LocusRmFixture.GB, 8);
      nm.nodeHeartbeat(true);
      List<RMApp> apps = new ArrayList<>();
      String[] users = {"alice", "bob", "carol", "dave"};
      for (int i = 0; i < queues.length; i++) {
        apps.add(MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
            .createWithMemory(LocusRmFixture.GB, rm).withUser(users[i])
            .withQueue(queues[i]).build()));
      }
      for (int i : killed) {
        rm.killApp(apps.get(i).getApplicationId());
        rm.waitForState(apps.get(i).getApplicationId(), RMAppState.KILLED);
      }
      LocusRmFixture.settle(rm);
      List<String> out = new ArrayList<>();
      out.add("before: " + present(rm));
      // Idle for longer than the expiration time (whole seconds, as the policy counts them).
      Thread.sleep(2100);
      SchedulingEditPolicy policy = capacityScheduler ? new AutoCreatedQueueDeletionPolicy()
          : new LocusQueueDeletionPolicy();
      policy.init(conf, rm.getRMContext(), rm.getResourceScheduler());
      for (int round = 0; round < rounds; round++) {
        policy.editSchedule();
        LocusRmFixture.settle(rm);
      }
      out.add("after: " + present(rm));
      return out;
    } finally {
      rm.stop();
    }
  }

  /** The queues under root.users, as the RM's queue records list them, by path. */
  private static List<String> present(MockRM rm) throws IOException {
    List<String> out = new ArrayList<>();
    for (QueueInfo child : rm.getResourceScheduler().getQueueInfo("root.users", true, true)
        .getChildQueues()) {
      out.add(child.getQueueName());
      for (QueueInfo grandchild : child.getChildQueues()) {
        out.add(child.getQueueName() + "." + grandchild.getQueueName());
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  @Test
  public void anIdleCreatedQueueIsRemovedAsUnderCapacityScheduler() throws Exception {
    List<String> cs = run(true);
    assertEquals("[before: [alice, bob, carol], after: [bob, carol]]", cs.toString());
    assertEquals(cs, run(false));
  }

  /**
   * A created parent left without children once its idle leaf is removed goes too, two rounds
   * later (it is marked first, as any queue); one whose other leaf still runs an application
   * stays with it.
   */
  @Test
  public void aCreatedParentLeftEmptyIsRemovedAfterItsLeaf() throws Exception {
    String[] queues = {"root.users.alice.a", "root.users.bob.b", "root.users.bob.c"};
    List<String> cs = run(true, queues, new int[] {0, 1}, 4);
    assertEquals("[before: [alice, alice.a, bob, bob.b, bob.c], after: [bob, bob.c]]",
        cs.toString());
    assertEquals(cs, run(false, queues, new int[] {0, 1}, 4));
  }
}
