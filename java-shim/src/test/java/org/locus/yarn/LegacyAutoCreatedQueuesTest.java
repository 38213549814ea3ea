package org.locus.yarn;

import static org.junit.Assert.assertTrue;

import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;
import org.locus.yarn.AgainstCapacityScheduler.Under;

/**
 * Leaves created under a managed parent ({@code auto-create-child-queue.enabled}, the legacy
 * auto-created queues) on a mapped user's first submission, from the parent's
 * {@code leaf-queue-template}, under CapacityScheduler and under Locus in the same run
 * ({@link AgainstCapacityScheduler}).
 */
public class LegacyAutoCreatedQueuesTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static Setup managedUsers() {
    return new Setup().queues("default", "50", "users", "50")
        .cs("root.users.auto-create-child-queue.enabled", "true")
        .cs("root.users.leaf-queue-template.capacity", "40")
        .cs("root.users.leaf-queue-template.maximum-capacity", "60")
        .cs("queue-mappings", "u:%user:root.users.%user");
  }

  /**
   * Each mapped user gets a queue; once the parent's guarantee is handed out a new queue comes
   * with none and its application is still admitted; past max-queues the submission fails.
   */
  @Test
  public void aMappedUserGetsAQueueFromTheTemplate() throws Exception {
    Setup setup = managedUsers().cs("root.users.auto-create-child-queue.max-queues", "3");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
      run.submit("alice", "default");
      run.submit("dave", "default");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(0).endsWith("ACCEPTED in root.users.alice at "
        + "priority 0"));
    assertTrue(String.join("\n", cs), cs.get(4).contains("Max Child Queue limit exceeded"));
  }

  /**
   * A submission naming a managed parent's leaf itself, not placed there by a mapping, is
   * refused even though the queue is created, as CapacityScheduler does.
   */
  @Test
  public void aSubmissionByPathIsNotAMapping() throws Exception {
    Setup setup = managedUsers();
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("erin", "root.users.erin");
      run.submit("alice", "default");
      run.submit("alice", "root.users.alice");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(0).contains("is prohibited"));
  }

  /** A mapping naming the managed parent by its short name ({@code u:%user:users.%user}). */
  @Test
  public void aMappingMayNameTheParentByItsShortName() throws Exception {
    Setup setup = managedUsers().cs("queue-mappings", "u:%user:users.%user");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(1).contains("ACCEPTED in"));
  }

  /** With fail-on-exceeding-parent-capacity, a queue that would get no guarantee is refused. */
  @Test
  public void aFullParentRefusesTheQueueWhenToldTo() throws Exception {
    Setup setup = managedUsers()
        .cs("root.users.auto-create-child-queue.fail-on-exceeding-parent-capacity", "true");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(2).contains("guaranteed capacity"));
  }

  /**
   * With CapacityScheduler's queue management policy in the monitor, a leaf whose application
   * ends gives its guarantee back and the leaf that was created without one gets it, as CS
   * moves them; before Locus stood in for the policy the RM refused to start.
   */
  @Test
  public void theManagementPolicyMovesAGuaranteeToAWaitingLeaf() throws Exception {
    Setup setup = managedUsers()
        .set(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, "true")
        .set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, MonitorPolicies.QUEUE_MANAGEMENT)
        .set(CapacitySchedulerConfiguration.QUEUE_MANAGEMENT_MONITORING_INTERVAL, "200");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      String first = run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
      // Not shown here: a round between a submission and its attempt reaching the queue may
      // find a leaf idle (under CS too); once the first application is gone every round agrees.
      run.kill(first);
      run.awaitCapacity("root.users.carol", 40f, 20);
      run.awaitCapacity("root.users.alice", 0f, 20);
      run.showQueue("root.users.bob");
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.contains(
        "queue root.users.carol: capacity 40.0 maximum 60.0"));
  }
}
