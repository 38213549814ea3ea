package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * Node partitions (labels) with {@code yarn.node-labels.enabled=true}, each scenario run under
 * CapacityScheduler and under Locus with the same settings and compared: an AM asking for a
 * label lands on that label's node, an exclusive partition's node runs nothing unlabelled, a
 * non-exclusive one lends its idle room to unlabelled asks. The label is put on its node at
 * run time ({@code replaceLabelsOnNode}, as {@code rmadmin -replaceLabelsOnNode} does), after
 * both nodes registered.
 */
public class NodeLabelsTest {
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** What a scenario saw: compared whole between the two schedulers. */
  private interface Scenario {
    String run(MockRM rm, MockNM plain, MockNM labelled) throws Exception;
  }

  /**
   * The EMR layout: {@code default} may use {@code label} and holds all of it, the root's
   * share of it is 100; {@code h2} carries the label.
   */
  private String outcome(Class<? extends ResourceScheduler> scheduler, String label,
      boolean exclusive, Scenario scenario) throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.capacity", "100");
    conf.set(CS + "root.default.accessible-node-labels", label);
    conf.set(CS + "root.accessible-node-labels." + label + ".capacity", "100");
    conf.set(CS + "root.default.accessible-node-labels." + label + ".capacity", "100");
    MockRM rm = cluster.start(conf);
    RMNodeLabelsManager labels = rm.getRMContext().getNodeLabelManager();
    labels.addToCluserNodeLabels(
        Collections.singletonList(NodeLabel.newInstance(label, exclusive)));
    MockNM h1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM h2 = rm.registerNode("h2:1234", 8 * GB, 8);
    labels.replaceLabelsOnNode(Collections.singletonMap(NodeId.newInstance("h2", 1234),
        Collections.singleton(label)));
    LocusRmFixture.settle(rm);
    try {
      return scenario.run(rm, h1, h2);
    } catch (Exception refused) {
      Throwable cause = refused;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      return "refused: " + cause.getMessage();
    }
  }

  private void bothSee(String expected, String label, boolean exclusive, Scenario scenario)
      throws Exception {
    String cs = outcome(CapacityScheduler.class, label, exclusive, scenario);
    assertEquals("CapacityScheduler", expected, cs);
    String locus = outcome(LocusScheduler.class, label, exclusive, scenario);
    assertEquals("Locus, against CapacityScheduler's " + cs, cs, locus);
  }

  /** Submits with the AM's label expression and heartbeats both nodes until the AM is placed. */
  private static RMApp submitWithAmLabel(MockRM rm, String label, MockNM... nms)
      throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("default").withAmLabel(label).build());
    for (int i = 0; i < LocusRmFixture.ROUNDS; i++) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt != null && attempt.getMasterContainer() != null) {
        break;
      }
      for (MockNM nm : nms) {
        nm.nodeHeartbeat(true);
        LocusRmFixture.settle(rm);
      }
    }
    return app;
  }

  private static String amHost(RMApp app) {
    Container am = app.getCurrentAppAttempt().getMasterContainer();
    return am == null ? "none" : am.getNodeId().getHost();
  }

  /** Launches and registers the AM placed on {@code nm}, then asks for unlabelled containers. */
  private static MockAM askUnlabelled(MockRM rm, RMApp app, MockNM nm, int count)
      throws Exception {
    MockAM am = rm.sendAMLaunched(app.getCurrentAppAttempt().getAppAttemptId());
    am.registerAppAttempt();
    am.allocate(ResourceRequest.ANY, GB, count, new ArrayList<>());
    LocusRmFixture.settle(rm);
    return am;
  }

  /** Containers per host over {@code rounds} heartbeats of every node. */
  private static Map<String, Integer> placed(MockRM rm, MockAM am, int rounds, MockNM... nms)
      throws Exception {
    Map<String, Integer> byHost = new TreeMap<>();
    for (int i = 0; i < rounds; i++) {
      for (MockNM nm : nms) {
        nm.nodeHeartbeat(true);
        LocusRmFixture.settle(rm);
      }
      List<Container> got = am.allocate(new ArrayList<>(), new ArrayList<>())
          .getAllocatedContainers();
      for (Container c : got) {
        byHost.merge(c.getNodeId().getHost(), 1, Integer::sum);
      }
    }
    return byHost;
  }

  @Test
  public void anAmWithALabelExpressionLandsOnTheLabelledNode() throws Exception {
    bothSee("AM on h2", "CORE", false,
        (rm, h1, h2) -> "AM on " + amHost(submitWithAmLabel(rm, "CORE", h1, h2)));
  }

  @Test
  public void anExclusivePartitionsNodeRunsNoUnlabelledWork() throws Exception {
    bothSee("AM on h2, tasks {h1=4}", "GPU", true, (rm, h1, h2) -> {
      RMApp app = submitWithAmLabel(rm, "GPU", h1, h2);
      String where = amHost(app);
      if (!"h2".equals(where)) {
        return "AM on " + where;
      }
      MockAM am = askUnlabelled(rm, app, h2, 4);
      // h2 has 7 GB idle all along; none of it goes to the unlabelled asks.
      return "AM on h2, tasks " + placed(rm, am, 6, h2, h1);
    });
  }

  @Test
  public void aNonExclusivePartitionLendsItsIdleRoomToUnlabelledAsks() throws Exception {
    bothSee("AM on h2, tasks 12, some on h2: true", "CORE", false, (rm, h1, h2) -> {
      RMApp app = submitWithAmLabel(rm, "CORE", h1, h2);
      String where = amHost(app);
      if (!"h2".equals(where)) {
        return "AM on " + where;
      }
      // More than h1 holds: the rest can only run on h2's idle room.
      MockAM am = askUnlabelled(rm, app, h2, 12);
      Map<String, Integer> got = placed(rm, am, 12, h1, h2);
      int total = got.values().stream().mapToInt(Integer::intValue).sum();
      return "AM on h2, tasks " + total + ", some on h2: " + got.containsKey("h2");
    });
  }
}
