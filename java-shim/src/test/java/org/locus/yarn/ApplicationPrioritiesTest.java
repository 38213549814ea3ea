package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * YARN application priority through a real (in-process) ResourceManager: the priority a job is
 * submitted with ({@code mapreduce.job.priority}) and {@code yarn application -updatePriority}
 * decide which pending application gets the next containers, under every policy that keeps a
 * FIFO order, capped by {@code yarn.cluster.max-application-priority}.
 */
public class ApplicationPrioritiesTest {
  private static final int GB = 1024;
  private static final int ROUNDS = 40;

  private MockRM rm;

  /** Resolves the test hosts, keeps the RM's state private to this JVM, stops the RM. */
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Rule
  public final TemporaryFolder tmp = new TemporaryFolder();

  private MockRM start(String policy, String queues) {
    return start(policy, queues, LocusRmFixture.locusConf());
  }

  private MockRM start(String policy, String queues, YarnConfiguration conf) {
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    conf.set("locus.policy", policy);
    if (queues != null) {
      conf.set("locus.capacity.queues", queues);
    }
    conf.setInt("yarn.scheduler.capacity.root.b.default-application-priority", 4);
    rm = cluster.start(conf);
    return rm;
  }

  private RMApp submit(String queue, Priority priority) throws Exception {
    MockRMAppSubmissionData.Builder b = MockRMAppSubmissionData.Builder.createWithMemory(GB, rm)
        .withQueue(queue);
    if (priority != null) {
      b = b.withAppPriority(priority);
    }
    return MockRMAppSubmitter.submit(rm, b.build());
  }

  /**
   * Heartbeats once, then collects what each AM got from that heartbeat's offer (polled once
   * it was made: a fixed time of polls counted nothing when the scheduling thread was late).
   */
  private static int[] oneHeartbeat(MockRM rm, MockNM nm, MockAM... ams) throws Exception {
    nm.nodeHeartbeat(true);
    LocusRmFixture.settle(rm);
    int[] got = new int[ams.length];
    for (int a = 0; a < ams.length; a++) {
      List<Container> c =
          ams[a].allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers();
      got[a] += c.size();
    }
    return got;
  }

  /**
   * Two jobs wait for 4 containers each on a node with room for 2; the later one is raised to
   * priority 5 before the node heartbeats: it gets both, the earlier one nothing.
   *
   * <p>8 GB, so that both 1 GB AMs start under the AM limits as CapacityScheduler computes
   * them: in a 4 GB cluster queue a (50 %, AM share 0.5) would admit one user's second AM
   * neither in CS (its user AM limit, 0.5 of a's 2 GB guarantee, is 1 GB) nor in Locus.
   */
  private void updateReordersPendingApps(String policy, String queues, String queue)
      throws Exception {
    start(policy, queues);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp early = submit(queue, Priority.newInstance(0));
    MockAM amEarly = LocusRmFixture.launchAndRegisterAM(early, rm, nm);
    RMApp late = submit(queue, Priority.newInstance(0));
    MockAM amLate = LocusRmFixture.launchAndRegisterAM(late, rm, nm);
    // 6 GB left after the two AMs: room for two 3 GB containers.
    amEarly.allocate("*", 3 * GB, 4, new ArrayList<>());
    amLate.allocate("*", 3 * GB, 4, new ArrayList<>());

    rm.getClientRMService().updateApplicationPriority(UpdateApplicationPriorityRequest
        .newInstance(late.getApplicationId(), Priority.newInstance(5)));
    assertEquals(5, late.getApplicationPriority().getPriority());

    int[] got = oneHeartbeat(rm, nm, amEarly, amLate);
    assertEquals(policy + ": the raised job gets the free room", 2, got[1]);
    assertEquals(policy + ": the earlier job waits", 0, got[0]);
  }

  @Test
  public void aPriorityUpdateReordersPendingAppsUnderFifo() throws Exception {
    updateReordersPendingApps("fifo", null, "default");
  }

  @Test
  public void aPriorityUpdateReordersPendingAppsInACapacityQueue() throws Exception {
    updateReordersPendingApps("capacity", "a:50:100,b:50:100", "a");
  }

  @Test
  public void submittedPrioritiesAreKeptCappedAndDefaultedPerQueue() throws Exception {
    start("capacity", "a:50:100,b:50:100");
    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    assertEquals(10, scheduler.getMaxClusterLevelAppPriority().getPriority());
    assertEquals(3, submit("a", Priority.newInstance(3)).getApplicationPriority().getPriority());
    assertEquals("capped at yarn.cluster.max-application-priority", 10,
        submit("a", Priority.newInstance(50)).getApplicationPriority().getPriority());
    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    // What the RM asks for a submission that names no priority.
    assertEquals("b's default-application-priority", 4, scheduler
        .checkAndGetApplicationPriority(null, alice, "b", null).getPriority());
    assertEquals("a has no default: 0", 0, scheduler
        .checkAndGetApplicationPriority(null, alice, "root.a", null).getPriority());
  }

  @Test
  public void aPriorityAtSubmissionOrdersPendingApps() throws Exception {
    start("fifo", null);
    MockNM nm = rm.registerNode("h1:1234", 4 * GB, 4);
    RMApp early = submit("default", Priority.newInstance(1));
    MockAM amEarly = LocusRmFixture.launchAndRegisterAM(early, rm, nm);
    RMApp late = submit("default", Priority.newInstance(2));
    MockAM amLate = LocusRmFixture.launchAndRegisterAM(late, rm, nm);
    amEarly.allocate("*", GB, 4, new ArrayList<>());
    amLate.allocate("*", GB, 4, new ArrayList<>());
    int[] got = oneHeartbeat(rm, nm, amEarly, amLate);
    assertTrue("the higher-priority job first: got " + got[0] + " / " + got[1],
        got[1] == 2 && got[0] == 0);
  }

