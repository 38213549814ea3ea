package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.queue.QueueFile;

/**
 * capacity-scheduler.xml keys that ask for a limit or policy Locus does not implement stop the
 * RM at start (and a refresh adding one is refused) naming the key, where CapacityScheduler
 * starts on the same file; the same keys at values whose effect is CapacityScheduler's default,
 * and CapacityScheduler's own scheduling techniques (its locality delays), start as before.
 */
public class RefusedKeysTest {
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;

  @Rule
  public final LocusRmFixture fixture = new LocusRmFixture();

  /** root: a 50 %, b 50 %, under the capacity policy and Hadoop's defaults otherwise. */
  private static YarnConfiguration twoQueues(Class<? extends ResourceScheduler> scheduler) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    return conf;
  }

  /** Each entry: the keys set, and the key the refusal must name. */
  private static Map<String[], String> refused() {
    Map<String[], String> m = new LinkedHashMap<>();
    m.put(new String[] {CS + "root.a.ordering-policy", "fifo-with-partitions"},
        CS + "root.a.ordering-policy");
    m.put(new String[] {CS + "lazy-preemption-enabled", "true"}, CS + "lazy-preemption-enabled");
    m.put(new String[] {CS + "root.a.user-settings.alice.weight", "0.5"},
        CS + "root.a.user-settings.alice.weight");
    m.put(new String[] {CS + "root.a.reservable", "true"}, CS + "root.a.reservable");
    m.put(new String[] {CS + "root.a.accessible-node-labels", "x",
        CS + "root.a.accessible-node-labels.x.capacity", "100",
        CS + "root.a.accessible-node-labels.x.maximum-am-resource-percent", "0.5"},
        CS + "root.a.accessible-node-labels.x.maximum-am-resource-percent");
    m.put(new String[] {CS + "workflow-priority-mappings", "wf1:a:2"},
        CS + "workflow-priority-mappings");
    m.put(new String[] {
        CS + "ordering-policy.priority-utilization.underutilized-preemption.enabled", "true"},
        CS + "ordering-policy.priority-utilization.underutilized-preemption.enabled");
    m.put(new String[] {CS + "root.ordering-policy", "priority-utilization",
        CS + "root.a.priority", "1"}, CS + "root.a.priority");
    return m;
  }

  private static void set(YarnConfiguration conf, String[] keys) {
    for (int i = 0; i < keys.length; i += 2) {
      conf.set(keys[i], keys[i + 1]);
    }
  }

  @Test
  public void aLimitLocusDoesNotImplementStopsTheStartNamingTheKey() throws Exception {
    for (Map.Entry<String[], String> e : refused().entrySet()) {
      String named = e.getValue();
      // Every file here is one CapacityScheduler runs.
      YarnConfiguration underCs = twoQueues(CapacityScheduler.class);
      set(underCs, e.getKey());
      MockRM cs = fixture.start(underCs);
      assertEquals(named, QueueState.RUNNING,
          cs.getResourceScheduler().getQueueInfo("a", false, false).getQueueState());
      cs.stop();

      YarnConfiguration conf = twoQueues(LocusScheduler.class);
      set(conf, e.getKey());
      try {
        MockRM rm = fixture.start(conf);
        // A key whose limit CapacityScheduler's readers of the file honour in the shim (once
        // they do) is no longer refused; the entry goes then.
        fail(named + " was not refused; queues "
            + rm.getResourceScheduler().getQueueInfo("root", false, false));
      } catch (Exception refused) {
        String m = LocusRmFixture.messages(refused);
        assertTrue(named + ": " + m, m.contains(named + "="));
        assertTrue(named + ": " + m, m.contains("Locus cannot honour this"));
      }
    }
  }

  /**
   * The same keys at values whose effect is CapacityScheduler's default start: a priority its
   * parent's ordering does not weigh, one priority among siblings under priority-utilization
   * (which then orders as utilization does), the queue's own AM share for a partition.
   * CapacityScheduler's locality delay, which Locus's locality layer replaces, starts too.
   */
  @Test
  public void theSameKeysWithoutEffectStart() throws Exception {
    YarnConfiguration conf = twoQueues(LocusScheduler.class);
    conf.set(CS + "lazy-preemption-enabled", "false");
    conf.set(CS + "root.a.user-settings.alice.weight", "1.0");
    conf.set(CS + "root.a.reservable", "false");
    conf.set(CS + "root.a.accessible-node-labels", "x");
    conf.set(CS + "root.a.accessible-node-labels.x.capacity", "100");
    conf.set(CS + "root.a.accessible-node-labels.x.maximum-am-resource-percent", "0.1");
    conf.set(CS + "root.ordering-policy", "priority-utilization");
    conf.set(CS + "root.a.priority", "3");
    conf.set(CS + "root.b.priority", "3");
    conf.set(CS + "root.a.max-parallel-apps", String.valueOf(Integer.MAX_VALUE));
    conf.set(CS + "node-locality-delay", "40");
    conf.set(CS + "rack-locality-additional-delay", "-1");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    assertEquals("[]", file.refused().toString());
    MockRM rm = fixture.start(conf);
    assertEquals(QueueState.RUNNING,
        rm.getResourceScheduler().getQueueInfo("a", false, false).getQueueState());

    YarnConfiguration utilization = twoQueues(LocusScheduler.class);
    utilization.set(CS + "root.a.priority", "1");
    assertEquals("a priority no ordering reads", "[]", QueueFile.parse(
        new CapacitySchedulerConfiguration(utilization, false)).refused().toString());
  }

  @Test
  public void aRefreshAddingALimitLocusDoesNotImplementIsRefused() throws Exception {
    MockRM rm = fixture.start(twoQueues(LocusScheduler.class));
    LocusScheduler s = LocusRmFixture.scheduler(rm);
    String coreQueues = s.currentCore().capacityQueues();
    YarnConfiguration lazy = twoQueues(LocusScheduler.class);
    lazy.set(CS + "root.a.capacity", "40");
    lazy.set(CS + "root.b.capacity", "60");
    lazy.set(CS + "lazy-preemption-enabled", "true");
    try {
      s.reinitialize(lazy, rm.getRMContext());
      fail("a refresh turning lazy preemption on was taken");
    } catch (IOException e) {
      assertTrue(LocusRmFixture.messages(e),
          LocusRmFixture.messages(e).contains(CS + "lazy-preemption-enabled=true"));
    }
    assertEquals("the core's queues", coreQueues, s.currentCore().capacityQueues());
    assertEquals("a keeps 50 %", 0.5f, s.getQueueInfo("a", false, false).getCapacity(), 1e-4);
  }
}
