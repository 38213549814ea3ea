package org.locus.it;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.io.IOUtils;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;

/** What the embedded cluster's RM reports of its applications and queues, as tests read it. */
final class ClusterRest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ClusterRest() {
  }

  /**
   * Fails unless the RM reports exactly one finished application, in {@code queue}; {@code
   * scheduler} names the run in the messages.
   */
  static void assertOneFinishedAppIn(EmbeddedCluster cluster, String scheduler, String queue)
      throws IOException, YarnException {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      List<ApplicationReport> apps = yc.getApplications(
          EnumSet.of(YarnApplicationState.FINISHED));
      assertEquals(scheduler + ": " + apps, 1, apps.size());
      assertEquals(scheduler + ": the queue in the RM's report", queue, apps.get(0).getQueue());
    } finally {
      yc.stop();
    }
  }

  /** The body of {@code GET path} on the RM's web app as JSON; fails on any status but 200. */
  static String get(EmbeddedCluster cluster, String path) throws IOException {
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

  /** Every queue of the scheduler REST below root, by path, parents before children. */
  static Map<String, JsonNode> schedulerQueues(EmbeddedCluster cluster) throws IOException {
    JsonNode info = JSON.readTree(get(cluster, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo");
    return byPath(info, new LinkedHashMap<>());
  }

  private static Map<String, JsonNode> byPath(JsonNode parent, Map<String, JsonNode> out) {
    for (JsonNode q : parent.path("queues").path("queue")) {
      out.put(q.path("queuePath").asText(), q);
      byPath(q, out);
    }
    return out;
  }

  /** A queue's capacities in the default partition; fails the test if it has none. */
  static JsonNode defaultPartition(JsonNode queue) {
    for (JsonNode p : queue.path("capacities").path("queueCapacitiesByPartition")) {
      if (p.path("partitionName").asText("").isEmpty()) {
        return p;
      }
    }
    throw new AssertionError("no default partition in " + queue);
  }
}
