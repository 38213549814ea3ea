package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.io.IOUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;

/** The RM web app of a MockRM as the REST tests read it: a free port, a GET, the queue tree. */
final class RmRest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RmRest() {
  }

  /** A port free now, for {@code yarn.resourcemanager.webapp.address}. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The body of {@code GET path} as JSON; fails the test on any status but 200. */
  static String getJson(MockRM rm, String path) throws IOException {
    return get(rm, path, "application/json", 200);
  }

  /** The body of {@code GET path} asked for as {@code accept}; fails on any other status. */
  static String get(MockRM rm, String path, String accept, int expectStatus)
      throws IOException {
    URL url = new URL("http://" + rm.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS) + path);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setRequestProperty("Accept", accept);
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String body = in == null ? "" : IOUtils.toString(in, StandardCharsets.UTF_8);
    assertEquals("GET " + path + " answered " + body, expectStatus, status);
    return body;
  }

  /** Every queue of the scheduler REST below root, by path, parents before children. */
  static Map<String, JsonNode> queues(MockRM rm) throws IOException {
    return queuesByPath(JSON.readTree(getJson(rm, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo"));
  }

  /** Every queue below {@code schedulerInfo}'s root by path, parents before children. */
  static Map<String, JsonNode> queuesByPath(JsonNode schedulerInfo) {
    return byPath(schedulerInfo, new LinkedHashMap<>());
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
