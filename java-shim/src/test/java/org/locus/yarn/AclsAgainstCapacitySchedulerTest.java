package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_CAPACITY;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_DEFAULT_POLICY;
import static org.locus.yarn.AgainstCapacityScheduler.compare;

import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;

/**
 * Queue and priority ACLs, under CapacityScheduler and under Locus, side by side: who may
 * submit where, who may move an application where, what {@code -showacls} lists, with
 * Hadoop's defaults ({@code yarn.admin.acl} unset, i.e. everyone), with an admin ACL, with
 * ACLs off, after {@code -refreshQueues}, and with an authorization provider of the
 * operator's own. Every scenario runs with {@code locus.policy=capacity}; those on
 * {@code default} alone also under Locus's default policy.
 */
public class AclsAgainstCapacitySchedulerTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** a open to alice, b administered by bob; root closed, ACLs on, no admin ACL set. */
  private static Setup twoQueues() {
    return new Setup().aclsOn().queues("a", "50", "b", "50").rootClosed()
        .cs("root.a.acl_submit_applications", "alice")
        .cs("root.b.acl_administer_queue", "bob");
  }

  @Test
  public void submitAclsHoldWithHadoopsDefaultAdminAcl() throws Exception {
    List<String> cs = compare(cluster, twoQueues(), run -> {
      run.submit("alice", "a");
      run.submit("mallory", "a");
      run.submit("bob", "b");
      run.submit("alice", "b");
      run.submit("mallory", "root.a");
      run.showAcls("alice");
      run.showAcls("bob");
      run.showAcls("mallory");
      run.running();
    }, LOCUS_CAPACITY);
    // The reference itself, so the scenario cannot pass by both schedulers letting all in.
    assertEquals("submit app2 by mallory to a: REJECTED User mallory does not have "
        + "permission to submit app2 to queue a", cs.get(1));
  }

  @Test
  public void submitAclsOnTheDefaultQueueUnderEveryPolicy() throws Exception {
    Setup setup = new Setup().aclsOn().rootClosed()
        .cs("root.default.acl_submit_applications", "alice")
        .cs("root.default.acl_administer_queue", "bob");
    compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("mallory", "default");
      run.submit("bob", "default");
      run.running();
    }, LOCUS_CAPACITY, LOCUS_DEFAULT_POLICY);
  }

  @Test
  public void rootLeftAtHadoopsDefaultOpensEveryQueue() throws Exception {
    Setup setup = new Setup().aclsOn().queues("a", "50", "b", "50")
        .cs("root.a.acl_submit_applications", "alice");
    compare(cluster, setup, run -> {
      run.submit("mallory", "a");
      run.showAcls("mallory");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void theAdminAclGrantsNoQueueRights() throws Exception {
    Setup setup = twoQueues().set(YarnConfiguration.YARN_ADMIN_ACL, "admin")
        .cs("root.b.acl_submit_applications", "admin");
    compare(cluster, setup, run -> {
      String app = run.submit("alice", "a");
      run.submit("admin", "a");
      run.showAcls("admin");
      // The caller needs MODIFY_APP (owner, admin ACL or queue admin) and a right on the
      // target; the owner's own rights on the target are not asked.
      run.move("mallory", app, "b");
      run.move("alice", app, "b");
      run.move("admin", app, "b");
      run.move("alice", app, "a");
      run.move("bob", app, "a");
      run.move("admin", app, "nosuch");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void aclsOffLetEveryoneSubmitAndMoveWhileShowaclsListsTheConfiguredRights()
      throws Exception {
    Setup setup = twoQueues().set(YarnConfiguration.YARN_ACL_ENABLE, "false");
    compare(cluster, setup, run -> {
      String app = run.submit("mallory", "a");
      run.move("mallory", app, "b");
      run.showAcls("mallory");
      run.showAcls("alice");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void aRefreshChangesWhoMaySubmit() throws Exception {
    compare(cluster, twoQueues(), run -> {
      run.submit("mallory", "a");
      run.refresh(AgainstCapacityScheduler.CS + "root.a.acl_submit_applications", "mallory");
      run.submit("mallory", "a");
      run.submit("alice", "a");
      run.showAcls("alice");
      run.showAcls("mallory");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void anAuthorizationProviderOfTheOperatorsDecides() throws Exception {
    Setup setup = twoQueues()
        .set(YarnConfiguration.YARN_AUTHORIZATION_PROVIDER, OnlyErinAuthorizer.class.getName());
    compare(cluster, setup, run -> {
      run.submit("alice", "a");
      run.submit("erin", "a");
      run.submit("erin", "b");
      run.showAcls("erin");
      run.showAcls("alice");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void priorityAclsCapWhatAUserMaySubmitAndUpdate() throws Exception {
    Setup setup = twoQueues()
        .set(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, "10")
        .cs("root.a.acl_application_max_priority",
            "[user=alice max_priority=3 default_priority=1]");
    compare(cluster, setup, run -> {
      String app = run.submit("alice", "a");
      run.submit("alice", "a", 5);
      run.submit("alice", "a", 3);
      run.updatePriority("alice", app, 2);
      run.updatePriority("alice", app, 4);
    }, LOCUS_CAPACITY);
  }
}
