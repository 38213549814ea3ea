package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * A capacity-scheduler.xml in weight mode (nested weights, no {@code locus.policy}) under
 * CapacityScheduler and under Locus in one run: the application submitted to {@code a1} runs
 * in {@code a1}, and the scheduler REST reports the effective capacities CapacityScheduler
 * reports for the same file and cluster.
 */
public class WeightModeTest {
  private static final int GB = CapacityFileRuns.GB;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  /**
   * a 2w and b 1w under root; a split into a1 1w (maximum-capacity 50) and a2 3w; b1 and b2 of
   * b 1w each.
   */
  private static YarnConfiguration weights() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "2w");
    conf.set(CS + "root.b.capacity", "1w");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "1w");
    conf.set(CS + "root.a.a2.capacity", "3w");
    conf.set(CS + "root.a.a1.maximum-capacity", "50");
    conf.set(CS + "root.b.queues", "b1,b2");
    conf.set(CS + "root.b.b1.capacity", "1w");
    conf.set(CS + "root.b.b2.capacity", "1w");
    return conf;
  }

  /**
   * Maxima below the weights' shares: a's 1w of 2 gives it 50 % with a maximum of 30; b's
   * child b1 (3w of 4, 75 % of b) may take at most 40 % of b. CapacityScheduler accepts the
   * file, reports each queue's guarantee as its weight gives it and caps the queue at its
   * maximum.
   */
  private static YarnConfiguration maximaBelowWeights() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "1w");
    conf.set(CS + "root.b.capacity", "1w");
    conf.set(CS + "root.a.maximum-capacity", "30");
    conf.set(CS + "root.b.queues", "b1,b2");
    conf.set(CS + "root.b.b1.capacity", "3w");
    conf.set(CS + "root.b.b2.capacity", "1w");
    conf.set(CS + "root.b.b1.maximum-capacity", "40");
    return conf;
  }

  /** The app's queue in the RM's report, and the REST tree, after it was placed. */
  private Map<String, JsonNode> run(Class<? extends ResourceScheduler> scheduler,
      List<String> appQueue) throws Exception {
    return run(scheduler, weights(), "a1", appQueue);
  }

  private Map<String, JsonNode> run(Class<? extends ResourceScheduler> scheduler,
      YarnConfiguration conf, String leaf, List<String> appQueue) throws Exception {
    MockRM rm = rms.start(scheduler, conf);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    // No heartbeat before the submission: Locus places on a heartbeat's offer after the event,
    // so an earlier one could place the AM before MockRM sees the attempt SCHEDULED.
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(leaf).build());
    LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    appQueue.add(app.getQueue());
    List<ApplicationAttemptId> inLeaf = rm.getResourceScheduler().getAppsInQueue(leaf);
    assertTrue(scheduler.getSimpleName() + ": no queue " + leaf, inLeaf != null);
    assertEquals(scheduler.getSimpleName() + ": applications in " + leaf, 1, inLeaf.size());
    return RmRest.queues(rm);
  }

  @Test
  public void aNestedWeightFileRunsInItsLeavesWithCapacitySchedulersFigures() throws Exception {
    List<String> csQueue = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, csQueue);
    List<String> locusQueue = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    assertEquals(cs.keySet(), locus.keySet());
    // a1: 1/4 of a, which is 2/3 of root.
    assertEquals(100.0 / 6, cs.get("root.a.a1").path("absoluteCapacity").asDouble(), 1e-3);
    CapacityFileRuns.assertSameCapacities("", cs, locus);
  }

  @Test
  public void aMaximumBelowItsWeightsShareRunsAsUnderCapacityScheduler() throws Exception {
    List<String> csQueue = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, maximaBelowWeights(), "b1", csQueue);
    List<String> locusQueue = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, maximaBelowWeights(), "b1",
        locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    assertEquals(cs.keySet(), locus.keySet());
    // CapacityScheduler's own figures for the file, so the comparison below is about them.
    assertEquals(50.0, cs.get("root.a").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(30.0, cs.get("root.a").path("absoluteMaxCapacity").asDouble(), 1e-3);
    assertEquals(37.5, cs.get("root.b.b1").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(40.0, cs.get("root.b.b1").path("absoluteMaxCapacity").asDouble(), 1e-3);
    CapacityFileRuns.assertSameCapacities("", cs, locus);
  }

  /** The same in percentages: CapacityScheduler 3.5 checks neither against the other. */
  @Test
  public void aPercentageMaximumBelowItsCapacityRunsAsUnderCapacityScheduler()
      throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.maximum-capacity", "30");
    List<String> csQueue = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, new YarnConfiguration(conf), "a",
        csQueue);
    List<String> locusQueue = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, new YarnConfiguration(conf), "a",
        locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    assertEquals(cs.keySet(), locus.keySet());
    assertEquals(50.0, cs.get("root.a").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(30.0, cs.get("root.a").path("absoluteMaxCapacity").asDouble(), 1e-3);
    CapacityFileRuns.assertSameCapacities("", cs, locus);
  }
}
