package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.reflect.UndeclaredThrowableException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Test;

/**
 * The submit ACL as a real client meets it, on the embedded cluster, under CapacityScheduler
 * and under Locus in the one test: with {@code yarn.acl.enable=true} and {@code yarn.admin.acl}
 * left at Hadoop's default (everyone), a user outside queue a's submit ACL submitting through
 * YarnClient is refused, with the same message from both, and the user inside it is accepted.
 * Only the submissions run: the accepted application is killed at once.
 */
public class SubmitAclOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";

  private static Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(YarnConfiguration.YARN_ACL_ENABLE, "true");
    s.put(CS + "root.queues", "a,b");
    s.put(CS + "root.a.capacity", "50");
    s.put(CS + "root.b.capacity", "50");
    // Root admits nobody (Hadoop's default for root is everyone): a's own list decides.
    s.put(CS + "root.acl_submit_applications", " ");
    s.put(CS + "root.acl_administer_queue", " ");
    s.put(CS + "root.a.acl_submit_applications", "alice");
    s.put("locus.policy", "capacity");
    return s;
  }

  @Test
  public void aUserOutsideTheSubmitAclIsRefusedAsUnderCapacityScheduler() throws Exception {
    List<String> outcomes = new ArrayList<>();
    try (EmbeddedCluster cluster = EmbeddedCluster.startHdfs("submit-acl", 1, 1)) {
      for (String scheduler : new String[] {CapacityScheduler.class.getName(),
          EmbeddedCluster.LOCUS_SCHEDULER}) {
        // One authorizer per JVM, made by the first RM: each RM here gets its own.
        YarnAuthorizationProvider.destroy();
        cluster.startYarn(scheduler, settings());
        try {
          ApplicationId alices = submit(cluster, "alice", "a");
          assertNotNull(alices);
          kill(cluster, alices);
          try {
            ApplicationId id = submit(cluster, "mallory", "a");
            fail(scheduler + " accepted mallory's " + id + " in a");
          } catch (UndeclaredThrowableException e) {
            // doAs wraps the client's YarnException.
            Throwable refused = e.getCause();
            assertTrue(String.valueOf(refused), refused instanceof YarnException);
            // The first line: what the client prints (the server's stack trace follows it).
            String firstLine = refused.getMessage().split("\n", 2)[0];
            outcomes.add(firstLine.replaceAll("application_\\d+_\\d+", "<app>"));
          }
        } finally {
          cluster.stopYarn();
          YarnAuthorizationProvider.destroy();
        }
      }
    }
    assertTrue(outcomes.get(0), outcomes.get(0).contains(
        "User mallory does not have permission to submit <app> to queue a"));
    assertEquals("Locus against CapacityScheduler", outcomes.get(0), outcomes.get(1));
  }

  /** Submits, as {@code user}, an application whose AM sleeps. */
  private static ApplicationId submit(EmbeddedCluster cluster, String user, String queue)
      throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    return ugi.doAs((PrivilegedExceptionAction<ApplicationId>) () -> {
      YarnClient yc = YarnClient.createYarnClient();
      yc.init(cluster.clientConf());
      yc.start();
      try {
        YarnClientApplication app = yc.createApplication();
        ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
        ctx.setApplicationName("acl-probe");
        ctx.setQueue(queue);
        ctx.setResource(Resource.newInstance(EmbeddedCluster.AM_MEMORY_MB, 1));
        ctx.setAMContainerSpec(ContainerLaunchContext.newInstance(null, null,
            Collections.singletonList("sleep 60"), null, null, null));
        return yc.submitApplication(ctx);
      } finally {
        yc.stop();
      }
    });
  }

  private static void kill(EmbeddedCluster cluster, ApplicationId id) throws Exception {
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    try {
      yc.killApplication(id);
    } finally {
      yc.stop();
    }
  }
}
