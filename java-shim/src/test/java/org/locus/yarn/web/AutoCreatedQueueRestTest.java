package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
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
 * A parent that creates its leaves on the fly ({@code auto-queue-creation-v2.enabled}, weight
 * mode) under CapacityScheduler and under Locus in one run: a new user's application submitted
 * to {@code root.users.<user>} runs in the queue created for it, with the template's maximum,
 * and the scheduler REST describes the new queue and its siblings as CapacityScheduler does.
 */
public class AutoCreatedQueueRestTest {
  private static final int GB = 1024;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final String[] NUMBERS = {"capacity", "maxCapacity", "absoluteCapacity",
      "absoluteMaxCapacity", "weight", "normalizedWeight"};
  private static final String[] WORDS = {"queueType", "creationMethod",
      "autoCreationEligibility", "mode", "state"};
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  private static YarnConfiguration file() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "1w");
    conf.set(CS + "root.users.capacity", "3w");
    conf.set(CS + "root.users.auto-queue-creation-v2.enabled", "true");
    conf.set(CS + "root.users.auto-queue-creation-v2.template.maximum-capacity", "40");
    return conf;
  }

  /** Alice's and then Bob's application, each in its own new queue; the REST tree after. */
  private Map<String, JsonNode> run(Class<? extends ResourceScheduler> scheduler,
      List<String> appQueues) throws Exception {
    return run(scheduler, file(), "", appQueues);
  }

  /**
   * Alice's and Bob's applications in {@code root.users.<user><below><user>}; the REST tree
   * after.
   */
  private Map<String, JsonNode> run(Class<? extends ResourceScheduler> scheduler,
      YarnConfiguration file, String below, List<String> appQueues) throws Exception {
    MockRM rm = rms.start(scheduler, file);
    MockNM nm = rm.registerNode("h1:1234", 16 * GB, 16);
    nm.nodeHeartbeat(true);
    for (String user : new String[] {"alice", "bob"}) {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withUser(user).withQueue(leafOf(user, below)).build());
      LocusRmFixture.launchAndRegisterAM(app, rm, nm);
      appQueues.add(app.getQueue());
      String leaf = leafOf(user, below);
      List<ApplicationAttemptId> inLeaf = rm.getResourceScheduler().getAppsInQueue(leaf);
      assertNotNull(scheduler.getSimpleName() + ": no queue " + leaf, inLeaf);
      assertEquals(scheduler.getSimpleName() + ": applications in " + leaf, 1, inLeaf.size());
    }
    return RmRest.queues(rm);
  }

  private static String leafOf(String user, String below) {
    return "root.users." + user + (below.isEmpty() ? "" : below + user);
  }

  @Test
  public void aNewUsersQueueIsCreatedOnFirstSubmissionAsUnderCapacityScheduler()
      throws Exception {
    List<String> csQueues = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, csQueues);
    List<String> locusQueues = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, locusQueues);
    assertEquals("the RM's report of the apps' queues", csQueues, locusQueues);
    // CapacityScheduler's own description, so the comparison below is about it.
    assertEquals("dynamicFlexible", cs.get("root.users.alice").path("creationMethod").asText());
    assertEquals("flexible", cs.get("root.users").path("autoCreationEligibility").asText());
    assertEquals(37.5, cs.get("root.users.bob").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(40.0, cs.get("root.users.bob").path("maxCapacity").asDouble(), 1e-3);
    sameQueues(cs, locus);
  }

  /**
   * Submissions two levels below the static parent ({@code root.users.alice.jobs-alice}): each
   * user's parent is created from the
   * static parent's {@code parent-template.*} keys and the leaf under it from the created
   * parent's templates, as CapacityScheduler creates them.
   */
  @Test
  public void aUsersParentIsCreatedFromTheParentTemplate() throws Exception {
    YarnConfiguration file = file();
    String v2 = "auto-queue-creation-v2.";
    file.set(CS + "root.users." + v2 + "parent-template.maximum-capacity", "50");
    file.set(CS + "root.users." + v2 + "parent-template." + v2 + "template.maximum-capacity",
        "60");
    file.set(CS + "root.users." + v2 + "parent-template." + v2 + "leaf-template.capacity",
        "2w");
    List<String> csQueues = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, file, ".jobs-", csQueues);
    List<String> locusQueues = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, file, ".jobs-", locusQueues);
    assertEquals("the RM's report of the apps' queues", csQueues, locusQueues);
    assertEquals("dynamicFlexible", cs.get("root.users.alice").path("creationMethod").asText());
    assertEquals("flexible", cs.get("root.users.alice").path("autoCreationEligibility")
        .asText());
    assertEquals("dynamicFlexible", cs.get("root.users.alice.jobs-alice").path("creationMethod")
        .asText());
    // The parent from parent-template. CapacityScheduler reads a created parent's templates
    // before parent-template's keys reach it, so its first leaves do not take them.
    assertEquals(50.0, cs.get("root.users.alice").path("maxCapacity").asDouble(), 1e-3);
    assertEquals(100.0, cs.get("root.users.alice.jobs-alice").path("maxCapacity").asDouble(),
        1e-3);
    sameQueues(cs, locus);
  }

  private static void sameQueues(Map<String, JsonNode> cs, Map<String, JsonNode> locus) {
    assertEquals(cs.keySet(), locus.keySet());
    for (String path : cs.keySet()) {
      JsonNode c = cs.get(path);
      JsonNode l = locus.get(path);
      for (String f : WORDS) {
        assertEquals(path + " " + f + "\nCS:    " + c + "\nLocus: " + l, c.path(f).asText(),
            l.path(f).asText());
      }
      for (String f : NUMBERS) {
        assertTrue(path + " " + f + " missing: " + l, l.has(f));
        assertEquals(path + " " + f + "\nCS:    " + c + "\nLocus: " + l, c.path(f).asDouble(),
            l.path(f).asDouble(), 1e-3);
      }
    }
  }
}
