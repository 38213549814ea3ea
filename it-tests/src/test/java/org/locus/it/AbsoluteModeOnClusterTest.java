package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.io.IOUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A capacity-scheduler.xml in absolute mode (root.a [memory=4096,vcores=4] up to the whole
 * cluster, split into a1 [memory=2048,vcores=2] and a2 [memory=2048,vcores=2]; root.b
 * [memory=2048,vcores=2]) on the embedded cluster, no {@code locus.policy} set: Hadoop's pi
 * runs in {@code root.a.a1} under CapacityScheduler and under Locus, the RM's report names that
 * queue, and the scheduler REST reports the same effective capacities under both.
 */
public class AbsoluteModeOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("absolute-mode", 2, 1);
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Map<String, String> absolute() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "root.queues", "a,b");
    s.put(CS + "root.a.capacity", "[memory=4096,vcores=4]");
    s.put(CS + "root.b.capacity", "[memory=2048,vcores=2]");
    s.put(CS + "root.a.queues", "a1,a2");
    s.put(CS + "root.a.a1.capacity", "[memory=2048,vcores=2]");
    s.put(CS + "root.a.a2.capacity", "[memory=2048,vcores=2]");
    return s;
  }

  /** Runs pi in root.a.a1 under {@code scheduler}; returns the queues as REST shows them. */
  private static Map<String, JsonNode> piInA1(String scheduler) throws Exception {
    cluster.startYarn(scheduler, absolute());
    try {
      Configuration conf = cluster.clientConf();
      conf.set(MRJobConfig.QUEUE_NAME, "root.a.a1");
      BigDecimal pi = QuasiMonteCarlo.estimatePi(1, 10,
          new Path("/tmp/pi-" + scheduler.substring(scheduler.lastIndexOf('.') + 1)), conf);
      assertEquals(scheduler + ": pi", 3.0, pi.doubleValue(), 1.0);
      YarnClient yc = YarnClient.createYarnClient();
      yc.init(cluster.clientConf());
      yc.start();
      try {
        List<ApplicationReport> apps = yc.getApplications(
            EnumSet.of(YarnApplicationState.FINISHED));
        assertEquals(scheduler + ": " + apps, 1, apps.size());
        assertEquals(scheduler + ": the queue in the RM's report", "root.a.a1",
            apps.get(0).getQueue());
      } finally {
        yc.stop();
      }
      JsonNode info = JSON.readTree(get("/ws/v1/cluster/scheduler"))
          .path("scheduler").path("schedulerInfo");
      return byPath(info, new LinkedHashMap<>());
    } finally {
      cluster.stopYarn();
    }
  }

  private static String get(String path) throws IOException {
    URL url = new URL("http://"
        + cluster.yarn().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS) + path);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setRequestProperty("Accept", "application/json");
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String body = in == null ? "" : IOUtils.toString(in, StandardCharsets.UTF_8);
    assertEquals("GET " + path + " answered " + body, 200, status);
    return body;
  }

  private static Map<String, JsonNode> byPath(JsonNode parent, Map<String, JsonNode> out) {
    for (JsonNode q : parent.path("queues").path("queue")) {
      out.put(q.path("queuePath").asText(), q);
      byPath(q, out);
    }
    return out;
  }

  private static JsonNode defaultPartition(JsonNode queue) {
    for (JsonNode p : queue.path("capacities").path("queueCapacitiesByPartition")) {
      if (p.path("partitionName").asText("").isEmpty()) {
        return p;
      }
    }
    throw new AssertionError("no default partition in " + queue);
  }

  @Test
  public void piRunsInItsAbsoluteLeafWithCapacitySchedulersFigures() throws Exception {
    Map<String, JsonNode> cs = piInA1(CAPACITY_SCHEDULER);
    Map<String, JsonNode> locus = piInA1(EmbeddedCluster.LOCUS_SCHEDULER);
    assertEquals(cs.keySet(), locus.keySet());
    assertTrue(cs.toString(), cs.containsKey("root.a.a1"));
    for (String path : cs.keySet()) {
      JsonNode c = cs.get(path);
      JsonNode l = locus.get(path);
      assertEquals(path + " mode", "absolute", c.path("mode").asText());
      assertEquals(path + " mode", c.path("mode").asText(), l.path("mode").asText());
      for (String f : new String[] {"capacity", "absoluteCapacity", "maxCapacity",
          "absoluteMaxCapacity", "weight", "normalizedWeight"}) {
        assertEquals(path + " " + f, c.path(f).asDouble(), l.path(f).asDouble(), 1e-3);
      }
      for (String r : new String[] {"effectiveMinResource", "effectiveMaxResource"}) {
        for (String unit : new String[] {"memory", "vCores"}) {
          assertEquals(path + " " + r + " " + unit,
              defaultPartition(c).path(r).path(unit).asLong(),
              defaultPartition(l).path(r).path(unit).asLong());
        }
      }
    }
  }
}
