package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * A leaf's {@code ordering-policy}: under {@code fair} its applications take turns by the
 * memory they hold, under {@code fifo} (the default) the earlier one gets all it asks for
 * first; the containers each application gets, under CapacityScheduler and under Locus in the
 * same run.
 */
public class FairOrderingTest {
  private static final String CS = AgainstCapacityScheduler.CS;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /**
   * Queue a (half the cluster, its one user may take all of it) runs two applications of the
   * same user, their AMs on h1; each asks for eight 1 GB containers, and h2's 8 GB is shared
   * between them over its heartbeats.
   */
  private List<Integer> run(boolean capacityScheduler, String ordering) throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    if (capacityScheduler) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    }
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.maximum-capacity", "100");
    conf.set(CS + "root.a.user-limit-factor", "2");
    conf.set(CS + "root.a.maximum-am-resource-percent", "0.5");
    if (ordering != null) {
      conf.set(CS + "root.a.ordering-policy", ordering);
    }
    MockRM rm = cluster.start(conf);
    try {
      MockNM h1 = rm.registerNode("h1:1234", 4 * GB, 4);
      MockNM h2 = rm.registerNode("h2:1234", 8 * GB, 8);
      List<MockAM> ams = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
            .createWithMemory(GB, rm).withQueue("a").withUser("alice").build());
        ams.add(LocusRmFixture.launchAndRegisterAM(app, rm, h1));
      }
      for (MockAM am : ams) {
        am.allocate(new ArrayList<>(Collections.singletonList(ResourceRequest.newInstance(
            Priority.newInstance(1), ResourceRequest.ANY, Resource.newInstance(GB, 1), 8))),
            new ArrayList<>());
      }
      LocusRmFixture.settle(rm);
      List<Integer> got = new ArrayList<>(Collections.nCopies(ams.size(), 0));
      for (int round = 0; round < 8; round++) {
        h2.nodeHeartbeat(true);
        LocusRmFixture.settle(rm);
        for (int i = 0; i < ams.size(); i++) {
          got.set(i, got.get(i) + ams.get(i).allocate(new ArrayList<>(), new ArrayList<>())
              .getAllocatedContainers().size());
        }
      }
      return got;
    } finally {
      rm.stop();
    }
  }

  private void sameUnderBoth(String ordering, List<Integer> expected) throws Exception {
    List<Integer> cs = run(true, ordering);
    assertEquals("CapacityScheduler, ordering-policy=" + ordering, expected, cs);
    assertEquals("Locus against CapacityScheduler, ordering-policy=" + ordering, cs,
        run(false, ordering));
  }

  @Test
  public void aFairLeafSharesANodeBetweenItsApplications() throws Exception {
    sameUnderBoth("fair", java.util.Arrays.asList(4, 4));
  }

  @Test
  public void aFifoLeafServesTheEarlierApplicationFirst() throws Exception {
    sameUnderBoth(null, java.util.Arrays.asList(8, 0));
  }

  /**
   * CapacityScheduler's intra-queue preemption orders a fair leaf's applications by their fair
   * order (under the default userlimit_first), which Locus's intra-queue rounds do not: the
   * combination stops Locus's RM at start naming the keys.
   */
  @Test
  public void intraQueuePreemptionOverAFairLeafIsRefusedAtStart() throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.ordering-policy", "fair");
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, MonitorPolicies.PROPORTIONAL);
    conf.setBoolean(org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
        .CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED, true);
    try {
      cluster.start(conf).stop();
      org.junit.Assert.fail("Locus started");
    } catch (Exception e) {
      String messages = LocusRmFixture.messages(e);
      org.junit.Assert.assertTrue(messages, messages.contains("root.a.ordering-policy is fair"));
    }
    conf.set(org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
        .CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ORDER_POLICY, "priority_first");
    cluster.start(conf).stop();
  }
}
