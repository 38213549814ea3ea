package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
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
 * submit ACL is refused, a user limit and an AM limit hold, and an edited file takes effect on
 * the next refresh. Applications are plain YARN applications whose AM is {@code sleep}: the
 * scheduler's decisions are visible without running jobs (typed MAPREDUCE, so the AM limit,
 * which Locus applies to MapReduce AMs, covers them).
 *
 * <p>The cluster starts with Locus's defaults and switches to the file on the first refresh:
 * {@link EmbeddedCluster} clears its site directory when it starts.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class OperatorsCapacityFileTest {
  private static final int AM_MB = 512;
  private static final long WAIT_MS = 30_000;

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
    write(site, new File(dir, "yarn-site.xml"));
    csFile = new File(dir, "capacity-scheduler.xml");
    Files.copy(sample().toPath(), csFile.toPath(), StandardCopyOption.REPLACE_EXISTING);
    refreshQueues();
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

  /** Submits, as {@code user}, an application whose AM sleeps; null queue: none named. */
  private static ApplicationId submit(String user, String queue) throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    return ugi.doAs((PrivilegedExceptionAction<ApplicationId>) () -> {
      YarnClient yc = YarnClient.createYarnClient();
      yc.init(cluster.clientConf());
      yc.start();
      try {
        YarnClientApplication app = yc.createApplication();
        ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
        ctx.setApplicationName("sleeper-" + user);
        ctx.setApplicationType("MAPREDUCE");
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
   * Submits as {@code user} a submission the RM must fail; returns what the client is told
   * (YarnClient throws once the application is FAILED, with its diagnostics).
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
      bobs.add(submit("bob", "adhoc"));
      carols.add(submit("carol", "ops"));
    }
    // adhoc is guaranteed 18 % of 8192 MB, 1474 MB; user-limit-factor 0.5 gives bob 737 MB:
    // he gets containers while he holds at most that, so two 512 MB AMs of three.
    assertEquals("bob's AMs in adhoc", 2, amsStartedWhenSettled(bobs));
    // ops's AMs may hold 15 % of its usable memory (its 100 % maximum), 1228 MB: two AMs;
    // carol's user limit (ops's 1638 MB guarantee) would allow three.
    assertEquals("carol's AMs in ops", 2, amsStartedWhenSettled(carols));
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
      // adhoc: 40 % of eng's 60 %.
      assertEquals(0.24f, yc.getQueueInfo("adhoc").getCapacity(), 1e-4);
    } finally {
      yc.stop();
    }
    String why = refused("carol", "ops");
    assertTrue(why, why.contains("Queue root.ops is STOPPED. Cannot accept submission of "
        + "application"));
    // carol's applications admitted before the stop are still there.
    assertEquals(YarnApplicationState.ACCEPTED, report(carolsFirst).getYarnApplicationState());
  }
}