  /**
   * CS's priority ACLs ({@code acl_application_max_priority}, with {@code yarn.acl.enable}): a
   * user's default and maximum in the queue; a user no entry names may not set a priority there.
   */
  @Test
  public void priorityAclsGiveDefaultsAndRefuseWhatTheyDoNotAllow() throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set("yarn.scheduler.capacity.root.a.acl_application_max_priority",
        "[user=alice max_priority=3 default_priority=2]");
    start("capacity", "a:50:100,b:50:100", conf);
    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    UserGroupInformation bob = UserGroupInformation.createRemoteUser("bob");
    assertEquals(2, scheduler.checkAndGetApplicationPriority(null, alice, "a", null)
        .getPriority());
    assertEquals(3, scheduler.checkAndGetApplicationPriority(Priority.newInstance(3), alice,
        "a", null).getPriority());
    for (UserGroupInformation[] who : new UserGroupInformation[][] {{alice}, {bob}}) {
      int asked = who[0] == alice ? 4 : 1;
      try {
        scheduler.checkAndGetApplicationPriority(Priority.newInstance(asked), who[0], "a", null);
        fail(who[0].getShortUserName() + " got priority " + asked + " in a");
      } catch (YarnException e) {
        // CapacityScheduler's message: user, application, priority.
        assertTrue(e.getMessage(), e.getMessage().contains("User " + who[0].getShortUserName())
            && e.getMessage().contains("does not have permission to submit/update")
            && e.getMessage().endsWith(" for " + asked));
      }
    }
    // b has no priority ACLs: anyone, up to the cluster maximum.
    assertEquals(7, scheduler.checkAndGetApplicationPriority(Priority.newInstance(7), bob, "b",
        null).getPriority());
  }

  /**
   * With the RM's configuration in a store of its own (a configuration provider, as with
   * configuration in HDFS), the priority ACLs and defaults are the provider's
   * capacity-scheduler.xml, the one the queues come from, not one on the RM's classpath.
   */
  @Test
  public void priorityAclsComeFromTheConfigurationProviderAsTheQueuesDo() throws Exception {
    File dir = tmp.newFolder("rm-conf");
    Configuration file = new Configuration(false);
    file.set("yarn.scheduler.capacity.root.queues", "a,b");
    file.set("yarn.scheduler.capacity.root.a.capacity", "50");
    file.set("yarn.scheduler.capacity.root.b.capacity", "50");
    file.set("yarn.scheduler.capacity.root.a.acl_application_max_priority",
        "[user=alice max_priority=3 default_priority=2]");
    file.set("yarn.scheduler.capacity.root.b.default-application-priority", "5");
    try (OutputStream out = new FileOutputStream(new File(dir, "capacity-scheduler.xml"))) {
      file.writeXml(out);
    }
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS,
        FileSystemBasedConfigurationProvider.class.getName());
    conf.set(YarnConfiguration.FS_BASED_RM_CONF_STORE, dir.toURI().toString());
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    rm = cluster.start(conf);
    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    assertEquals("the provider's file made the queues", 2,
        scheduler.getQueueInfo("root", true, false).getChildQueues().size());
    assertEquals("alice's default_priority in a", 2,
        scheduler.checkAndGetApplicationPriority(null, alice, "a", null).getPriority());
    assertEquals("b's default-application-priority", 5,
        scheduler.checkAndGetApplicationPriority(null, alice, "b", null).getPriority());
    try {
      scheduler.checkAndGetApplicationPriority(Priority.newInstance(4), alice, "a", null);
      fail("alice got priority 4 in a, above her max_priority 3");
    } catch (YarnException e) {
      assertTrue(e.getMessage(), e.getMessage().endsWith(" for 4"));
    }
  }

  /** A core rebuilt from the RM's bookkeeping after a panic keeps the updated order. */
  @Test
  public void aRebuiltCoreKeepsTheUpdatedPriority() throws Exception {
    start("fifo", null);
    MockNM nm = rm.registerNode("h1:1234", 4 * GB, 4);
    RMApp early = submit("default", Priority.newInstance(0));
    MockAM amEarly = LocusRmFixture.launchAndRegisterAM(early, rm, nm);
    RMApp late = submit("default", Priority.newInstance(0));
    MockAM amLate = LocusRmFixture.launchAndRegisterAM(late, rm, nm);
    amEarly.allocate("*", GB, 4, new ArrayList<>());
    amLate.allocate("*", GB, 4, new ArrayList<>());
    rm.getClientRMService().updateApplicationPriority(UpdateApplicationPriorityRequest
        .newInstance(late.getApplicationId(), Priority.newInstance(5)));

    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    // The rebuild runs on its own thread after the next scheduler event finds the core poisoned.
    CoreFaults.panic(scheduler.currentCore(), "core bug after a priority update");
    int[] got = new int[2];
    for (int i = 0; i < ROUNDS && got[0] + got[1] == 0; i++) {
      int[] now = oneHeartbeat(rm, nm, amEarly, amLate);
      got[0] += now[0];
      got[1] += now[1];
    }
    assertEquals(1, scheduler.getCoreRebuilds());
    assertEquals("the raised job first, from the rebuilt core", 2, got[1]);
    assertEquals(0, got[0]);
  }
}
