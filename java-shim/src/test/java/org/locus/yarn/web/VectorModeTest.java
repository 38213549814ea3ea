package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.web.CapacityFileRuns.messages;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusScheduler;

/**
 * A capacity-scheduler.xml with the legacy queue mode off (the universal capacity vector:
 * percentages, weights and absolute resources mixed per resource type) under
 * CapacityScheduler and under Locus in one run: an application submitted to {@code a1} runs
 * there, and the scheduler REST reports CapacityScheduler's figures as nodes join and leave,
 * including a cluster too small for an absolute minimum.
 */
public class VectorModeTest {
  private static final int GB = CapacityFileRuns.GB;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
    NetUtils.addStaticResolution("h2", "127.0.0.1");
  }

  /**
   * root: a [memory=50%,vcores=2w] up to [memory=75%,vcores=100%], b [memory=1w,vcores=4], c
   * 25 (a percentage of every type); a: a1 [memory=6144,vcores=1w] up to
   * [memory=8192,vcores=50%], a2 1w.
   */
  private static YarnConfiguration vectors() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(CS + "legacy-queue-mode.enabled", false);
    conf.set(CS + "root.queues", "a,b,c");
    conf.set(CS + "root.a.capacity", "[memory=50%,vcores=2w]");
    conf.set(CS + "root.a.maximum-capacity", "[memory=75%,vcores=100%]");
    conf.set(CS + "root.b.capacity", "[memory=1w,vcores=4]");
    conf.set(CS + "root.c.capacity", "25");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "[memory=6144,vcores=1w]");
    conf.set(CS + "root.a.a1.maximum-capacity", "[memory=8192,vcores=50%]");
    conf.set(CS + "root.a.a2.capacity", "1w");
    return conf;
  }

  @Test
  public void mixedCapacityVectorsFollowTheClusterAsCapacitySchedulersDo() throws Exception {
    List<String> csQueue = new ArrayList<>();
    List<Map<String, JsonNode>> cs =
        CapacityFileRuns.joinAndLeave(rms, CapacityScheduler.class, vectors(), csQueue);
    List<String> locusQueue = new ArrayList<>();
    List<Map<String, JsonNode>> locus =
        CapacityFileRuns.joinAndLeave(rms, LocusScheduler.class, vectors(), locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    // The oracle's own figures, so the comparison below compares something: a's half of the
    // 16 GB node's memory, and a1's 6 GB scaled to a's 4 GB on the 8 GB node.
    assertEquals("mixed", cs.get(0).get("root.a").path("mode").asText());
    assertEquals(8 * GB, RmRest.defaultPartition(cs.get(0).get("root.a"))
        .path("effectiveMinResource").path("memory").asLong());
    assertEquals(4 * GB, RmRest.defaultPartition(cs.get(2).get("root.a.a1"))
        .path("effectiveMinResource").path("memory").asLong());
    CapacityFileRuns.assertSameSteps(cs, locus);
  }

  /**
   * Vector files CapacityScheduler refuses are refused by Locus with its words, naming the key:
   * a weight in a maximum, an absolute minimum above its absolute maximum (a maximum naming a
   * percentage is no absolute one, and CapacityScheduler checks nothing then).
   */
  @Test
  public void vectorFilesCapacitySchedulerRefusesAreRefusedWithItsWords() throws Exception {
    String[][] cases = {
        // {key, value, CS's words}
        {"root.a.a2.maximum-capacity", "[memory=2w,vcores=100%]",
            "Resource memory-mb has WEIGHT maximum capacity type, which is not supported"},
        {"root.a.a1.maximum-capacity", "[memory=4096,vcores=4]", "is greater than its max "
            + "value:<memory:4096, vCores:4> in queue:root.a.a1"}};
    for (String[] c : cases) {
      YarnConfiguration conf = vectors();
      conf.set(CS + c[0], c[1]);
      String cs = null;
      try {
        rms.start(CapacityScheduler.class, new YarnConfiguration(conf));
        fail("CapacityScheduler started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        cs = messages(e);
      }
      assertTrue(cs, cs.contains(c[2]));
      try {
        rms.start(LocusScheduler.class, new YarnConfiguration(conf));
        fail("Locus started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        assertTrue(messages(e), messages(e).contains(c[2]));
        assertTrue(messages(e), messages(e).contains(CS + c[0]));
      }
    }
  }

  /**
   * A resource type the core does not schedule, named in a vector, stops the RM naming the
   * key rather than leave that part of the guarantee unenforced.
   */
  @Test
  public void aVectorEntryOfAnotherResourceTypeIsRefusedNamingTheKey() throws Exception {
    YarnConfiguration conf = vectors();
    conf.set(CS + "root.b.capacity", "[memory=1w,vcores=4,yarn.io/gpu=1]");
    try {
      rms.start(LocusScheduler.class, conf);
      fail("Locus started with a GPU entry in a capacity vector");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(CS + "root.b.capacity"));
      assertTrue(messages(e), messages(e).contains("yarn.io/gpu"));
    }
  }
}
