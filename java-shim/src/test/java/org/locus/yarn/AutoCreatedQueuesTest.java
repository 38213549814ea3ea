package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;
import org.locus.yarn.AgainstCapacityScheduler.Under;

/**
 * Queues created on a user's first submission under a parent that allows it
 * ({@code auto-queue-creation-v2.enabled}), through a {@code %user} mapping and by full path,
 * their bound ({@code max-queues}) and their ACLs, under CapacityScheduler and under Locus in
 * the same run ({@link AgainstCapacityScheduler}).
 */
public class AutoCreatedQueuesTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static Setup usersParent() {
    return new Setup().cs("root.queues", "default,users")
        .cs("root.default.capacity", "1w").cs("root.users.capacity", "1w")
        .cs("root.users.auto-queue-creation-v2.enabled", "true");
  }

  @Test
  public void aMappedUserGetsANewQueueUntilTheParentIsFull() throws Exception {
    Setup setup = usersParent().cs("root.users.auto-queue-creation-v2.max-queues", "2")
        .cs("queue-mappings", "u:%user:root.users.%user");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
      run.submit("bob", "default");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(0).endsWith("ACCEPTED in root.users.alice at "
        + "priority 0"));
    assertTrue(String.join("\n", cs), cs.get(2).contains("Max Child Queue limit exceeded"));
  }

  /**
   * By full path: the first user's queue is created; past max-queues, under a leaf, under no
   * queue or two levels down (a parent on the fly, which Locus does not create), both refuse
   * the queue as unknown (Locus adds why; CapacityScheduler's diagnostics repeat their start).
   */
  @Test
  public void aSubmissionByFullPathCreatesTheQueueWhereThePathAllowsIt() throws Exception {
    Setup setup = usersParent().cs("root.users.auto-queue-creation-v2.max-queues", "1");
    AgainstCapacityScheduler.Script script = run -> {
      run.submit("alice", "root.users.alice");
      run.submit("bob", "root.users.bob");
      run.submit("carol", "root.default.carol");
      run.submit("dave", "root.nothing.dave");
      run.running();
    };
    List<String> cs = unknownQueues(AgainstCapacityScheduler.run(cluster,
        Under.CAPACITY_SCHEDULER, setup, script));
    List<String> locus = unknownQueues(AgainstCapacityScheduler.run(cluster,
        Under.LOCUS_CAPACITY, setup, script));
    assertEquals(String.join("\n", cs), String.join("\n", locus));
    assertTrue(String.join("\n", cs), cs.get(0).endsWith("ACCEPTED in root.users.alice at "
        + "priority 0"));
    assertEquals("submit app2 by bob to root.users.bob: FAILED unknown queue: root.users.bob",
        cs.get(1));
  }

  private static List<String> unknownQueues(List<String> transcript) {
    List<String> out = new ArrayList<>();
    for (String line : transcript) {
      out.add(line.replaceFirst("FAILED .*unknown queue: ([^;\\s]+).*$",
          "FAILED unknown queue: $1"));
    }
    return out;
  }

  /**
   * With root closed, the template's submit list lets its user create and use a queue; a user
   * it does not list is refused at submission, as the parent's lists say.
   */
  @Test
  public void theTemplatesAclsDecideWhoMayCreateAQueue() throws Exception {
    Setup setup = usersParent().aclsOn().rootClosed()
        .cs("root.users.auto-queue-creation-v2.leaf-template.acl_submit_applications", "alice")
        .cs("root.users.acl_submit_applications", "bob");
    AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "root.users.alice");
      run.submit("bob", "root.users.bob");
      run.submit("carol", "root.users.carol");
      run.submit("alice", "root.users.alice");
      run.showAcls("alice");
      run.running();
    }, Under.LOCUS_CAPACITY);
  }
}
