package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.commons.io.IOUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshClusterMaxPriorityRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * The operator's own {@code capacity-scheduler.xml} (the sample in {@code hadoop-conf/}, three
 * levels) on the embedded cluster, read through the RM's configuration provider and applied
 * by {@code yarn rmadmin -refreshQueues} (the admin RPC), as an operator switches a running RM:
 * submissions land in the queue a mapping or {@code -queue} names, a user outside a queue's
 * submit ACL is refused, a user limit and an AM limit hold, an edited file takes effect on
 * the next refresh, a priority update reorders pending applications, the classic scheduler
 * page renders the tree, and the REST resource and {@code yarn queue -status} return it. Applications are plain YARN applications whose AM is {@code sleep}: the
 * scheduler's decisions are visible without running jobs (typed MAPREDUCE, so the AM limits,
 * which Locus applies to MapReduce AMs, cover them, unless a test says otherwise).
 *
 * <p>The cluster starts with Locus's defaults and switches to the file on the first refresh:
 * {@link EmbeddedCluster} clears its site directory when it starts.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class OperatorsCapacityFileTest {
  private static final int AM_MB = 512;
  private static final long WAIT_MS = 30_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static EmbeddedCluster cluster;
  private static File csFile;
  /** One of carol's applications in ops, admitted before ops is stopped. */
  private static ApplicationId carolsFirst;

  @BeforeClass
  public static void startCluster() throws Exception {
    assumeTrue("capacity-scheduler.xml is read by Locus; scheduler under test is "
        + EmbeddedCluster.configuredScheduler(),
        EmbeddedCluster.LOCUS_SCHEDULER.equals(EmbeddedCluster.configuredScheduler()));
    // Two 4 GB nodes: 8192 MB.
    cluster = EmbeddedCluster.start("operators-cs-file", 2, 1, false, true);
    File dir = cluster.rmSiteDir();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    Configuration site = new Configuration(false);
    site.set("locus.policy", "capacity");
    site.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    site.set(YarnConfiguration.YARN_ADMIN_ACL,
        UserGroupInformation.getCurrentUser().getShortUserName() + ",yarn");
    // Priorities above 0 exist only once the cluster allows them (3.5.0's default is 0).
    site.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    write(site, new File(dir, "yarn-site.xml"));
    csFile = new File(dir, "capacity-scheduler.xml");
    Files.copy(sample().toPath(), csFile.toPath(), StandardCopyOption.REPLACE_EXISTING);
    refreshQueues();
    ResourceManagerAdministrationProtocol admin = ClientRMProxy.createRMProxy(
        cluster.clientConf(), ResourceManagerAdministrationProtocol.class);
    try {
      // yarn rmadmin -refreshClusterMaxPriority
      admin.refreshClusterMaxPriority(RefreshClusterMaxPriorityRequest.newInstance());
    } finally {
      RPC.stopProxy(admin);
    }
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static File sample() {
    for (String p : new String[] {"../hadoop-conf/capacity-scheduler.xml",
        "hadoop-conf/capacity-scheduler.xml"}) {
      File f = new File(p);
      if (f.isFile()) {
        return f;
      }
    }
    throw new IllegalStateException("hadoop-conf/capacity-scheduler.xml not found from "
        + new File(".").getAbsolutePath());
  }

  private static void write(Configuration conf, File to) throws IOException {
    File tmp = new File(to.getPath() + ".tmp");
    try (OutputStream out = new FileOutputStream(tmp)) {
      conf.writeXml(out);
    }
    Files.move(tmp.toPath(), to.toPath(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** What {@code yarn rmadmin -refreshQueues} does: one refreshQueues RPC to the RM. */
  private static void refreshQueues() throws Exception {
    ResourceManagerAdministrationProtocol admin = ClientRMProxy.createRMProxy(
        cluster.clientConf(), ResourceManagerAdministrationProtocol.class);
    try {
      admin.refreshQueues(RefreshQueuesRequest.newInstance());
    } finally {
      RPC.stopProxy(admin);
    }
  }

  /** Submits, as {@code user}, a MapReduce-typed application whose AM sleeps. */
  private static ApplicationId submit(String user, String queue) throws Exception {
    return submit(user, queue, "MAPREDUCE");
  }

  /**
   * Submits, as {@code user}, an application of {@code type} whose AM sleeps; null queue: none
   * named.
   */
  private static ApplicationId submit(String user, String queue, String type)
      throws Exception {
    return submit(user, queue, type, "sleeper-" + user);
  }

  private static ApplicationId submit(String user, String queue, String type, String name)
      throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    return ugi.doAs((PrivilegedExceptionAction<ApplicationId>) () -> {
      YarnClient yc = YarnClient.createYarnClient();
      yc.init(cluster.clientConf());
      yc.start();
      try {
        YarnClientApplication app = yc.createApplication();
        ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
        ctx.setApplicationName(name);
        ctx.setApplicationType(type);
        if (queue != null) {
          ctx.setQueue(queue);
        }
        ctx.setResource(Resource.newInstance(AM_MB, 1));
        ctx.setAMContainerSpec(ContainerLaunchContext.newInstance(null, null,
            Collections.singletonList("sleep 300"), null, null, null));
        return yc.submitApplication(ctx);
      } finally {
        yc.stop();
      }
    });
  }

  /**
   * Submits as {@code user} a submission the RM must refuse; returns what the client is told
   * (YarnClient throws: at once for a refused submit ACL, once the application is FAILED,
   * with its diagnostics, for a refusal by the scheduler).
   */
  private static String refused(String user, String queue) throws Exception {
    try {
      ApplicationId id = submit(user, queue);
      ApplicationReport r = settled(id);
      fail(id + " of " + user + " in " + queue + " was not refused: "
          + r.getYarnApplicationState());
      return null;
    } catch (UndeclaredThrowableException e) {
      Throwable cause = e.getCause();
      assertTrue(String.valueOf(cause), cause instanceof YarnException);
      return cause.getMessage();
    }
  }

  private static ApplicationReport report(ApplicationId id) throws Exception {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      return yc.getApplicationReport(id);
    } finally {
      yc.stop();
    }
  }

  /** Waits until the application is ACCEPTED (or beyond); returns its report. */
  private static ApplicationReport settled(ApplicationId id) throws Exception {
    long deadline = System.currentTimeMillis() + WAIT_MS;
    ApplicationReport r = report(id);
    while (r.getYarnApplicationState() == YarnApplicationState.NEW
        || r.getYarnApplicationState() == YarnApplicationState.NEW_SAVING
        || r.getYarnApplicationState() == YarnApplicationState.SUBMITTED) {
      if (System.currentTimeMillis() > deadline) {
        fail(id + " never left " + r.getYarnApplicationState());
      }
      Thread.sleep(200);
      r = report(id);
    }
    return r;
  }

  /** True once the RM gave the application's AM a container. */
  private static boolean amStarted(ApplicationId id) {
    RMApp app = cluster.resourceManager().getRMContext().getRMApps().get(id);
    if (app == null || app.getCurrentAppAttempt() == null) {
      return false;
    }
    RMAppAttemptState s = app.getCurrentAppAttempt().getAppAttemptState();
    return s != RMAppAttemptState.NEW && s != RMAppAttemptState.SUBMITTED
        && s != RMAppAttemptState.SCHEDULED;
  }

  /** How many of {@code apps} have their AM once the count has not moved for 5 s. */
  private static int amsStartedWhenSettled(List<ApplicationId> apps) throws Exception {
    int last = -1;
    long stableSince = System.currentTimeMillis();
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (System.currentTimeMillis() < deadline) {
      int n = 0;
      for (ApplicationId id : apps) {
        n += amStarted(id) ? 1 : 0;
      }
      if (n != last) {
        last = n;
        stableSince = System.currentTimeMillis();
      } else if (System.currentTimeMillis() - stableSince > 5_000) {
        break;
      }
      Thread.sleep(250);
    }
    return last;
  }

  @Test
  public void a_submissionsLandInTheQueueTheMappingOrQueueNames() throws Exception {
    ApplicationReport mapped = settled(submit("alice", null));
    assertEquals("u:alice:etl", "root.eng.etl", mapped.getQueue());
    ApplicationReport named = settled(submit("erin", "adhoc"));
    assertEquals("-queue adhoc", "root.eng.adhoc", named.getQueue());
    ApplicationReport byName = settled(submit("erin", null, "MAPREDUCE", "nightly-etl"));
    assertEquals("app-name nightly-etl:etl", "root.eng.etl", byName.getQueue());
    ApplicationReport unmapped = settled(submit("frank", null));
    assertEquals("no mapping, no queue", "root.default", unmapped.getQueue());
    assertEquals(YarnApplicationState.ACCEPTED, unmapped.getYarnApplicationState());
  }

  @Test
  public void b_aUserOutsideTheSubmitAclIsRefused() throws Exception {
    String why = refused("mallory", "ops");
    assertTrue(why, why.contains("User mallory does not have permission to submit"));
    assertTrue(why, why.contains("to queue ops"));
  }

  @Test
  public void c_aUserLimitAndAnAmLimitHold() throws Exception {
    List<ApplicationId> bobs = new ArrayList<>();
    List<ApplicationId> carols = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      // Not MapReduce: the AM limits hold all the same (the RM asks for every AM at priority 0),
      // as in CapacityScheduler.
      bobs.add(submit("bob", "adhoc", "YARN"));
      carols.add(submit("carol", "ops"));
    }
    // adhoc is guaranteed 18 % of 8192 MB, 1474 MB; bob's user AM limit is the global
    // maximum-am-resource-percent (0.5) of that times user-limit-factor 0.5, 368 MB, below one
    // 512 MB AM. CapacityScheduler starts an AM past that limit only in a queue with no active
    // application or whose AMs hold nothing (AbstractLeafQueue#activateApplications), and
    // erin's sleeping AM from the first test still runs in adhoc: none of bob's starts.
    assertEquals("bob's AMs in adhoc", 0, amsStartedWhenSettled(bobs));
    // carol's user AM limit in ops, as CapacityScheduler computes it: 15 % of ops's 1638 MB
    // guarantee times user-limit-factor 1, 245 MB, below one AM; the queue running no AM starts
    // one anyway. ops's own AM limit (15 % of 8192 MB it may use, 1228 MB) would allow two and
    // carol's user limit (1638 MB) three.
    assertEquals("carol's AMs in ops", 1, amsStartedWhenSettled(carols));
    carolsFirst = carols.get(0);
  }

  @Test
  public void d_refreshWithAnEditedFileTakesEffect() throws Exception {
    Configuration edited = new Configuration(false);
    edited.addResource(new org.apache.hadoop.fs.Path(csFile.toURI()));
    edited.set("yarn.scheduler.capacity.root.queues", "default,eng");
    edited.set("yarn.scheduler.capacity.root.default.capacity", "40");
    write(edited, csFile);
    try {
      refreshQueues();
      fail("ops was deleted while carol's applications run in it");
    } catch (Exception e) {
      assertTrue(e.getMessage(), e.getMessage().contains("root.ops cannot be deleted from the "
          + "capacity scheduler configuration, as the queue is not yet in stopped state"));
    }

    edited = new Configuration(false);
    edited.addResource(new org.apache.hadoop.fs.Path(sample().toURI()));
    edited.set("yarn.scheduler.capacity.root.ops.state", "STOPPED");
    edited.set("yarn.scheduler.capacity.root.eng.etl.capacity", "60");
    edited.set("yarn.scheduler.capacity.root.eng.adhoc.capacity", "40");
    write(edited, csFile);
    refreshQueues();
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      // adhoc: 40 % of eng (relative to the parent, as CapacityScheduler reports it).
      assertEquals(0.4f, yc.getQueueInfo("adhoc").getCapacity(), 1e-4);
    } finally {
      yc.stop();
    }
    String why = refused("carol", "ops");
    assertTrue(why, why.contains("Queue root.ops is STOPPED. Cannot accept submission of "
        + "application"));
    // carol's applications admitted before the stop are still there.
    assertEquals(YarnApplicationState.ACCEPTED, report(carolsFirst).getYarnApplicationState());
  }

  /** What the RM's client protocol does for {@code yarn application -kill}, as an admin. */
  private static void killEverything() throws Exception {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      for (ApplicationReport r : yc.getApplications(EnumSet.of(YarnApplicationState.NEW,
          YarnApplicationState.NEW_SAVING, YarnApplicationState.SUBMITTED,
          YarnApplicationState.ACCEPTED, YarnApplicationState.RUNNING))) {
        yc.killApplication(r.getApplicationId());
      }
    } finally {
      yc.stop();
    }
  }

  private static void kill(ApplicationId id) throws Exception {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      yc.killApplication(id);
    } finally {
      yc.stop();
    }
  }

  /** {@code yarn application -appId <id> -updatePriority <p>}, run by {@code user}. */
  private static Priority updatePriority(String user, ApplicationId id, int priority)
      throws Exception {
    return UserGroupInformation.createRemoteUser(user).doAs(
        (PrivilegedExceptionAction<Priority>) () -> {
          YarnClient yc = YarnClient.createYarnClient();
          yc.init(cluster.clientConf());
          yc.start();
          try {
            return yc.updateApplicationPriority(id, Priority.newInstance(priority));
          } finally {
            yc.stop();
          }
        });
  }

  @Test
  public void e_aPriorityUpdateReordersPendingApps() throws Exception {
    killEverything();
    // default is guaranteed 20 % of 8192 MB, 1638 MB, and dave is its only user: his user AM
    // limit is the global maximum-am-resource-percent (0.5) of that, 819 MB, one 512 MB AM.
    ApplicationId running = submit("dave", "default");
    assertEquals("dave's first AM in default", 1,
        amsStartedWhenSettled(Collections.singletonList(running)));
    ApplicationId earlier = submit("dave", "default");
    ApplicationId later = submit("dave", "default");
    assertEquals("dave's waiting AMs", 0, amsStartedWhenSettled(Arrays.asList(earlier, later)));

    assertEquals(5, updatePriority("dave", later, 5).getPriority());
    assertEquals(5, report(later).getPriority().getPriority());
    // dave's AM leaves: room for one more, which the raised one gets.
    kill(running);
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (!amStarted(later) && !amStarted(earlier) && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
    }
    assertEquals("the AMs started after the freed slot (later first, raised to 5; earlier "
        + "at 0)", 1, amsStartedWhenSettled(Arrays.asList(earlier, later)));
    assertTrue("the application raised to priority 5 did not start; the earlier one at 0 "
        + (amStarted(earlier) ? "took the slot" : "did not start either"), amStarted(later));
  }

  private static String webApp() {
    return "http://" + cluster.yarn().getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  private static String get(String path, String accept) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(webApp() + path).openConnection();
    c.setRequestProperty("Accept", accept);
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String body = in == null ? "" : IOUtils.toString(in, StandardCharsets.UTF_8);
    assertEquals("GET " + path + " answered " + body, 200, status);
    return body;
  }

  @Test
  public void f_theSchedulerPageRendersTheQueueTree() throws Exception {
    RmClassicPages.restore(cluster.resourceManager());
    String page = get("/cluster/scheduler", "text/html");
    assertTrue(page, page.contains("id=\"locus-queues\""));
    // Each queue's row is indented by its depth: 10 px + 18 px per level below root.
    String[][] rows = {{"root", "10"}, {"root.default", "28"}, {"root.eng", "28"},
        {"root.eng.etl", "46"}, {"root.eng.adhoc", "46"}, {"root.ops", "28"}};
    for (String[] row : rows) {
      assertTrue(row[0] + " at depth " + row[1] + " in\n" + page, Pattern.compile(
          "padding-left:" + row[1] + "px\"[^>]*title=\"" + Pattern.quote(row[0]) + "\"")
          .matcher(page).find());
    }
    assertTrue(page, page.contains("Applications in root.eng.etl"));
    assertTrue(page, page.contains("sleeper-dave"));
  }

  private static Map<String, JsonNode> byName(JsonNode queues) {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode q : queues.path("queue")) {
      out.put(q.path("queueName").asText(), q);
    }
    return out;
  }

  @Test
  public void g_theRestResourceReturnsTheTree() throws Exception {
    JsonNode info = JSON.readTree(get("/ws/v1/cluster/scheduler", "application/json"))
        .path("scheduler").path("schedulerInfo");
    Map<String, JsonNode> top = byName(info.path("queues"));
    assertEquals(info.toString(), new java.util.TreeSet<>(Arrays.asList("default", "eng", "ops")),
        new java.util.TreeSet<>(top.keySet()));
    JsonNode eng = top.get("eng");
    assertEquals("root.eng", eng.path("queuePath").asText());
    assertTrue("a parent is not a leaf: " + eng, eng.path("type").isMissingNode());
    assertEquals(60.0, eng.path("capacity").asDouble(), 1e-3);
    assertEquals(80.0, eng.path("maxCapacity").asDouble(), 1e-3);
    Map<String, JsonNode> engKids = byName(eng.path("queues"));
    assertEquals(eng.toString(), 2, engKids.size());
    // The figures of the file as refreshed in d: etl 60 and adhoc 40 of eng.
    JsonNode adhoc = engKids.get("adhoc");
    assertEquals("capacitySchedulerLeafQueueInfo", adhoc.path("type").asText());
    assertEquals("root.eng.adhoc", adhoc.path("queuePath").asText());
    assertEquals(40.0, adhoc.path("capacity").asDouble(), 1e-3);
    assertEquals(24.0, adhoc.path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(50.0, adhoc.path("maxCapacity").asDouble(), 1e-3);
    assertEquals(40.0, adhoc.path("absoluteMaxCapacity").asDouble(), 1e-3);
    assertEquals(36.0, engKids.get("etl").path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals("STOPPED", top.get("ops").path("state").asText());
    // dave's two applications from e in default, one holding its 512 MB AM.
    JsonNode dflt = top.get("default");
    assertEquals(dflt.toString(), 2, dflt.path("numApplications").asInt());
    assertEquals(dflt.toString(), 512, dflt.path("resourcesUsed").path("memory").asLong());
    assertEquals(0, eng.path("resourcesUsed").path("memory").asLong());
  }

  @Test
  public void h_queueStatusOfAParentQueue() throws Exception {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      // yarn queue -status eng
      QueueInfo eng = yc.getQueueInfo("eng");
      assertEquals("root.eng", eng.getQueuePath());
      assertEquals(0.6f, eng.getCapacity(), 1e-4);
      assertEquals(0.8f, eng.getMaximumCapacity(), 1e-4);
      assertEquals(QueueState.RUNNING, eng.getQueueState());
      // mapred queue -list: every queue of the tree.
      List<String> all = new ArrayList<>();
      for (QueueInfo q : yc.getAllQueues()) {
        all.add(q.getQueuePath());
      }
      all.remove("root");
      Collections.sort(all);
      assertEquals("[root.default, root.eng, root.eng.adhoc, root.eng.etl, root.ops]",
          all.toString());
    } finally {
      yc.stop();
    }
  }
}
