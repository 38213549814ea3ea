package org.locus.it;

import static org.junit.Assert.assertEquals;

import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Amazon EMR's layout on the embedded cluster: node labels on, a non-exclusive {@code CORE}
 * label put on one of two NodeManagers at run time, {@code default} granted it (100 of it, as
 * EMR writes the file), and Hadoop's pi submitted with
 * {@code mapreduce.job.am.node-label-expression=CORE}: the job's AM runs on the CORE node under
 * CapacityScheduler and under Locus.
 */
public class NodeLabelsOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";

  private static EmbeddedCluster cluster;
  private static File labelStore;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("node-labels", 2, 1);
    labelStore = Files.createTempDirectory("locus-node-labels-").toFile();
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (labelStore != null) {
      FileUtil.fullyDelete(labelStore);
    }
  }

  private static Map<String, String> emr(String scheduler) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(YarnConfiguration.NODE_LABELS_ENABLED, "true");
    // Each start its own store: labels a previous start saved must not come back.
    s.put(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(labelStore, scheduler.substring(scheduler.lastIndexOf('.') + 1)).toURI()
            .toString());
    s.put(CS + "root.queues", "default");
    s.put(CS + "root.default.capacity", "100");
    s.put(CS + "root.default.accessible-node-labels", "CORE");
    s.put(CS + "root.accessible-node-labels.CORE.capacity", "100");
    s.put(CS + "root.default.accessible-node-labels.CORE.capacity", "100");
    return s;
  }

  /** Runs pi with its AM asking for CORE; returns the host its AM ran on. */
  private static String amHostOfPi(String scheduler, NodeId[] core) throws Exception {
    cluster.startYarn(scheduler, emr(scheduler));
    try {
      ResourceManager rm = cluster.resourceManager();
      NodeId labelled = cluster.nodeManager(0).getNMContext().getNodeId();
      core[0] = labelled;
      rm.getRMContext().getNodeLabelManager().addToCluserNodeLabels(
          Collections.singletonList(NodeLabel.newInstance("CORE", false)));
      rm.getRMContext().getNodeLabelManager().replaceLabelsOnNode(
          Collections.singletonMap(labelled, Collections.singleton("CORE")));
      // The scheduler hears of the label through its event queue; wait until it has.
      for (int i = 0; i < 600; i++) {
        SchedulerNode n = ((org.apache.hadoop.yarn.server.resourcemanager.scheduler
            .AbstractYarnScheduler<?, ?>) rm.getResourceScheduler()).getSchedulerNode(labelled);
        if (n != null && "CORE".equals(n.getPartition())) {
          break;
        }
        Thread.sleep(50);
      }
      Configuration conf = cluster.clientConf();
      conf.set("mapreduce.job.am.node-label-expression", "CORE");
      BigDecimal pi = QuasiMonteCarlo.estimatePi(2, 10,
          new Path("/tmp/pi-labels-" + scheduler.substring(scheduler.lastIndexOf('.') + 1)),
          conf);
      assertEquals(scheduler + ": pi", 3.0, pi.doubleValue(), 1.0);
      assertEquals(1, rm.getRMContext().getRMApps().size());
      RMApp app = rm.getRMContext().getRMApps().values().iterator().next();
      Container am = app.getCurrentAppAttempt().getMasterContainer();
      return am.getNodeId().getHost();
    } finally {
      cluster.stopYarn();
    }
  }

  @Test
  public void piRunsItsAmOnTheCoreNodeUnderBothSchedulers() throws Exception {
    NodeId[] core = new NodeId[1];
    String cs = amHostOfPi(CAPACITY_SCHEDULER, core);
    assertEquals("CapacityScheduler", core[0].getHost(), cs);
    String locus = amHostOfPi(EmbeddedCluster.LOCUS_SCHEDULER, core);
    assertEquals("Locus", core[0].getHost(), locus);
  }
}
