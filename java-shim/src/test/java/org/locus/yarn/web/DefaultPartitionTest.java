package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;

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
 * The default partition's queue figures under CapacityScheduler and under Locus in one run,
 * with a non-exclusive labelled node beside the unlabelled ones (Amazon EMR's layout): a
 * queue's maximum-capacity and user limit there are of the unlabelled nodes' memory, and the
 * scheduler REST reports the default partition's used and effective figures of those nodes.
 */
public class DefaultPartitionTest {
  private static final int GB = CapacityFileRuns.GB;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  /** The default partition's fields compared. */
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
   * a (capacity 50, maximum {@code aMaximum}, user-limit-factor {@code aFactor}) and b (50,
   * 100) share the default partition; the non-exclusive CORE is b's whole.
   */
  private static YarnConfiguration emrLike(String aMaximum, String aFactor) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.a.maximum-capacity", aMaximum);
    conf.set(CS + "root.a.user-limit-factor", aFactor);
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.b.accessible-node-labels", "CORE");
    conf.set(CS + "root.accessible-node-labels.CORE.capacity", "100");
    conf.set(CS + "root.b.accessible-node-labels.CORE.capacity", "100");
    return conf;
  }

  /** What one scheduler did: containers per queue, and each queue's REST figures. */
  private static final class Outcome {
    final Map<String, Integer> placed = new TreeMap<>();
    final Map<String, JsonNode> queues = new TreeMap<>();
  }

  private static ResourceRequest unlabelled(int count) {
    return ResourceRequest.newInstance(Priority.newInstance(1), ResourceRequest.ANY,
        Resource.newInstance(GB, 1), count, true, "");
  }

  /**
   * h1 and h2 (8 GB each) have no label, h3 (16 GB) is CORE; a's AM runs on h1, b's on h2.
   * a asks for 30 containers and the unlabelled nodes heartbeat; then b asks for 30.
   */
  private Outcome run(Class<? extends ResourceScheduler> scheduler, YarnConfiguration file)
      throws Exception {
    MockRM rm = rms.start(scheduler, file);
    RMNodeLabelsManager labels = rm.getRMContext().getNodeLabelManager();
    labels.addToCluserNodeLabels(
        Collections.singletonList(NodeLabel.newInstance("CORE", false)));
    MockNM h1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM h2 = rm.registerNode("h2:1234", 8 * GB, 8);
    rm.registerNode("h3:1234", 16 * GB, 16);
    labels.replaceLabelsOnNode(Collections.singletonMap(NodeId.newInstance("h3", 1234),
        Collections.singleton("CORE")));
    LocusRmFixture.settle(rm);
    Map<String, MockAM> ams = new TreeMap<>();
    for (String queue : new String[] {"a", "b"}) {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue(queue).build());
      ams.put(queue, LocusRmFixture.launchAndRegisterAM(app, rm, queue.equals("a") ? h1 : h2));
    }
    Outcome out = new Outcome();
    for (Map.Entry<String, MockAM> e : ams.entrySet()) {
      MockAM am = e.getValue();
      am.allocate(new ArrayList<>(Collections.singletonList(unlabelled(30))),
          new ArrayList<>());
      LocusRmFixture.settle(rm);
      int got = 0;
      for (int round = 0; round < 12; round++) {
        for (MockNM nm : new MockNM[] {h1, h2}) {
          nm.nodeHeartbeat(true);
          LocusRmFixture.settle(rm);
        }
        got += am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers()
            .size();
      }
      out.placed.put(e.getKey(), got);
    }
    out.queues.putAll(RmRest.queues(rm));
    return out;
  }

  private void sameUnderBoth(YarnConfiguration file, Map<String, Integer> expected)
      throws Exception {
    Outcome cs = run(CapacityScheduler.class, new YarnConfiguration(file));
    assertEquals("CapacityScheduler's containers", expected, cs.placed);
    Outcome locus = run(LocusScheduler.class, new YarnConfiguration(file));
    assertEquals("Locus's containers, against CapacityScheduler's", cs.placed, locus.placed);
    assertEquals("queues", cs.queues.keySet(), locus.queues.keySet());
    for (String path : cs.queues.keySet()) {
      JsonNode c = cs.queues.get(path);
      JsonNode l = locus.queues.get(path);
      for (String f : new String[] {"usedCapacity", "absoluteUsedCapacity"}) {
        assertEquals(path + " " + f, c.path(f).asDouble(), l.path(f).asDouble(), 1e-2);
      }
      JsonNode cd = RmRest.defaultPartition(c);
      JsonNode ld = RmRest.defaultPartition(l);
      String both = "\nCS:    " + cd + "\nLocus: " + ld;
      for (String f : FIELDS) {
        assertEquals(path + " " + f + both, cd.path(f).asDouble(), ld.path(f).asDouble(), 1e-2);
      }
      for (String r : new String[] {"effectiveMinResource", "effectiveMaxResource"}) {
        for (String t : new String[] {"memory", "vCores"}) {
          assertEquals(path + " " + r + "." + t + both, cd.path(r).path(t).asLong(),
              ld.path(r).path(t).asLong());
        }
      }
    }
  }

  /**
   * a stops at 50 % of the 16 GB with no label (its AM and 7 containers), not of the 32 GB
   * cluster; b takes the rest.
   */
  @Test
  public void aQueueStopsAtItsMaximumOfTheUnlabelledNodes() throws Exception {
    Map<String, Integer> expected = new TreeMap<>();
    expected.put("a", 7);
    expected.put("b", 7);
    sameUnderBoth(emrLike("50", "5"), expected);
  }

  /**
   * a's one user stops at a's guarantee of the unlabelled nodes (8 GB, its AM included), plus
   * the one container CapacityScheduler lets a user take past its limit.
   */
  @Test
  public void aUserStopsAtItsLimitOfTheUnlabelledNodes() throws Exception {
    Map<String, Integer> expected = new TreeMap<>();
    expected.put("a", 8);
    expected.put("b", 6);
    sameUnderBoth(emrLike("100", "1"), expected);
  }
}
