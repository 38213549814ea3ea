package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * The RM's web app under Locus, over real HTTP: a MockRM serving its web app (the only web app in
 * the JVM, so the classic UI's Guice pages are served too; see docs/operator/monitoring.md for why an
 * embedded MiniYARNCluster's are not), with nothing set but the scheduler class.
 */
public class SchedulerWebTest {
  private static final int GB = 1024;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOSTILE_NAME = "<script>alert(1)</script>";
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  /** One app in default with its AM and two 1 GB tasks running on h1. */
  private static RMApp runOneApp(MockRM rm) throws Exception {
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    // Submitters choose names: one that is markup must reach the page as text.
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withAppName(HOSTILE_NAME).build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    am.allocate("h1", GB, 2, new ArrayList<>());
    List<Container> got = LocusRmFixture.heartbeatUntil(rm, nm, am, 2);
    assertEquals(2, got.size());
    return app;
  }

  private static JsonNode leaf(JsonNode schedulerInfo, String name) {
    for (JsonNode q : schedulerInfo.path("queues").path("queue")) {
      if (name.equals(q.path("queueName").asText())) {
        return q;
      }
    }
    throw new AssertionError("no queue " + name + " in " + schedulerInfo);
  }

  @Test
  public void restSchedulerAnswersWithTheQueueTreeAndLocusFigures() throws Exception {
    MockRM rm = rms.start(LocusScheduler.class);
    RMApp app = runOneApp(rm);

    JsonNode info = JSON.readTree(RmRest.getJson(rm, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo");
    assertEquals("capacityScheduler", info.path("type").asText());
    assertEquals("root", info.path("queueName").asText());
    assertEquals(100.0, info.path("capacity").asDouble(), 1e-6);
    JsonNode def = leaf(info, "default");
    assertEquals("capacitySchedulerLeafQueueInfo", def.path("type").asText());
    assertEquals("root.default", def.path("queuePath").asText());
    assertEquals(1, def.path("numApplications").asInt());
    assertEquals(1, def.path("numActiveApplications").asInt());
    // The AM and both tasks: 3 GB of the node's 8.
    assertEquals(3 * GB, def.path("resourcesUsed").path("memory").asLong());
    assertEquals(3, def.path("allocatedContainers").asInt());
    assertEquals(3 * 100.0 / 8, def.path("absoluteUsedCapacity").asDouble(), 0.01);
    assertEquals("RUNNING", def.path("state").asText());

    JsonNode locus = info.path("locus");
    assertEquals("Locus", locus.path("scheduler").asText());
    assertTrue(locus.path("coreAvailable").asBoolean());
    assertTrue(locus.toString(), !locus.path("policy").asText().isEmpty());
    assertEquals(3, locus.path("allocations").path("total").asLong());
    assertEquals(3, locus.path("allocations").path("nodeLocal").asLong()
        + locus.path("allocations").path("rackLocal").asLong()
        + locus.path("allocations").path("offSwitch").asLong());
    // Core rounds, not NODE_UPDATEs: the scheduling thread folds a node's heartbeats that arrive
    // while it is busy into one round, so only causality bounds them: one round gave the AM its
    // container, a later one (after the AM asked) its tasks.
    assertTrue(locus.toString(), locus.path("heartbeats").asLong() >= 2);
    // NODE_UPDATEs timed on the dispatcher: the same causality, one heartbeat after the
    // submission and one after the asks. A third is the launch's second heartbeat, which the RM
    // sends on only if the scheduling thread booked the first before it came, which is timing.
    assertTrue(locus.toString(), locus.path("heartbeatTimeUs").path("count").asLong() >= 2);
    assertTrue(locus.path("allocateTimeUs").path("count").asLong() >= 2);
    // Their values are the metrics gauges' (SchedulingLoopTest); here, that REST carries them.
    assertTrue(locus.toString(), locus.path("queuedHeartbeats").isInt()
        && locus.path("oldestQueuedHeartbeatAgeMs").isNumber());
    assertEquals(0, locus.path("rejections").asLong());

    // The rest of the RM's REST API is still Hadoop's own.
    JsonNode apps = JSON.readTree(RmRest.getJson(rm, "/ws/v1/cluster/apps"));
    assertEquals(app.getApplicationId().toString(),
        apps.path("apps").path("app").get(0).path("id").asText());
  }

  @Test
  public void classicSchedulerPageShowsQueuesBarsAppsAndFigures() throws Exception {
    MockRM rm = rms.start(LocusScheduler.class);
    RMApp app = runOneApp(rm);

    // Hamlet indents every element: compare with the layout whitespace taken out.
    String html = RmRest.get(rm, "/cluster/scheduler", "text/html", 200)
        .replaceAll(">\\s+", ">").replaceAll("\\s+<", "<");
    assertTrue(html, html.contains("id=\"locus-queues\""));
    assertTrue(html, html.contains(">default<"));
    assertTrue(html, html.contains("class=\"lq-bar\""));
    assertTrue(html, html.contains(">Preempted containers</th>"));
    assertTrue(html, html.contains("Applications in root.default"));
    assertTrue(html, html.contains(app.getApplicationId().toString()));
    assertTrue(html, !html.contains(HOSTILE_NAME));
    assertTrue(html, html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assertTrue(html, html.contains("Scheduler time per node heartbeat"));
    assertTrue(html, html.contains("Allocations (node-local / rack-local / off-switch)</th>"));
    // Inside the RM's own layout: its navigation links the other pages.
    assertTrue(html, html.contains("/cluster/nodes"));
  }

  /**
   * "The same shape as CapacityScheduler's where the fields mean the same": every field Locus
   * writes for root and for a leaf is one CS writes at the same place, Locus's own block aside.
   */
  @Test
  public void everyCapacitySchedulerFieldLocusWritesIsOneCapacitySchedulerWritesToo()
      throws Exception {
    MockRM cs = rms.start(CapacityScheduler.class);
    JsonNode csInfo = JSON.readTree(RmRest.getJson(cs, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo");
    rms.stop(cs);
    MockRM locus = rms.start(LocusScheduler.class);
    JsonNode locusInfo = JSON.readTree(
        RmRest.getJson(locus, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo");

    Set<String> rootExtra = fieldsNotIn(locusInfo, csInfo);
    rootExtra.remove("locus");
    assertEquals("root fields CS does not write", new TreeSet<String>(), rootExtra);
    assertEquals(csInfo.path("type").asText(), locusInfo.path("type").asText());
    JsonNode csLeaf = leaf(csInfo, "default");
    JsonNode locusLeaf = leaf(locusInfo, "default");
    Set<String> leafExtra = fieldsNotIn(locusLeaf, csLeaf);
    leafExtra.remove("locus");
    assertEquals("leaf fields CS does not write", new TreeSet<String>(), leafExtra);
    assertEquals(csLeaf.path("type").asText(), locusLeaf.path("type").asText());
    assertEquals(new TreeSet<String>(), fieldsNotIn(locusLeaf.path("resourcesUsed"),
        csLeaf.path("resourcesUsed")));
  }

  /** An operator who switches back to CS but keeps Locus's REST class gets CS's own answer. */
  @Test
  public void locusRestClassLeftInPlaceAnswersForCapacitySchedulerAsHadoopDoes() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(WebDefaults.WEBSERVICE_CLASS_KEY, LocusWebServices.class.getName());
    MockRM cs = rms.start(CapacityScheduler.class, conf);
    JsonNode info = JSON.readTree(RmRest.getJson(cs, "/ws/v1/cluster/scheduler"))
        .path("scheduler").path("schedulerInfo");
    assertEquals("capacityScheduler", info.path("type").asText());
    assertTrue(info.toString(), info.has("queueAcls") || info.has("health"));
    assertTrue(!info.has("locus"));
  }

  private static Set<String> fieldsNotIn(JsonNode ours, JsonNode theirs) {
    assertNotNull(theirs);
    Set<String> extra = new TreeSet<>();
    for (Iterator<String> it = ours.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!theirs.has(f)) {
        extra.add(f);
      }
    }
    return extra;
  }
}
