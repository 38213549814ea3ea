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
 * A capacity-scheduler.xml with the legacy queue mode off (root.a [memory=50%,vcores=2w] up to
 * the whole cluster, split into a1 [memory=2048,vcores=1w] and a2 1w; root.b
 * [memory=1w,vcores=4]) on the embedded cluster, no {@code locus.policy} set: Hadoop's pi runs
 * in {@code root.a.a1} under CapacityScheduler and under Locus, the RM's report names that
 * queue, and the scheduler REST reports the same effective capacities under both.
 */
public class VectorModeOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("vector-mode", 2, 1);
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Map<String, String> vectors() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "legacy-queue-mode.enabled", "false");
    s.put(CS + "root.queues", "a,b");
    s.put(CS + "root.a.capacity", "[memory=50%,vcores=2w]");
    s.put(CS + "root.a.maximum-capacity", "[memory=100%,vcores=100%]");
    s.put(CS + "root.b.capacity", "[memory=1w,vcores=4]");
    s.put(CS + "root.a.queues", "a1,a2");
    s.put(CS + "root.a.a1.capacity", "[memory=2048,vcores=1w]");
    s.put(CS + "root.a.a2.capacity", "1w");
    return s;
  }

  /** Runs pi in root.a.a1 under {@code scheduler}; returns the queues as REST shows them. */
  private static Map<String, JsonNode> piInA1(String scheduler) throws Exception {
    cluster.startYarn(scheduler, vectors());
    try {
      Configuration conf = cluster.clientConf();
      conf.set(MRJobConfig.QUEUE_NAME, "root.a.a1");
      BigDecimal pi = QuasiMonteCarlo.estimatePi(1, 10,
          new Path("/tmp/pi-" + scheduler.substring(scheduler.lastIndexOf('.') + 1)), conf);
      assertEquals(scheduler + ": pi", 3.0, pi.doubleValue(), 1.0);
      ClusterRest.assertOneFinishedAppIn(cluster, scheduler, "root.a.a1");
      return ClusterRest.schedulerQueues(cluster);
    } finally {
      cluster.stopYarn();
    }
  }

  @Test
  public void piRunsInItsVectorLeafWithCapacitySchedulersFigures() throws Exception {
    Map<String, JsonNode> cs = piInA1(CAPACITY_SCHEDULER);
    Map<String, JsonNode> locus = piInA1(EmbeddedCluster.LOCUS_SCHEDULER);
    assertEquals(cs.keySet(), locus.keySet());
    assertTrue(cs.toString(), cs.containsKey("root.a.a1"));
    assertEquals("mixed", cs.get("root.a.a1").path("mode").asText());
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
  }
}
