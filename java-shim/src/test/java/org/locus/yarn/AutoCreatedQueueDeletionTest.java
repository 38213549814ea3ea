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
      for (String user : new String[] {"alice", "bob", "carol"}) {
        apps.add(MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
            .createWithMemory(LocusRmFixture.GB, rm).withUser(user)
            .withQueue("root.users." + user).build()));
      }
      for (int i : new int[] {0, 2}) {
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
      for (int round = 0; round < 2; round++) {
        policy.editSchedule();
        LocusRmFixture.settle(rm);
      }
      out.add("after: " + present(rm));
      return out;
    } finally {
      rm.stop();
    }
  }

  /** The children of root.users, as the RM's queue records list them. */
  private static List<String> present(MockRM rm) throws IOException {
    List<String> out = new ArrayList<>();
    for (QueueInfo child : rm.getResourceScheduler().getQueueInfo("root.users", true, false)
        .getChildQueues()) {
      out.add(child.getQueueName());
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
}
