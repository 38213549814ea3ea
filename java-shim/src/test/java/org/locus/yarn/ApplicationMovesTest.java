package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;

import java.lang.reflect.UndeclaredThrowableException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * {@code yarn application -movetoqueue} under {@code locus.policy=capacity}: the application,
 * its running containers and its pending asks move to the target leaf, in the RM's metrics,
 * the queue's usage and the core's queue figures (the moved app is bounded by its new queue);
 * a move to an unknown queue, to root, or to a queue the caller may not submit to is refused
 * naming the reason and changes nothing.
 */
public class ApplicationMovesTest {
  private static final int GB = 1024;

  private MockRM rm;

  /** Resolves the test hosts, keeps the RM's state private to this JVM, stops the RM. */
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private void start(boolean acls) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.set("locus.policy", "capacity");
    conf.set("locus.capacity.queues", "a:50:100,b:30:30,c:20:100");
    if (acls) {
      conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
      conf.set("yarn.scheduler.capacity.root.acl_submit_applications", " ");
      conf.set("yarn.scheduler.capacity.root.acl_administer_queue", " ");
      conf.set("yarn.scheduler.capacity.root.a.acl_submit_applications", "alice");
      conf.set("yarn.scheduler.capacity.root.b.acl_submit_applications", "bob");
    }
    rm = cluster.start(conf);
  }

  private RMApp submit(String queue, String user) throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withUser(user).build());
  }

  private QueueMetrics metrics(String leaf) {
    return QueueMetrics.getQueueMetrics().get("root." + leaf);
  }

  private String refusal(ApplicationId app, String target) {
    try {
      rm.getRMAppManager().moveApplicationAcrossQueue(app, target);
    } catch (YarnException e) {
      return e.getMessage();
    }
    fail("moving " + app + " to " + target + " was not refused");
    return null;
  }

  @Test
  public void aMovedAppTakesItsContainersAndPendingAsksAlong() throws Exception {
    start(false);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit("a", "alice");
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    am.allocate("*", GB, 2, new ArrayList<>());
    List<Container> running = heartbeatUntil(rm, nm, am, 2);
    assertEquals(2, running.size());
    // Ten more wanted before the move: 10 GB pending in a.
    am.allocate("*", GB, 10, new ArrayList<>());
    assertEquals(3 * GB, metrics("a").getAllocatedMB());
    assertEquals(10 * GB, metrics("a").getPendingMB());

    rm.getClientRMService().moveApplicationAcrossQueues(
        MoveApplicationAcrossQueuesRequest.newInstance(app.getApplicationId(), "b"));
    assertEquals("root.b", app.getQueue());
    LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
    assertEquals(1, scheduler.getAppsInQueue("b").size());
    assertEquals(0, scheduler.getAppsInQueue("a").size());
    assertEquals(0, metrics("a").getAllocatedMB());
    assertEquals(0, metrics("a").getPendingMB());
    assertEquals(3 * GB, metrics("b").getAllocatedMB());
    assertEquals(10 * GB, metrics("b").getPendingMB());
    assertEquals(1, metrics("b").getAppsRunning());
    assertEquals(0, metrics("a").getAppsRunning());

    // b may hold 30 % of 10 GB = 3 GB, which the moved app holds already: it gets nothing
    // more, whatever room the node has (in a it could have grown to the whole node).
    assertEquals(0, heartbeatUntil(rm, nm, am, 1).size());
    // Its two tasks finish: their release comes out of b, and the room goes to two of its
    // pending asks at once (the same heartbeats), still charged to b, which stays at its
    // maximum; a stays at zero.
    for (Container c : running) {
      nm.nodeHeartbeat(app.getCurrentAppAttempt().getAppAttemptId(), c.getId().getContainerId(),
          ContainerState.COMPLETE);
    }
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals(2, heartbeatUntil(rm, nm, am, 2).size());
    assertEquals(3 * GB, metrics("b").getAllocatedMB());
    assertEquals(8 * GB, metrics("b").getPendingMB());
    assertEquals(0, metrics("a").getAllocatedMB());
    assertEquals(0, metrics("a").getPendingMB());
  }

  @Test
  public void movesToUnknownOrNonLeafQueuesAreRefusedNamingTheReason() throws Exception {
    start(false);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit("a", "alice");
    LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    String unknown = refusal(app.getApplicationId(), "nosuch");
    assertTrue(unknown, unknown.contains("nosuch") && unknown.contains("no such queue"));
    String root = refusal(app.getApplicationId(), "root");
    assertTrue(root, root.contains("not a leaf queue"));
    assertEquals("root.a", app.getQueue());
    assertEquals(GB, metrics("a").getAllocatedMB());
    assertEquals(0, metrics("b").getAllocatedMB());
  }

  /** The RM asks whether the caller may submit to the target, as for CapacityScheduler. */
  @Test
  public void aMoveToAQueueTheCallerMayNotSubmitToIsRefused() throws Exception {
    start(true);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit("a", "alice");
    LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    String denied = null;
    try {
      UserGroupInformation.createRemoteUser("alice").doAs(
          (PrivilegedExceptionAction<Object>) () -> rm.getClientRMService()
              .moveApplicationAcrossQueues(MoveApplicationAcrossQueuesRequest.newInstance(
                  app.getApplicationId(), "b")));
      fail("alice moved her application into b");
    } catch (UndeclaredThrowableException e) {
      // doAs wraps the client call's YarnException.
      denied = e.getCause().getMessage();
    }
    assertTrue(denied, denied.contains("User alice cannot submit applications to target queue")
        && denied.contains(": b while moving"));
    assertEquals("root.a", app.getQueue());
    assertEquals(GB, metrics("a").getAllocatedMB());
  }
}
