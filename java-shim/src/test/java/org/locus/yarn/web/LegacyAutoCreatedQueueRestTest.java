package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.LocusRmFixture;
import org.locus.yarn.LocusScheduler;

/**
 * Parents that create their leaves, under CapacityScheduler and under Locus in one run, as the
 * scheduler REST describes them: a managed parent ({@code auto-create-child-queue.enabled})
 * with the leaves a queue mapping created for two users from its {@code leaf-queue-template}
 * (the second past the parent's guarantee, so with none), and parents of either kind before
 * their first child.
 */
public class LegacyAutoCreatedQueueRestTest {
  private static final int GB = 1024;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final String[] NUMBERS = {"capacity", "maxCapacity", "absoluteCapacity",
      "absoluteMaxCapacity", "weight", "normalizedWeight"};
  private static final String[] WORDS = {"queueType", "creationMethod",
      "autoCreationEligibility", "mode", "state", "queueName"};
  @Rule
  public final WebRms rms = new WebRms();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  private static YarnConfiguration managedFile() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "50");
    conf.set(CS + "root.users.capacity", "50");
    conf.set(CS + "root.users.auto-create-child-queue.enabled", "true");
    conf.set(CS + "root.users.leaf-queue-template.capacity", "60");
    conf.set(CS + "root.users.leaf-queue-template.maximum-capacity", "80");
    conf.set(CS + "queue-mappings", "u:%user:root.users.%user");
    return conf;
  }

  /**
   * Alice's application runs in her new queue; Bob's waits in his; the REST tree after (with
   * {@code refreshed}: after Alice's application is killed and the queues refreshed).
   */
  private Map<String, JsonNode> run(Class<? extends ResourceScheduler> scheduler,
      List<String> appQueues, boolean refreshed) throws Exception {
    YarnConfiguration conf = managedFile();
    MockRM rm = rms.start(scheduler, conf);
    MockNM nm = rm.registerNode("h1:1234", 16 * GB, 16);
    nm.nodeHeartbeat(true);
    RMApp first = null;
    for (String user : new String[] {"alice", "bob"}) {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withUser(user).withQueue("default").build());
      if (user.equals("alice")) {
        LocusRmFixture.launchAndRegisterAM(app, rm, nm);
        first = app;
      }
      appQueues.add(app.getQueue());
    }
    if (refreshed) {
      rm.killApp(first.getApplicationId());
      rm.waitForState(first.getApplicationId(), RMAppState.KILLED);
      LocusRmFixture.settle(rm);
      rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
    }
    return RmRest.queues(rm);
  }

  private static void assertSameQueues(Map<String, JsonNode> cs, Map<String, JsonNode> locus) {
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

  @Test
  public void mappedUsersQueuesAreCreatedFromTheTemplateAsUnderCapacityScheduler()
      throws Exception {
    List<String> csQueues = new ArrayList<>();
    Map<String, JsonNode> cs = run(CapacityScheduler.class, csQueues, false);
    List<String> locusQueues = new ArrayList<>();
    Map<String, JsonNode> locus = run(LocusScheduler.class, locusQueues, false);

    assertEquals("the RM's report of the apps' queues", csQueues, locusQueues);
    // CapacityScheduler's own description, so the comparison below is about it.
    assertEquals("dynamicLegacy", cs.get("root.users.alice").path("creationMethod").asText());
    assertEquals("legacy", cs.get("root.users").path("autoCreationEligibility").asText());
    assertEquals(30.0, cs.get("root.users.alice").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(0.0, cs.get("root.users.bob").path("absoluteCapacity").asDouble(), 1e-3);
    assertSameQueues(cs, locus);
  }

  /**
   * A refresh hands the managed parent's guarantee out again: to the leaves with applications,
   * so Bob's waiting one now has it and Alice's idle one has none.
   */
  @Test
  public void aRefreshGivesTheGuaranteeToTheLeavesWithApplications() throws Exception {
    Map<String, JsonNode> cs = run(CapacityScheduler.class, new ArrayList<>(), true);
    Map<String, JsonNode> locus = run(LocusScheduler.class, new ArrayList<>(), true);
    assertEquals(0.0, cs.get("root.users.alice").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(30.0, cs.get("root.users.bob").path("absoluteCapacity").asDouble(), 1e-3);
    assertSameQueues(cs, locus);
  }

  /** A managed and a flexible parent before their first child. */
  @Test
  public void parentsWithoutChildrenYetAreParentsAsUnderCapacityScheduler() throws Exception {
    YarnConfiguration file = new YarnConfiguration();
    file.set(CS + "root.queues", "default,users,teams");
    file.set(CS + "root.default.capacity", "50");
    file.set(CS + "root.users.capacity", "25");
    file.set(CS + "root.teams.capacity", "25");
    file.set(CS + "root.users.auto-create-child-queue.enabled", "true");
    file.set(CS + "root.users.leaf-queue-template.capacity", "50");
    file.set(CS + "root.teams.auto-queue-creation-v2.enabled", "true");
    Map<String, JsonNode> cs = RmRest.queues(rms.start(CapacityScheduler.class,
        new YarnConfiguration(file)));
    Map<String, JsonNode> locus = RmRest.queues(rms.start(LocusScheduler.class,
        new YarnConfiguration(file)));
    assertEquals("parent", cs.get("root.users").path("queueType").asText());
    assertEquals("flexible", cs.get("root.teams").path("autoCreationEligibility").asText());
    assertSameQueues(cs, locus);
  }
}
