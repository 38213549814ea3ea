package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.apache.commons.io.IOUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;

/** The RM web app of a MockRM as the REST tests read it: a free port, and a JSON GET. */
final class RmRest {
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
    URL url = new URL("http://" + rm.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS) + path);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setRequestProperty("Accept", "application/json");
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String body = in == null ? "" : IOUtils.toString(in, StandardCharsets.UTF_8);
    assertEquals("GET " + path + " answered " + body, 200, status);
    return body;
  }
}
