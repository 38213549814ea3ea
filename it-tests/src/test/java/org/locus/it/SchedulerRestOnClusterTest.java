package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.commons.io.IOUtils;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The RM's REST API over real HTTP on the embedded cluster, with nothing configured but the scheduler class:
 * {@code GET /ws/v1/cluster/scheduler} shows a running MapReduce job in its queue and Locus's figures.
 */
public class SchedulerRestOnClusterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static EmbeddedCluster cluster;
  private static Corpus corpus;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = EmbeddedCluster.start("web", 2, 1, false);
    corpus = Corpus.write(cluster.fileSystem(), new Path("/in/web"), 2, 300_000, 5, cluster.dataNodes(), 0,
        EmbeddedCluster.BLOCK_SIZE);
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String webApp() {
    return "http://" + cluster.yarn().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  private static int status(String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(webApp() + path).openConnection();
    return c.getResponseCode();
  }

  private static JsonNode schedulerInfo() throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(webApp() + "/ws/v1/cluster/scheduler").openConnection();
    c.setRequestProperty("Accept", "application/json");
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String body = in == null ? "" : IOUtils.toString(in, StandardCharsets.UTF_8);
    assertEquals("GET /ws/v1/cluster/scheduler answered " + body, 200, status);
    return JSON.readTree(body).path("scheduler").path("schedulerInfo");
  }

  private static JsonNode defaultQueue(JsonNode info) {
    for (JsonNode q : info.path("queues").path("queue")) {
      if ("default".equals(q.path("queueName").asText())) {
        return q;
      }
    }
    throw new AssertionError("no default queue in " + info);
  }

  @Test
  public void schedulerResourceShowsARunningJobInItsQueueAndTheCoresFigures() throws Exception {
    assumeTrue("the Locus resource is installed by " + EmbeddedCluster.LOCUS_SCHEDULER, cluster.runsLocus());
    Job job = WordCount.newJob(cluster.clientConf(), "web-rest", corpus.dir(), new Path("/out/web"), 1);
    // Maps idle long enough for the RM to be asked while they hold their containers, even on a loaded machine
    // (seen: the AM took 50 s to register, and a 90 s wait with 8 s maps missed them).
    job.getConfiguration().setLong(WordCount.MAP_PAUSE_MS, 20_000);
    long t = System.nanoTime();
    job.submit();

    JsonNode running = null;
    long deadline = System.currentTimeMillis() + 300_000;
    while (System.currentTimeMillis() < deadline && !job.isComplete()) {
      JsonNode q = defaultQueue(schedulerInfo());
      if (q.path("allocatedContainers").asInt() >= 2) {
        running = q;
        break;
      }
      Thread.sleep(250);
    }
    assertTrue("the job's AM and a map never showed in the default queue (job complete: " + job.isComplete() + ")",
        running != null);
    assertEquals("capacitySchedulerLeafQueueInfo", running.path("type").asText());
    assertEquals(1, running.path("numApplications").asInt());
    // The MR AM's 512 MB and at least one 256 MB map.
    assertTrue(running.toString(), running.path("resourcesUsed").path("memory").asLong() >= 768);
    assertTrue(running.toString(), running.path("absoluteUsedCapacity").asDouble() > 0);

    JobOutcome outcome = JobOutcome.await(job, t);
    assertTrue("job failed: " + outcome, outcome.succeeded);

    JsonNode info = schedulerInfo();
    assertEquals("capacityScheduler", info.path("type").asText());
    JsonNode locus = info.path("locus");
    long allocations = locus.path("allocations").path("total").asLong();
    assertTrue(locus.toString(), allocations >= outcome.maps + outcome.reduces + 1);
    assertEquals(locus.toString(), allocations, locus.path("allocations").path("nodeLocal").asLong()
        + locus.path("allocations").path("rackLocal").asLong() + locus.path("allocations").path("offSwitch").asLong());
    assertTrue(locus.toString(), locus.path("heartbeats").asLong() > 0);
    assertTrue(locus.toString(), locus.path("heartbeatTimeUs").path("count").asLong() > 0);
    assertEquals(locus.toString(), 0, locus.path("coreRebuilds").asLong());
    assertTrue(locus.toString(), !locus.path("policy").asText().isEmpty());
  }

  /**
   * The classic UI's pages are not served by this embedded RM for any scheduler once a NodeManager's web app has
   * started in the same JVM (docs/operator/monitoring.md says why), so the scheduler page is tested on a MockRM
   * (java-shim SchedulerWebTest). This pins that reason: the scheduler page is missing here only when the
   * scheduler-independent About page is too, and then the RM's port answers a NodeManager's page instead.
   */
  @Test
  public void classicPagesAreAllOrNothingOnTheEmbeddedRm() throws Exception {
    int scheduler = status("/cluster/scheduler");
    int about = status("/cluster/cluster");
    assertEquals("/cluster/scheduler answered " + scheduler + " while /cluster/cluster answered " + about,
        about == 200, scheduler == 200);
    if (about != 200) {
      assertEquals("the RM's port should answer the NodeManager route /node (Guice's static pipeline)", 200,
          status("/node"));
    }
  }
}
