package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * capacity-scheduler.xml files in each capacity mode an operator ships on the embedded cluster,
 * no {@code locus.policy} set: Hadoop's pi runs in {@code root.a.a1} under CapacityScheduler and
 * under Locus, the RM's report names that queue, and the scheduler REST reports the same
 * effective capacities under both. One HDFS serves every file; YARN restarts per run.
 */
public class CapacityModesOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("capacity-modes", 2, 1);
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** root.a split into a1 and a2, and root.b, with the capacities given in that order. */
  private static Map<String, String> file(String a, String b, String a1, String a2) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "root.queues", "a,b");
    s.put(CS + "root.a.capacity", a);
    s.put(CS + "root.b.capacity", b);
    s.put(CS + "root.a.queues", "a1,a2");
    s.put(CS + "root.a.a1.capacity", a1);
    s.put(CS + "root.a.a2.capacity", a2);
    return s;
  }

  /** Runs pi in root.a.a1 under {@code scheduler}; returns the queues as REST shows them. */
  private static Map<String, JsonNode> piInA1(String scheduler, Map<String, String> file)
      throws Exception {
    cluster.startYarn(scheduler, file);
    try {
      Configuration conf = cluster.clientConf();
      conf.set(MRJobConfig.QUEUE_NAME, "root.a.a1");
      BigDecimal pi = QuasiMonteCarlo.estimatePi(1, 10,
          new Path("/tmp/pi-" + scheduler.substring(scheduler.lastIndexOf('.') + 1)
              + "-" + file.hashCode()), conf);
      assertEquals(scheduler + ": pi", 3.0, pi.doubleValue(), 1.0);
      ClusterRest.assertOneFinishedAppIn(cluster, scheduler, "root.a.a1");
      return ClusterRest.schedulerQueues(cluster);
    } finally {
      cluster.stopYarn();
    }
  }

  /** Runs the file under both schedulers and compares REST; returns CapacityScheduler's view. */
  private static Map<String, JsonNode> sameFigures(Map<String, String> file) throws Exception {
    Map<String, JsonNode> cs = piInA1(CAPACITY_SCHEDULER, file);
    Map<String, JsonNode> locus = piInA1(EmbeddedCluster.LOCUS_SCHEDULER, file);
    assertEquals(cs.keySet(), locus.keySet());
    assertTrue(cs.toString(), cs.containsKey("root.a.a1"));
    for (String path : cs.keySet()) {
      JsonNode c = cs.get(path);
      JsonNode l = locus.get(path);
      assertEquals(path + " mode", c.path("mode").asText(), l.path("mode").asText());
      for (String f : new String[] {"capacity", "absoluteCapacity", "maxCapacity",
          "absoluteMaxCapacity", "weight", "normalizedWeight"}) {
        assertEquals(path + " " + f, c.path(f).asDouble(), l.path(f).asDouble(), 1e-3);
      }
      for (String r : new String[] {"effectiveMinResource", "effectiveMaxResource"}) {
        for (String unit : new String[] {"memory", "vCores"}) {
          assertEquals(path + " " + r + " " + unit,
              ClusterRest.defaultPartition(c).path(r).path(unit).asLong(),
              ClusterRest.defaultPartition(l).path(r).path(unit).asLong());
        }
      }
    }
    return cs;
  }

  /** Weight mode, Cloudera's default for an upgraded cluster, with nested weights. */
  @Test
  public void piRunsInItsWeightedLeafWithCapacitySchedulersFigures() throws Exception {
    sameFigures(file("2w", "1w", "1w", "3w"));
  }

  /** Absolute mode: a up to the whole cluster, its leaves and b as fixed resources. */
  @Test
  public void piRunsInItsAbsoluteLeafWithCapacitySchedulersFigures() throws Exception {
    Map<String, JsonNode> cs = sameFigures(file("[memory=4096,vcores=4]",
        "[memory=2048,vcores=2]", "[memory=2048,vcores=2]", "[memory=2048,vcores=2]"));
    for (String path : cs.keySet()) {
      assertEquals(path + " mode", "absolute", cs.get(path).path("mode").asText());
    }
  }

  /** The universal capacity vector (legacy queue mode off), each type in its own mode. */
  @Test
  public void piRunsInItsVectorLeafWithCapacitySchedulersFigures() throws Exception {
    Map<String, String> file = file("[memory=50%,vcores=2w]", "[memory=1w,vcores=4]",
        "[memory=2048,vcores=1w]", "1w");
    file.put(CS + "legacy-queue-mode.enabled", "false");
    file.put(CS + "root.a.maximum-capacity", "[memory=100%,vcores=100%]");
    Map<String, JsonNode> cs = sameFigures(file);
    assertEquals("mixed", cs.get("root.a.a1").path("mode").asText());
  }
}
