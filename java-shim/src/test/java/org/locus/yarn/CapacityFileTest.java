package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.After;
import org.junit.BeforeClass;
import org.junit.Test;
import org.locus.yarn.queue.QueueFile;

/**
 * capacity-scheduler.xml's keys (set in the RM's configuration, which CapacityScheduler's
 * parser reads like the file) inside a real in-process ResourceManager under
 * {@code locus.policy=capacity}: a three-level tree with absolute figures, ACLs inherited down
 * it, queue mappings applied where the RM places submissions, STOPPED queues, AM and user limits
 * holding, refresh rules, and keys Locus cannot honour refused or listed.
 */
public class CapacityFileTest {
  private static final int GB = 1024;
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final int ROUNDS = 40;

  private final List<MockRM> rms = new ArrayList<>();

  @BeforeClass
  public static void resolveTestHosts() {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  @After
  public void stopRms() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  /**
   * root: default 20, eng 60 (max 80) with etl 70 and adhoc 30 (max 50, user-limit-factor 0.5),
   * ops 20 (submit ACL carol, AMs 10 %); alice mapped to etl.
   */
  private static YarnConfiguration conf() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 512);
    conf.set("locus.policy", "capacity");
    // Stepped by hand with MockRM's helpers, which need decisions at heartbeats (LocusRmFixture).
    conf.set(SchedulingMode.KEY, "heartbeat");
    conf.set("locus.scheduling.eager", "false");
    conf.set(CS + "root.queues", "default,eng,ops");
    conf.set(CS + "root.default.capacity", "20");
    conf.set(CS + "root.eng.capacity", "60");
    conf.set(CS + "root.eng.maximum-capacity", "80");
    conf.set(CS + "root.eng.queues", "etl,adhoc");
    conf.set(CS + "root.eng.etl.capacity", "70");
    conf.set(CS + "root.eng.adhoc.capacity", "30");
    conf.set(CS + "root.eng.adhoc.maximum-capacity", "50");
    conf.set(CS + "root.eng.adhoc.user-limit-factor", "0.5");
    conf.set(CS + "root.ops.capacity", "20");
    conf.set(CS + "root.ops.maximum-am-resource-percent", "0.1");
    conf.set(CS + "maximum-am-resource-percent", "0.5");
    conf.set(CS + "queue-mappings", "u:alice:etl");
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    conf.set(CS + "root.acl_submit_applications", " ");
    conf.set(CS + "root.acl_administer_queue", " ");
    conf.set(CS + "root.default.acl_submit_applications", "*");
    conf.set(CS + "root.eng.acl_submit_applications", "*");
    conf.set(CS + "root.ops.acl_submit_applications", "carol");
    return conf;
  }

  private MockRM start(YarnConfiguration conf) {
    MockRM rm = new MockRM(LocusRmFixture.privateState(conf));
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
    rms.add(rm);
    rm.start();
    return rm;
  }

  private static LocusScheduler scheduler(MockRM rm) {
    return (LocusScheduler) rm.getResourceScheduler();
  }

  /** A MapReduce application: its AM (priority 0) falls under the queue's AM limits. */
  private static RMApp submit(MockRM rm, String queue, String user) throws Exception {
    return submit(rm, queue, user, "MAPREDUCE");
  }

  private static RMApp submit(MockRM rm, String queue, String user, String type)
      throws Exception {
    MockRMAppSubmissionData.Builder b = MockRMAppSubmissionData.Builder
        .createWithMemory(512, rm).withUser(user).withAppType(type)
        .withWaitForAppAcceptedState(false);
    if (queue != null) {
      b = b.withQueue(queue);
    }
    return MockRMAppSubmitter.submit(rm, b.build());
  }

  private static RMAppState settle(MockRM rm, RMApp app) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      rm.drainEvents();
      RMAppState s = app.getState();
      if (s != RMAppState.NEW && s != RMAppState.NEW_SAVING && s != RMAppState.SUBMITTED) {
        return s;
      }
      Thread.sleep(50);
    }
    return app.getState();
  }

  private static String messages(Throwable e) {
    return LocusRmFixture.messages(e);
  }

  /** How many of {@code apps} got their AM container after a few heartbeats of {@code nm}. */
  private static int amsStarted(MockRM rm, MockNM nm, List<RMApp> apps) throws Exception {
    for (int i = 0; i < 10; i++) {
      nm.nodeHeartbeat(true);
      LocusRmFixture.settle(rm);
    }
    int started = 0;
    for (RMApp app : apps) {
      if (app.getCurrentAppAttempt() != null
          && app.getCurrentAppAttempt().getAppAttemptState() != RMAppAttemptState.SCHEDULED) {
        started++;
      }
    }
    return started;
  }

  @Test
  public void theTreeReachesTheCoreWithAbsoluteFiguresAndCapacitySchedulersDefaults()
      throws Exception {
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf(), false));
    assertEquals("[root, root.default, root.eng, root.eng.etl, root.eng.adhoc, root.ops]",
        file.paths().toString());
    MockRM rm = start(conf());
    LocusScheduler s = scheduler(rm);
    // The core enforces absolute figures: etl 70 % of eng's 60 % = 42 % of the cluster.
    assertEquals("[etl, adhoc]", s.getQueueInfo("eng", true, false).getChildQueues().stream()
        .map(QueueInfo::getQueueName).collect(java.util.stream.Collectors.toList()).toString());
    assertEquals("root.eng.adhoc",
        s.getQueueInfo("root.eng.adhoc", false, false).getQueuePath());
  }

  /**
   * {@code yarn queue -status eng}, {@code mapred queue -list} and the web UI read the tree as
   * CapacityScheduler gives it: parents answer with their children, every capacity is relative
   * to the parent, and a parent's applications are those of the leaves below it.
   */
  @Test
  public void queueInfoIsTheNestedTreeWithCapacitiesRelativeToTheParent() throws Exception {
    MockRM rm = start(conf());
    LocusScheduler s = scheduler(rm);
    QueueInfo root = s.getQueueInfo("root", true, true);
    Map<String, QueueInfo> top = new HashMap<>();
    for (QueueInfo q : root.getChildQueues()) {
      top.put(q.getQueueName(), q);
    }
    assertEquals("root's children", "[default, eng, ops]",
        new java.util.TreeSet<>(top.keySet()).toString());
    QueueInfo eng = top.get("eng");
    assertEquals("root.eng", eng.getQueuePath());
    assertEquals(0.6f, eng.getCapacity(), 1e-4);
    assertEquals(0.8f, eng.getMaximumCapacity(), 1e-4);
    Map<String, QueueInfo> engKids = new HashMap<>();
    for (QueueInfo q : eng.getChildQueues()) {
      engKids.put(q.getQueueName(), q);
    }
    assertEquals("eng's children (recursive)", 2, engKids.size());
    assertEquals(0.7f, engKids.get("etl").getCapacity(), 1e-4);
    assertEquals(1.0f, engKids.get("etl").getMaximumCapacity(), 1e-4);
    assertEquals(0.3f, engKids.get("adhoc").getCapacity(), 1e-4);
    assertEquals(0.5f, engKids.get("adhoc").getMaximumCapacity(), 1e-4);
    assertEquals(0.2f, top.get("ops").getCapacity(), 1e-4);

    // yarn queue -status eng (by name and by path), as the RM's client service asks.
    for (String name : new String[] {"eng", "root.eng"}) {
      QueueInfo parent = s.getQueueInfo(name, false, false);
      assertEquals(name, "root.eng", parent.getQueuePath());
      assertEquals(name, 0.6f, parent.getCapacity(), 1e-4);
      assertEquals(name, QueueState.RUNNING, parent.getQueueState());
      assertTrue(name, parent.getChildQueues().isEmpty());
    }

    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp inEtl = submit(rm, "etl", "alice");
    LocusRmFixture.launchAndRegisterAM(inEtl, rm, nm);
    // The AM's 512 MB count once in etl, in eng and in root, as CS's QueueMetrics add up.
    for (String q : new String[] {"root.eng.etl", "root.eng", "root"}) {
      assertEquals(q, 512, QueueMetrics.getQueueMetrics().get(q).getAllocatedMB());
    }
    assertEquals(1, s.getAppsInQueue("root.eng").size());
    assertEquals(1, s.getAppsInQueue("eng").size());
    assertEquals(0, s.getAppsInQueue("ops").size());
    // A parent is not a queue applications run in.
    RMApp inEng = submit(rm, "eng", "alice");
    assertEquals(RMAppState.FAILED, settle(rm, inEng));
  }

  /**
   * One property changed: an operator who only switches the scheduler class keeps the tenants'
   * queues of their capacity-scheduler.xml, without also setting locus.policy.
   */
  @Test
  public void withoutLocusPolicyAFileWithSeveralLeavesRunsTheCapacityPolicy() throws Exception {
    YarnConfiguration conf = conf();
    conf.unset("locus.policy");
    MockRM rm = start(conf);
    LocusScheduler s = scheduler(rm);
    assertEquals("the file's three queues under root", 3,
        s.getQueueInfo("root", true, false).getChildQueues().size());
    assertEquals("etl: 70 % of eng", 0.7f, s.getQueueInfo("etl", false, false).getCapacity(),
        1e-4);
  }

  @Test
  public void aclsAreInheritedDownTheTreeAndSubmissionsOutsideThemRefused() throws Exception {
    MockRM rm = start(conf());
    LocusScheduler s = scheduler(rm);
    UserGroupInformation mallory = UserGroupInformation.createRemoteUser("mallory");
    // eng's '*' admits into etl and adhoc, two levels down; ops is carol's only.
    assertTrue(s.checkAccess(mallory, QueueACL.SUBMIT_APPLICATIONS, "root.eng.adhoc"));
    assertFalse(s.checkAccess(mallory, QueueACL.SUBMIT_APPLICATIONS, "root.ops"));
    assertTrue(s.checkAccess(UserGroupInformation.createRemoteUser("carol"),
        QueueACL.SUBMIT_APPLICATIONS, "ops"));
    rm.registerNode("h1:1234", 8 * GB, 8);
    try {
      submit(rm, "ops", "mallory");
      fail("mallory's submission to ops was accepted");
    } catch (Exception e) {
      // Refused at submission, as for CapacityScheduler: the client's call fails.
      assertTrue(messages(e), messages(e)
          .contains("User mallory does not have permission to submit"));
    }
  }

  @Test
  public void mappingsPlaceSubmissionsToDefaultAndANamedQueueIsKept() throws Exception {
    MockRM rm = start(conf());
    rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp mapped = submit(rm, null, "alice");
    assertEquals(RMAppState.ACCEPTED, settle(rm, mapped));
    assertEquals("alice is mapped to etl", "root.eng.etl", mapped.getQueue());
    RMApp named = submit(rm, "adhoc", "alice");
    assertEquals(RMAppState.ACCEPTED, settle(rm, named));
    assertEquals("override is off: a named queue stays", "root.eng.adhoc", named.getQueue());
    RMApp other = submit(rm, null, "bob");
    assertEquals(RMAppState.ACCEPTED, settle(rm, other));
    assertEquals("root.default", other.getQueue());
  }

  @Test
  public void aUserLimitAndAnAmLimitHold() throws Exception {
    MockRM rm = start(conf());
    // 10 GB: adhoc is guaranteed 18 % = 1843 MB; bob's user AM limit is adhoc's AM share (the
    // global 0.5) of that guarantee times factor 0.5, 460 MB; ops's AMs 10 % of its usable memory
    // (its maximum, the whole idle cluster), 1024 MB, and carol's (the user AM limit) 10 % of
    // ops's 2048 MB guarantee times factor 1, 204 MB.
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    List<RMApp> bobs = new ArrayList<>();
    List<RMApp> carols = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      // Not MapReduce: the AM limits hold all the same (the RM asks for every AM at priority 0),
      // as in CapacityScheduler.
      bobs.add(submit(rm, "adhoc", "bob", "YARN"));
      carols.add(submit(rm, "ops", "carol"));
    }
    for (RMApp app : bobs) {
      assertEquals(RMAppState.ACCEPTED, settle(rm, app));
    }
    // Above bob's user AM limit: only the first, started in a queue whose AMs hold nothing.
    assertEquals("bob's AMs in adhoc", 1, amsStarted(rm, nm, bobs));
    // Below one AM: only the first, which CapacityScheduler starts in a queue running none.
    assertEquals("carol's AMs in ops", 1, amsStarted(rm, nm, carols));
  }

  /**
   * The user limit on task containers (the AM limits are above): since every AM type is under the
   * AM share, {@link #aUserLimitAndAnAmLimitHold} no longer reaches it.
   */
  @Test
  public void aUserStopsNearHisUserLimitThoughHisQueueHasRoom() throws Exception {
    MockRM rm = start(conf());
    // 10 GB: adhoc is guaranteed 18 % = 1843 MB and may grow to 50 % of eng's 80 % (4096 MB);
    // user-limit-factor 0.5 caps one user at 921 MB, which CapacityScheduler rounds up to the
    // 512 MB minimum allocation and may pass by the one container that crosses it.
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit(rm, "adhoc", "bob", "YARN");
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    am.allocate("*", 512, 6, new ArrayList<>());
    int tasks = 0;
    for (int i = 0; i < 30; i++) {
      nm.nodeHeartbeat(true);
      LocusRmFixture.settle(rm);
      tasks += am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers().size();
    }
    int heldMb = 512 + 512 * tasks;
    assertTrue("bob holds " + heldMb + " MB with his AM", heldMb > 921 && heldMb <= 1024 + 512);
    assertEquals(RMAppState.RUNNING, app.getState());
  }

  @Test
  public void refreshReReadsTheTreeStopsAQueueAndRefusesDeletingABusyOne() throws Exception {
    MockRM rm = start(conf());
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler s = scheduler(rm);
    RMApp running = submit(rm, "ops", "carol");
    MockAM am = LocusRmFixture.launchAndRegisterAM(running, rm, nm);

    YarnConfiguration gone = conf();
    gone.set(CS + "root.queues", "default,eng");
    gone.set(CS + "root.default.capacity", "40");
    try {
      s.reinitialize(gone, rm.getRMContext());
      fail("deleted ops while it runs an application");
    } catch (IOException e) {
      assertTrue(messages(e), messages(e).contains("root.ops cannot be deleted from the capacity "
          + "scheduler configuration, as the queue is not yet in stopped state. Current State : "
          + "RUNNING"));
    }

    YarnConfiguration stopped = conf();
    stopped.set(CS + "root.ops.state", "STOPPED");
    stopped.set(CS + "root.eng.etl.capacity", "60");
    stopped.set(CS + "root.eng.adhoc.capacity", "40");
    s.reinitialize(stopped, rm.getRMContext());
    assertEquals("adhoc: 40 % of eng", 0.4f,
        s.getQueueInfo("adhoc", false, false).getCapacity(), 1e-4);
    assertEquals(QueueState.DRAINING, s.getQueueInfo("ops", false, false).getQueueState());
    RMApp late = submit(rm, "ops", "carol");
    assertEquals(RMAppState.FAILED, settle(rm, late));
    assertTrue(late.getDiagnostics().toString(), late.getDiagnostics().toString()
        .contains("Queue root.ops is STOPPED. Cannot accept submission of application"));
    // The running one is not touched.
    am.allocate("*", 512, 1, new ArrayList<>());
    nm.nodeHeartbeat(true);
    rm.drainEvents();
    assertEquals(RMAppState.RUNNING, running.getState());
  }

  /**
   * A refresh the core accepts but the shim's own reading refuses (here a malformed queue
   * mapping, which only Hadoop's parser on the Java side reads) changes nothing: the core, the
   * queue tree and the mappings stay on the settings in force, and the error names the culprit.
   */
  @Test
  public void aRefreshRefusedAfterTheCoreTookItLeavesEverythingAsItWas() throws Exception {
    MockRM rm = start(conf());
    rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler s = scheduler(rm);
    String coreQueues = s.currentCore().capacityQueues();
    YarnConfiguration bad = conf();
    bad.set(CS + "root.default.capacity", "30");
    bad.set(CS + "root.eng.capacity", "50");
    bad.set(CS + "queue-mappings", "u:alice");
    try {
      s.reinitialize(bad, rm.getRMContext());
      fail("a malformed queue mapping was accepted");
    } catch (IOException e) {
      assertTrue(messages(e), messages(e).contains("u:alice"));
    }
    assertEquals("the core's queues", coreQueues, s.currentCore().capacityQueues());
    assertEquals("default keeps 20 %", 0.2f,
        s.getQueueInfo("default", false, false).getCapacity(), 1e-4);
    RMApp mapped = submit(rm, null, "alice");
    assertEquals(RMAppState.ACCEPTED, settle(rm, mapped));
    assertEquals("alice is still mapped to etl", "root.eng.etl", mapped.getQueue());
  }

  /**
   * A refresh the core and the shim's own reading accept but Hadoop's part refuses (the
   * scheduling monitors AbstractYarnScheduler#reinitialize starts from the new file; here one
   * policy that starts and one that does not exist) changes nothing either: the core, the queue
   * tree, the Configuration a rebuilt core would open with and the running monitors stay on the
   * settings in force, and the error names the culprit.
   */
  @Test
  public void aRefreshTheSchedulingMonitorsRefuseLeavesEverythingAsItWas() throws Exception {
    MockRM rm = start(conf());
    rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler s = scheduler(rm);
    String coreQueues = s.currentCore().capacityQueues();
    String idle = IdleEditPolicy.class.getName();
    String missing = "org.locus.yarn.NoSuchEditPolicy";
    // Hadoop starts the policies in HashSet order: the idle one first, so the refusal of the
    // missing one finds it already running.
    assertEquals(idle, new HashSet<>(Arrays.asList(missing, idle)).iterator().next());
    YarnConfiguration bad = conf();
    bad.set(CS + "root.default.capacity", "30");
    bad.set(CS + "root.eng.capacity", "50");
    bad.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    bad.setStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, idle, missing);
    try {
      s.reinitialize(bad, rm.getRMContext());
      fail("a missing scheduling monitor policy was accepted");
    } catch (IOException e) {
      assertTrue(messages(e), messages(e).contains(missing));
    }
    assertEquals("the core's queues", coreQueues, s.currentCore().capacityQueues());
    assertEquals("default keeps 20 %", 0.2f,
        s.getQueueInfo("default", false, false).getCapacity(), 1e-4);
    assertEquals("the Configuration in force", "20", s.getConf().get(CS + "root.default.capacity"));
    assertTrue("a monitor of the refused file still runs",
        s.getSchedulingMonitorManager().isRSMEmpty());
  }

  /** An absolute leaf under a percentage parent: refused with CapacityScheduler's words. */
  @Test
  public void anAbsoluteLeafUnderAPercentageParentIsRefusedAsCapacitySchedulerRefusesIt() {
    YarnConfiguration conf = conf();
    conf.set(CS + "root.eng.adhoc.capacity", "[memory=1024,vcores=1]");
    YarnConfiguration csConf = new YarnConfiguration(conf);
    csConf.setClass(YarnConfiguration.RM_SCHEDULER,
        org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler.class,
        ResourceScheduler.class);
    String expected = "Parent=root.eng: When absolute minResource is used, we must make sure "
        + "both parent and child all use absolute minResource";
    try {
      start(csConf);
      fail("CapacityScheduler started with an absolute leaf under a percentage parent");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(expected));
    }
    try {
      start(conf);
      fail("started with an absolute leaf under a percentage parent");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(CS + "root.eng.adhoc.capacity"));
      assertTrue(messages(e), messages(e).contains(expected));
    }
  }

  /**
   * A mode Locus does not run yet stops the RM under the default policy too (no
   * {@code locus.policy}) and under an explicit single-queue one: the file is never dropped with
   * only a warning.
   */
  @Test
  public void unsupportedCapacityModesStopTheRmUnderEveryPolicy() {
    String[][] cases = {
        // A managed parent with the file's own children: Locus runs only created ones there.
        {"root.eng.auto-create-child-queue.enabled", "true", null, "root.eng.queues"},
        {"root.eng.auto-create-child-queue.enabled", "true", "fair", "root.eng.queues"}};
    for (String[] c : cases) {
      YarnConfiguration conf = conf();
      if (c[2] == null) {
        conf.unset("locus.policy");
      } else {
        conf.set("locus.policy", c[2]);
        conf.set("locus.capacity.ignore-file", "true");
      }
      conf.set(CS + c[0], c[1]);
      try {
        start(conf);
        fail("started with " + c[0] + "=" + c[1] + " under locus.policy=" + c[2]);
      } catch (Exception e) {
        assertTrue(messages(e), messages(e).contains(CS + (c.length > 3 ? c[3] : c[0])));
      }
    }
  }

  /** Siblings mixing weights and percentages: refused with CapacityScheduler's own words. */
  @Test
  public void siblingsMixingWeightsAndPercentagesAreRefusedAsCapacitySchedulerRefusesThem()
      throws Exception {
    YarnConfiguration conf = conf();
    conf.set(CS + "root.eng.adhoc.capacity", "1w");
    String csMessage = null;
    YarnConfiguration csConf = new YarnConfiguration(conf);
    csConf.setClass(YarnConfiguration.RM_SCHEDULER,
        org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler.class,
        ResourceScheduler.class);
    try {
      start(csConf);
      fail("CapacityScheduler started with mixed siblings");
    } catch (Exception e) {
      csMessage = messages(e);
    }
    String expected = "Parent queue 'root.eng' have children queue used mixed of  weight mode, "
        + "percentage and absolute mode, it is not allowed, please double check, details:"
        + "{Queue=root.eng.etl, label= uses percentage mode}. {Queue=root.eng.adhoc, label= "
        + "uses weight mode}. {Queue=root.eng.adhoc, label= uses percentage mode}. ";
    assertTrue(csMessage, csMessage.contains(expected));
    try {
      start(conf);
      fail("Locus started with mixed siblings");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains(expected));
      assertTrue(messages(e), messages(e).contains(CS + "root.eng.adhoc.capacity"));
    }
  }

  /**
   * An explicit single-queue policy with a file of several leaves would run every tenant in one
   * queue while the RM's reports name the queues they asked for: refused at start, naming
   * locus.policy, unless the operator opts in.
   */
  @Test
  public void anExplicitSingleQueuePolicyWithSeveralLeavesNeedsTheOptIn() throws Exception {
    YarnConfiguration conf = conf();
    conf.set("locus.policy", "fsp");
    try {
      start(conf);
      fail("started fsp over a file with four leaves");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains("locus.policy"));
      assertTrue(messages(e), messages(e).contains("locus.capacity.ignore-file"));
    }
    conf.set("locus.capacity.ignore-file", "true");
    MockRM rm = start(conf);
    assertEquals(1, scheduler(rm).getQueueInfo("root", true, false).getChildQueues().size());
  }

  @Test
  public void keysLocusDoesNotHonourAreListed() throws Exception {
    YarnConfiguration conf = conf();
    conf.set(CS + "node-locality-delay", "40");
    conf.set(CS + "root.eng.etl.ordering-policy", "fifo-with-partitions");
    conf.set(CS + "root.eng.adhoc.ordering-policy", "fair");
    conf.set(CS + "mapping-rule-format", "json");
    conf.set(CS + "mapping-rule-json", "{\"rules\":[]}");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String listed = file.unhonoured().toString();
    assertFalse(listed, listed.contains("mapping-rule"));
    assertTrue(listed, listed.contains(CS + "node-locality-delay=40"));
    assertTrue(listed, listed.contains(CS + "root.eng.etl.ordering-policy=fifo-with-partitions"));
    assertFalse(listed, listed.contains("root.eng.adhoc.ordering-policy"));
    assertFalse(listed, listed.contains(CS + "root.eng.etl.capacity"));
    assertFalse(listed, listed.contains("acl_submit_applications"));
  }

  /**
   * A queue's largest container, in any of its three forms, on the queue or in a template, is
   * honoured (QueueMaximumAllocationTest), so not listed.
   */
  @Test
  public void maximumAllocationKeysAreHonoured() throws Exception {
    YarnConfiguration conf = conf();
    conf.set(CS + "root.eng.maximum-allocation-mb", "4096");
    conf.set(CS + "root.eng.etl.maximum-allocation-vcores", "2");
    conf.set(CS + "root.ops.maximum-allocation", "memory-mb=2048,vcores=1");
    conf.set(CS + "root.ops.auto-queue-creation-v2.enabled", "true");
    conf.set(CS + "root.ops.auto-queue-creation-v2.template.maximum-allocation-mb", "1024");
    conf.set(CS + "root.ops.auto-queue-creation-v2.leaf-template.maximum-allocation",
        "memory-mb=1024,vcores=1");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String listed = file.unhonoured().toString();
    assertFalse(listed, listed.contains("maximum-allocation"));
    assertEquals("<memory:4096, vCores:2>", file.maximumAllocation("root.eng.etl").toString());
    assertEquals("<memory:4096, vCores:4>", file.maximumAllocation("root.eng.adhoc").toString());
    assertEquals("<memory:8192, vCores:4>", file.maximumAllocation("root.default").toString());
  }

  /**
   * The running-application limits reach the core in the tree (a queue's own, else the file's
   * default, root's included; the users' default and each user's own) and are not listed.
   */
  @Test
  public void runningApplicationLimitsGoToTheCoreAndAreNotListed() throws Exception {
    YarnConfiguration conf = conf();
    conf.set(CS + "max-parallel-apps", "7");
    conf.set(CS + "root.eng.max-parallel-apps", "3");
    conf.set(CS + "user.max-parallel-apps", "4");
    conf.set(CS + "user.alice.max-parallel-apps", "1");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String listed = file.unhonoured().toString();
    assertFalse(listed, listed.contains("max-parallel-apps"));
    String tree = file.treeJson();
    assertTrue(tree, tree.contains("\"path\":\"root.eng\""));
    assertTrue(tree, tree.matches(".*\"path\":\"root\"[^}]*\"max_parallel_apps\":7.*"));
    assertTrue(tree, tree.matches(".*\"path\":\"root.eng\"[^}]*\"max_parallel_apps\":3.*"));
    assertTrue(tree, tree.matches(
        ".*\"path\":\"root.eng.etl\"[^}]*\"max_parallel_apps\":7.*"));
    assertTrue(tree, tree.contains("\"user_max_parallel_apps\":4"));
    assertTrue(tree, tree.contains("\"users_max_parallel_apps\":{\"alice\":1}"));
  }

  /** A limit that is no number stops the RM naming its key, as CapacityScheduler fails on it. */
  @Test
  public void aRunningApplicationLimitThatIsNoNumberIsRefused() throws Exception {
    YarnConfiguration conf = conf();
    conf.set(CS + "user.bob.max-parallel-apps", "many");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String tree = file.treeJson();
    assertTrue(tree, tree.contains("\"key\":\"" + CS + "user.bob.max-parallel-apps\""));
  }

  /**
   * Template keys on a wildcarded parent path are applied by CapacityScheduler's own template
   * reader to every created queue whose parent the wildcard matches, so they are honoured;
   * other keys on a wildcarded path mean nothing to CapacityScheduler and are listed.
   */
  @Test
  public void wildcardTemplateKeysAreHonoured() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    String v2 = "auto-queue-creation-v2.";
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "1w");
    conf.set(CS + "root.users.capacity", "1w");
    conf.set(CS + "root.users." + v2 + "enabled", "true");
    conf.set(CS + "root.*." + v2 + "template.maximum-capacity", "40");
    conf.set(CS + "root.*.*." + v2 + "leaf-template.capacity", "2w");
    conf.set(CS + "root.*.ordering-policy", "fair");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String listed = file.unhonoured().toString();
    assertEquals(listed, "[" + CS + "root.*.ordering-policy=fair]", listed);
  }

  /**
   * A flexible parent's parent-template keys are honoured where they name what a created parent
   * honours (its own keys, its templates, its creation keys), and so is the depth bound; what
   * they name beyond that is listed like any other key.
   */
  @Test
  public void parentTemplateKeysAreHonouredWhereTheirKeyIs() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    String v2 = "auto-queue-creation-v2.";
    String users = CS + "root.users." + v2;
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "1w");
    conf.set(CS + "root.users.capacity", "1w");
    conf.set(users + "enabled", "true");
    conf.set(users + "maximum-queue-depth", "3");
    conf.set(users + "parent-template.maximum-capacity", "50");
    conf.set(users + "parent-template." + v2 + "max-queues", "20");
    conf.set(users + "parent-template." + v2 + "leaf-template.capacity", "2w");
    conf.set(users + "parent-template." + v2 + "parent-template.maximum-capacity", "40");
    conf.set(users + "parent-template.ordering-policy", "fair");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    String listed = file.unhonoured().toString();
    assertEquals(listed, "[" + users + "parent-template.ordering-policy=fair]", listed);
  }

  /**
   * One round of the queue management policy on a managed parent with room for two of the
   * template's guarantees: the idle leaf gives its guarantee back, the first of the waiting
   * leaves by submission gets it, the other waits; a round with nothing to move keeps the file.
   */
  @Test
  public void aManagementRoundMovesAnIdleLeafsGuaranteeToTheFirstWaitingLeaf() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(CS + "root.queues", "default,users");
    conf.set(CS + "root.default.capacity", "50");
    conf.set(CS + "root.users.capacity", "50");
    conf.set(CS + "root.users.auto-create-child-queue.enabled", "true");
    conf.set(CS + "root.users.leaf-queue-template.capacity", "40");
    QueueFile file = QueueFile.parse(new CapacitySchedulerConfiguration(conf, false));
    for (String user : new String[] {"alice", "bob", "carol", "dave"}) {
      file = file.withCreated("root.users." + user);
    }
    assertEquals("[40.0, 40.0, 0.0, 0.0]", capacities(file, "alice", "bob", "carol", "dave"));
    List<String> applications = Arrays.asList("root.users.bob", "root.users.dave",
        "root.users.carol", "root.users.dave");
    QueueFile moved = file.withGuaranteesMoved(applications);
    assertEquals("[0.0, 40.0, 0.0, 40.0]", capacities(moved, "alice", "bob", "carol", "dave"));
    assertTrue(moved.withGuaranteesMoved(applications) == moved);
  }

  private static String capacities(QueueFile file, String... users) {
    List<Float> out = new ArrayList<>();
    for (String user : users) {
      out.add(file.configuration().getNonLabeledQueueCapacity(
          new org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath(
              "root.users." + user)));
    }
    return out.toString();
  }
}
