package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.GetNewApplicationRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Rule;
import org.junit.Test;

/**
 * Queue ACLs inside a real (in-process) ResourceManager with {@code yarn.acl.enable=true}:
 * CapacityScheduler's keys and rules (root defaults to everyone, other queues to nobody, a
 * parent's list admits into its children, {@code yarn.admin.acl} grants no queue right), and
 * a submission by a user outside the queue's submit ACL refused by the RM. The side-by-side
 * runs against CapacityScheduler are in {@link AclsAgainstCapacitySchedulerTest}.
 */
public class QueueAclsTest {
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** Queues a and b under capacity; root closed, a open to alice, b administered by bob. */
  private static YarnConfiguration conf() {
    YarnConfiguration conf = locusConf();
    conf.set("locus.policy", "capacity");
    conf.set("locus.capacity.queues", "a:50:100,b:50:100");
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(CS + "root.acl_submit_applications", " ");
    conf.set(CS + "root.acl_administer_queue", "carol");
    conf.set(CS + "root.a.acl_submit_applications", "alice");
    conf.set(CS + "root.b.acl_administer_queue", "bob");
    return conf;
  }

  private static UserGroupInformation user(String name) {
    return UserGroupInformation.createRemoteUser(name);
  }

  @Test
  public void checkAccessFollowsTheQueueTreeNotTheAdminAcl() throws Exception {
    YarnConfiguration conf = conf();
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    MockRM rm = cluster.start(conf);
    LocusScheduler s = (LocusScheduler) rm.getResourceScheduler();

    assertTrue(s.checkAccess(user("alice"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));
    assertTrue("short names answer too", s.checkAccess(user("alice"),
        QueueACL.SUBMIT_APPLICATIONS, "a"));
    assertFalse("alice is not in b's list nor root's",
        s.checkAccess(user("alice"), QueueACL.SUBMIT_APPLICATIONS, "root.b"));
    assertFalse(s.checkAccess(user("mallory"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));
    assertFalse(s.checkAccess(user("mallory"), QueueACL.ADMINISTER_QUEUE, "root.a"));
    // Administering implies nothing about submitting, and the reverse.
    assertTrue(s.checkAccess(user("bob"), QueueACL.ADMINISTER_QUEUE, "root.b"));
    assertFalse(s.checkAccess(user("bob"), QueueACL.SUBMIT_APPLICATIONS, "root.b"));
    assertFalse(s.checkAccess(user("bob"), QueueACL.ADMINISTER_QUEUE, "root.a"));
    // Allowed at root: allowed in every child.
    assertTrue(s.checkAccess(user("carol"), QueueACL.ADMINISTER_QUEUE, "root.a"));
    assertTrue(s.checkAccess(user("carol"), QueueACL.ADMINISTER_QUEUE, "root.b"));
    // yarn.admin.acl is the RM's (administration, applications' own ACLs), never a queue's.
    assertFalse(s.checkAccess(user("admin"), QueueACL.SUBMIT_APPLICATIONS, "root.b"));
    assertFalse(s.checkAccess(user("admin"), QueueACL.ADMINISTER_QUEUE, "root.a"));
    assertFalse("an unknown queue is refused",
        s.checkAccess(user("alice"), QueueACL.SUBMIT_APPLICATIONS, "root.nope"));
  }

  @Test
  public void rootDefaultsToEveryoneAndOtherQueuesToNobodyAsInCapacityScheduler()
      throws Exception {
    YarnConfiguration conf = conf();
    conf.unset(CS + "root.acl_submit_applications");
    conf.unset(CS + "root.a.acl_submit_applications");
    MockRM rm = cluster.start(conf);
    LocusScheduler s = (LocusScheduler) rm.getResourceScheduler();
    assertTrue(s.checkAccess(user("anyone"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));
    assertTrue(s.checkAccess(user("anyone"), QueueACL.SUBMIT_APPLICATIONS, "root"));
  }

  @Test
  public void aclsOffLetEveryoneIn() throws Exception {
    YarnConfiguration conf = conf();
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, false);
    MockRM rm = cluster.start(conf);
    LocusScheduler s = (LocusScheduler) rm.getResourceScheduler();
    assertTrue(s.checkAccess(user("mallory"), QueueACL.ADMINISTER_QUEUE, "root.b"));
  }

  @Test
  public void aSubmissionOutsideTheSubmitAclIsRefusedNamingUserAndQueue() throws Exception {
    MockRM rm = cluster.start(conf());
    rm.registerNode("127.0.0.1:1234", 8 * GB, 8);

    RMApp ok = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("a").withUser("alice").build());
    assertEquals("root.a", ok.getQueue());

    // Refused at submission, as the RM refuses it for CapacityScheduler: the client's call
    // fails and no application is created.
    ApplicationId id = rm.getClientRMService()
        .getNewApplication(GetNewApplicationRequest.newInstance()).getApplicationId();
    try {
      MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withApplicationId(id).withQueue("a").withUser("mallory")
          .withWaitForAppAcceptedState(false).build());
      fail("mallory's submission to a was accepted");
    } catch (UndeclaredThrowableException e) {
      // The submitter's doAs wraps the client call's YarnException.
      String m = e.getCause().getMessage();
      assertTrue(m, e.getCause() instanceof YarnException && m.contains(
          "User mallory does not have permission to submit " + id + " to queue a"));
    }
    assertNull(rm.getRMContext().getRMApps().get(id));
    assertFalse(((LocusScheduler) rm.getResourceScheduler()).getSchedulerApplications()
        .containsKey(id));

    // Administering a queue lets one submit to it, as in CapacityScheduler.
    RMApp byAdmin = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("b").withUser("bob").build());
    assertEquals("root.b", byAdmin.getQueue());
  }

  @Test
  public void aRefreshRereadsTheAcls() throws Exception {
    MockRM rm = cluster.start(conf());
    LocusScheduler s = (LocusScheduler) rm.getResourceScheduler();
    assertFalse(s.checkAccess(user("erin"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));

    YarnConfiguration edited = conf();
    edited.set(CS + "root.a.acl_submit_applications", "erin");
    s.reinitialize(edited, rm.getRMContext());
    assertFalse(s.checkAccess(user("alice"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));
    assertTrue(s.checkAccess(user("erin"), QueueACL.SUBMIT_APPLICATIONS, "root.a"));
  }

  @Test
  public void showAclsListsWhatTheCallerMayDo() throws Exception {
    MockRM rm = cluster.start(conf());
    LocusScheduler s = (LocusScheduler) rm.getResourceScheduler();
    UserGroupInformation alice = user("alice");
    List<String> lines = alice.doAs(
        (java.security.PrivilegedExceptionAction<List<String>>) () -> {
          List<String> out = new ArrayList<>();
          for (org.apache.hadoop.yarn.api.records.QueueUserACLInfo info
              : s.getQueueUserAclInfo()) {
            out.add(info.getQueueName() + "=" + info.getUserAcls());
          }
          return out;
        });
    assertEquals("[root=[], root.a=[SUBMIT_APPLICATIONS], root.b=[]]", lines.toString());
  }
}
