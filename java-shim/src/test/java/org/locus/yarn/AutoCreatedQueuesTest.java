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
   * By full path: the first user's queue is created; past max-queues, under a leaf or under a
   * parent that creates no queues, both refuse the queue as unknown (Locus adds why;
   * CapacityScheduler's diagnostics repeat their start).
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

  /**
   * A path two levels below the static parent creates the parent on the way (itself creating
   * its children) and the leaf under it; a second leaf joins that parent; a path deeper than
   * {@code maximum-queue-depth} (2 by default, here 3 on one run) or under a leaf is refused,
   * the same way under both.
   */
  @Test
  public void aSubmissionTwoLevelsDownCreatesItsParentOnTheWay() throws Exception {
    AgainstCapacityScheduler.Script script = run -> {
      run.submit("alice", "root.users.alice.app1");
      run.submit("alice", "root.users.alice.app2");
      run.submit("bob", "root.users.bob.x.y");
      run.submit("carol", "root.default.carol.x");
      run.running();
    };
    for (Setup setup : new Setup[] {usersParent(), usersParent()
        .cs("root.users.auto-queue-creation-v2.maximum-queue-depth", "3")}) {
      List<String> cs = unknownQueues(AgainstCapacityScheduler.run(cluster,
          Under.CAPACITY_SCHEDULER, setup, script));
      List<String> locus = unknownQueues(AgainstCapacityScheduler.run(cluster,
          Under.LOCUS_CAPACITY, setup, script));
      assertEquals(String.join("\n", cs), String.join("\n", locus));
      assertTrue(String.join("\n", cs), cs.get(1).endsWith("ACCEPTED in "
          + "root.users.alice.app2 at priority 0"));
    }
  }

  /**
   * A created parent and its leaf stay across {@code -refreshQueues}; the next leaf joins the
   * same parent.
   */
  @Test
  public void aCreatedParentStaysAcrossARefresh() throws Exception {
    AgainstCapacityScheduler.compare(cluster, usersParent(), run -> {
      run.submit("alice", "root.users.alice.a1");
      run.refresh(AgainstCapacityScheduler.CS + "root.default.maximum-capacity", "90");
      run.submit("alice", "root.users.alice.a2");
      run.submit("bob", "root.users.bob.b1");
      run.running();
    }, Under.LOCUS_CAPACITY);
  }

  /**
   * A template set on a wildcarded parent path ({@code root.*}) reaches a queue created under
   * {@code root.users}, as CS's own template reader applies it.
   */
  @Test
  public void aWildcardTemplateReachesTheCreatedQueue() throws Exception {
    String v2 = ".auto-queue-creation-v2.template.";
    Setup setup = usersParent().cs("root.*" + v2 + "maximum-capacity", "40");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "root.users.alice");
      run.showMaximum("root.users.alice");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.contains("queue root.users.alice: maximum 40.0"));
  }

  /** A mapping to a queue under a parent yet to be created creates both, as CS does. */
  @Test
  public void aMappingToAQueueUnderAParentYetToBeCreatedCreatesBoth() throws Exception {
    Setup setup = usersParent().cs("queue-mappings", "u:%user:root.users.team.%user");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("alice", "default");
      run.running();
    }, Under.LOCUS_CAPACITY);
    assertTrue(String.join("\n", cs), cs.get(0).endsWith("ACCEPTED in root.users.team.alice at "
        + "priority 0"));
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

  /**
   * With root closed, a parent yet to be created admits whom the static parent's
   * {@code parent-template} lists name, on its first leaf and on the next ones; another user
   * is refused its own parent, as the lists say.
   */
  @Test
  public void theParentTemplatesAclsDecideWhoMayCreateAParent() throws Exception {
    Setup setup = usersParent().aclsOn().rootClosed()
        .cs("root.users.auto-queue-creation-v2.parent-template.acl_submit_applications",
            "alice");
    AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "root.users.alice.a1");
      run.submit("bob", "root.users.bob.b1");
      run.submit("alice", "root.users.alice.a2");
      run.showAcls("alice");
      run.running();
    }, Under.LOCUS_CAPACITY);
  }
}
