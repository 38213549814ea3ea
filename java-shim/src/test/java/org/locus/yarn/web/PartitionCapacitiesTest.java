package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * Queues dividing a node partition ({@code accessible-node-labels.<label>.capacity} and
 * {@code .maximum-capacity}) under CapacityScheduler and under Locus in one run: the containers
 * each queue gets in the partition, and the scheduler REST's per-partition figures.
 */
public class PartitionCapacitiesTest {
  private static final int GB = CapacityFileRuns.GB;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  /** The per-partition fields compared. */
  private static final String[] FIELDS = {"capacity", "usedCapacity", "maxCapacity",
      "absoluteCapacity", "absoluteUsedCapacity", "absoluteMaxCapacity"};

  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    for (String h : new String[] {"h1", "h2", "h3"}) {
      NetUtils.addStaticResolution(h, "127.0.0.1");
    }
  }

  /**
   * a and b share the default partition 50/50 and the exclusive partition x 30/70, a with a
   * maximum of 50 % of x, b of 100 %. {@code userLimitFactor} is a's.
   */
  private static YarnConfiguration divided(String userLimitFactor) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.user-limit-factor", userLimitFactor);
    conf.set(CS + "root.a.accessible-node-labels", "x");
    conf.set(CS + "root.b.accessible-node-labels", "x");
    conf.set(CS + "root.accessible-node-labels.x.capacity", "100");
    conf.set(CS + "root.a.accessible-node-labels.x.capacity", "30");
    conf.set(CS + "root.a.accessible-node-labels.x.maximum-capacity", "50");
    conf.set(CS + "root.b.accessible-node-labels.x.capacity", "70");
    conf.set(CS + "root.b.accessible-node-labels.x.maximum-capacity", "100");
    return conf;
  }

  /** What one scheduler did: containers per queue in x, and each queue's REST figures in x. */
  private static final class Outcome {
    final Map<String, Integer> placed = new TreeMap<>();
    final Map<String, JsonNode> queues = new TreeMap<>();
  }

  /** The ask of {@code count} 1 GB containers in partition {@code label}. */
  private static ResourceRequest inPartition(String label, int count) {
    return ResourceRequest.newInstance(Priority.newInstance(1), ResourceRequest.ANY,
        Resource.newInstance(GB, 1), count, true, label);
  }

  /**
   * h1 (8 GB) in the default partition runs the AMs; h2 and h3 (10 GB each) carry x. An
   * application in a asks for 30 containers in x; after a's are placed one in b asks for 30
   * more.
   */
  private Outcome run(Class<? extends ResourceScheduler> scheduler, YarnConfiguration file)
      throws Exception {
    MockRM rm = rms.start(scheduler, file);
    RMNodeLabelsManager labels = rm.getRMContext().getNodeLabelManager();
    labels.addToCluserNodeLabels(Collections.singletonList(NodeLabel.newInstance("x", true)));
    MockNM h1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM h2 = rm.registerNode("h2:1234", 10 * GB, 10);
    MockNM h3 = rm.registerNode("h3:1234", 10 * GB, 10);
    Map<NodeId, java.util.Set<String>> onNodes = new TreeMap<>();
    onNodes.put(NodeId.newInstance("h2", 1234), Collections.singleton("x"));
    onNodes.put(NodeId.newInstance("h3", 1234), Collections.singleton("x"));
    labels.replaceLabelsOnNode(onNodes);
    LocusRmFixture.settle(rm);
    Outcome out = new Outcome();
    for (String queue : new String[] {"a", "b"}) {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue(queue).build());
      MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, h1);
      am.allocate(new ArrayList<>(Collections.singletonList(inPartition("x", 30))),
          new ArrayList<>());
      LocusRmFixture.settle(rm);
      int got = 0;
      for (int round = 0; round < 12; round++) {
        for (MockNM nm : new MockNM[] {h2, h3}) {
          nm.nodeHeartbeat(true);
          LocusRmFixture.settle(rm);
        }
        got += am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers()
            .size();
      }
      out.placed.put(queue, got);
    }
    for (Map.Entry<String, JsonNode> q : RmRest.queues(rm).entrySet()) {
      out.queues.put(q.getKey(), partition(q.getValue(), "x"));
    }
    return out;
  }

  private static JsonNode partition(JsonNode queue, String label) {
    for (JsonNode p : queue.path("capacities").path("queueCapacitiesByPartition")) {
      if (label.equals(p.path("partitionName").asText())) {
        return p;
      }
    }
    return null;
  }

  private void sameUnderBoth(YarnConfiguration file, Map<String, Integer> expected)
      throws Exception {
    Outcome cs = run(CapacityScheduler.class, new YarnConfiguration(file));
    assertEquals("CapacityScheduler's containers in x", expected, cs.placed);
    Outcome locus = run(LocusScheduler.class, new YarnConfiguration(file));
    assertEquals("Locus's containers in x, against CapacityScheduler's", cs.placed,
        locus.placed);
    assertEquals("queues", cs.queues.keySet(), locus.queues.keySet());
    for (String path : cs.queues.keySet()) {
      JsonNode c = cs.queues.get(path);
      JsonNode l = locus.queues.get(path);
      assertTrue(path + ": CapacityScheduler reports no partition x", c != null);
      assertTrue(path + ": Locus reports no partition x; CS: " + c, l != null);
      for (String f : FIELDS) {
        assertEquals(path + " " + f + "\nCS:    " + c + "\nLocus: " + l,
            c.path(f).asDouble(), l.path(f).asDouble(), 1e-2);
      }
    }
  }

  /** a stops at its maximum in x, 10 of x's 20 GB; b takes the other 10. */
  @Test
  public void aQueueStopsAtItsMaximumInThePartition() throws Exception {
    Map<String, Integer> expected = new TreeMap<>();
    expected.put("a", 10);
    expected.put("b", 10);
    sameUnderBoth(divided("5"), expected);
  }

  /**
   * With the default user-limit-factor a's one user stops at a's guarantee in x (30 % of
   * 20 GB), plus the one container CapacityScheduler lets a user take past its limit.
   */
  @Test
  public void aUserStopsAtItsLimitInThePartition() throws Exception {
    Map<String, Integer> expected = new TreeMap<>();
    expected.put("a", 7);
    expected.put("b", 13);
    sameUnderBoth(divided("1"), expected);
  }

  /** Children's capacities in a partition must sum to 100 (or 0), as CapacityScheduler checks. */
  @Test
  public void childrenNotSummingTo100InAPartitionStopTheRmWithCapacitySchedulersMessage()
      throws Exception {
    YarnConfiguration file = divided("1");
    file.set(CS + "root.b.accessible-node-labels.x.capacity", "60");
    String csMessage = null;
    try {
      rms.start(CapacityScheduler.class, new YarnConfiguration(file));
      fail("CapacityScheduler started with x's children summing to 90");
    } catch (Exception e) {
      csMessage = CapacityFileRuns.messages(e);
    }
    assertTrue(csMessage, csMessage.contains("Illegal capacity sum of 0.90000004 for children"
        + " of queue root for label=x. It should be either 0 or 1.0"));
    try {
      rms.start(LocusScheduler.class, new YarnConfiguration(file));
      fail("Locus started with x's children summing to 90");
    } catch (Exception e) {
      String m = CapacityFileRuns.messages(e);
      assertTrue(m, m.contains("Illegal capacity sum of 0.90000004 for children of queue root"
          + " for label=x. It should be either 0 or 1.0"));
    }
  }
}
