package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.web.CapacityFileRuns.messages;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
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
 * A capacity-scheduler.xml in absolute mode ({@code [memory=...,vcores=...]}, a parent and its
 * children) under CapacityScheduler and under Locus in one run: an application submitted to
 * {@code a1} runs there, and the scheduler REST reports CapacityScheduler's figures for the
 * same file as nodes join and leave, including a cluster too small for the configured
 * minimums (which CS scales down per resource type).
 */
public class AbsoluteModeTest {
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
   * a [10 GB, 12 vcores] up to [20 GB, 20], split into a1 [4 GB, 4] up to [8 GB, 8] and a2
   * [6 GB, 8] (its maximum inherited from a); b [6 GB, 4] with no maximum.
   */
  private static YarnConfiguration absolute() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "[memory=10240,vcores=12]");
    conf.set(CS + "root.a.maximum-capacity", "[memory=20480,vcores=20]");
    conf.set(CS + "root.b.capacity", "[memory=6144,vcores=4]");
    conf.set(CS + "root.a.queues", "a1,a2");
    conf.set(CS + "root.a.a1.capacity", "[memory=4096,vcores=4]");
    conf.set(CS + "root.a.a1.maximum-capacity", "[memory=8192,vcores=8]");
    conf.set(CS + "root.a.a2.capacity", "[memory=6144,vcores=8]");
    return conf;
  }

  @Test
  public void nestedAbsoluteCapacitiesFollowTheClusterAsCapacitySchedulersDo() throws Exception {
    List<String> csQueue = new ArrayList<>();
    List<Map<String, JsonNode>> cs =
        CapacityFileRuns.joinAndLeave(rms, CapacityScheduler.class, absolute(), csQueue);
    List<String> locusQueue = new ArrayList<>();
    List<Map<String, JsonNode>> locus =
        CapacityFileRuns.joinAndLeave(rms, LocusScheduler.class, absolute(), locusQueue);

    assertEquals("the RM's report of the app's queue", csQueue, locusQueue);
    // a1 on one 16 GB node: 4 of a's 10 GB, a 10 of 16.
    assertEquals(40.0, cs.get(0).get("root.a.a1").path("capacity").asDouble(), 1e-3);
    assertEquals(25.0, cs.get(0).get("root.a.a1").path("absoluteCapacity").asDouble(), 1e-3);
    // 8 GB left for 16 GB of minimums: a's scaled to half.
    assertEquals(5 * GB, RmRest.defaultPartition(cs.get(2).get("root.a"))
        .path("effectiveMinResource").path("memory").asLong());
    CapacityFileRuns.assertSameSteps(cs, locus);
  }

  /** The message CapacityScheduler stops the RM with, or fails when it starts. */
  private String csRefusal(YarnConfiguration conf) throws IOException {
    try {
      rms.start(CapacityScheduler.class, new YarnConfiguration(conf));
    } catch (Exception e) {
      return messages(e);
    }
    fail("CapacityScheduler started with " + conf);
    return null;
  }

  /**
   * Files CapacityScheduler refuses in absolute mode are refused by Locus with its words,
   * naming the key: an absolute child under a percentage parent, absolute and percentage
   * siblings, children's minimums above their parent's, a minimum above its maximum, a
   * maximum above the parent's.
   */
  @Test
  public void absoluteFilesCapacitySchedulerRefusesAreRefusedWithItsWords() throws Exception {
    String[][] cases = {
        // {key, value, CS's words, the key Locus names}
        {"root.a.a1.capacity", "40", "Parent=root.a: When absolute minResource is used, we "
            + "must make sure both parent and child all use absolute minResource",
            "root.a.a1.capacity"},
        {"root.b.capacity", "50", "have children queue used mixed of  weight mode, percentage "
            + "and absolute mode", "root.b.capacity"},
        {"root.a.a2.capacity", "[memory=8192,vcores=8]", "Parent Queues capacity: "
            + "<memory:10240, vCores:12> is less than to its children:<memory:12288, "
            + "vCores:12> for queue:a", "root.a.capacity"},
        {"root.a.a1.maximum-capacity", "[memory=2048,vcores=2]", "Min resource configuration "
            + "<memory:4096, vCores:4> is greater than its max value:<memory:2048, vCores:2> "
            + "in queue:root.a.a1", "root.a.a1.maximum-capacity"},
        {"root.a.a1.maximum-capacity", "[memory=40960,vcores=8]", "Max resource configuration "
            + "<memory:40960, vCores:8> is greater than parents max value:<memory:20480, "
            + "vCores:20> in queue:root.a.a1", "root.a.a1.maximum-capacity"}};
    for (String[] c : cases) {
      YarnConfiguration conf = absolute();
      conf.set(CS + c[0], c[1]);
      if (c[0].equals("root.a.a1.capacity")) {
        conf.unset(CS + "root.a.a1.maximum-capacity");
        conf.set(CS + "root.a.a2.capacity", "60");
      }
      String cs = csRefusal(conf);
      assertTrue(cs, cs.contains(c[2]));
      try {
        rms.start(LocusScheduler.class, new YarnConfiguration(conf));
        fail("Locus started with " + c[0] + "=" + c[1]);
      } catch (Exception e) {
        assertTrue(messages(e), messages(e).contains(c[2]));
        assertTrue(messages(e), messages(e).contains(CS + c[3]));
      }
    }
  }
}
