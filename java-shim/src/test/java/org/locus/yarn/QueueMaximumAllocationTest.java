package org.locus.yarn;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_CAPACITY;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_DEFAULT_POLICY;
import static org.locus.yarn.AgainstCapacityScheduler.compare;

import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;

/**
 * A queue's largest container ({@code maximum-allocation-mb}, {@code maximum-allocation-vcores}
 * and the resource string {@code maximum-allocation}), inherited from the parent and, at root,
 * from the cluster's {@code yarn.scheduler.maximum-allocation-*}: the RM refuses an AM's
 * container asked above it at submission and an ask above it from a running AM, under
 * CapacityScheduler and under Locus in the same run ({@link AgainstCapacityScheduler}).
 */
public class QueueMaximumAllocationTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static final String A = AgainstCapacityScheduler.CS + "root.a.";

  /** a and b under a cluster maximum of 8 GB; AMs may take every queue's room. */
  private static Setup twoQueues() {
    Setup s = new Setup().queues("a", "50", "b", "50").cs("maximum-am-resource-percent", "1.0")
        .set(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, "8192");
    s.nodes = 2;
    return s;
  }

  @Test
  public void anAmAboveTheQueuesMaximumIsRefusedAtSubmission() throws Exception {
    List<String> cs = compare(cluster, twoQueues().cs("root.a.maximum-allocation-mb", "2048"),
        run -> {
          run.submitAsking("alice", "a", 4096, 1);
          run.submitAsking("alice", "a", 2048, 1);
          run.submitAsking("alice", "b", 4096, 1);
          run.running();
        }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).contains("REJECTED"));
    assertTrue(all, cs.get(3).equals("running: [app2, app3]"));
  }

  @Test
  public void aRunningAmAskingAboveTheQueuesMaximumIsRefused() throws Exception {
    List<String> cs = compare(cluster, twoQueues().cs("root.a.maximum-allocation-mb", "2048"),
        run -> {
          String app = run.submit("alice", "a");
          run.askFromAm(app, 4096, 1);
          run.askFromAm(app, 2048, 1);
          String other = run.submit("alice", "b");
          run.askFromAm(other, 4096, 1);
        }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(1).contains("REFUSED"));
    assertTrue(all, cs.get(2).endsWith("got [<memory:2048, vCores:1>]"));
    assertTrue(all, cs.get(4).endsWith("got [<memory:4096, vCores:1>]"));
  }

  /**
   * Asks are rounded up to the next minimum allocation as CapacityScheduler rounds them: over a
   * queue maximum that is no multiple of the minimum, the container may exceed the maximum by
   * less than one step, the AM's as well as the running AM's.
   */
  @Test
  public void anAskIsRoundedUpAsCapacitySchedulerRoundsIt() throws Exception {
    List<String> cs = compare(cluster, twoQueues().cs("root.a.maximum-allocation-mb", "1536"),
        run -> {
          String app = run.submitAsking("alice", "a", 1200, 1);
          run.showAmContainer(app);
          run.askFromAm(app, 1200, 1);
        }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(1).endsWith("<memory:2048, vCores:1>"));
    assertTrue(all, cs.get(2).endsWith("got [<memory:2048, vCores:1>]"));
  }

  /**
   * Outside {@code capacity} every application runs in {@code default}, held to what the file
   * sets for {@code root.default}.
   */
  @Test
  public void theDefaultQueuesMaximumHoldsUnderEveryPolicy() throws Exception {
    Setup setup = new Setup().cs("root.default.maximum-allocation-mb", "2048");
    List<String> cs = compare(cluster, setup, run -> {
      run.submitAsking("alice", "default", 4096, 1);
      String app = run.submit("alice", "default");
      run.askFromAm(app, 4096, 1);
      run.askFromAm(app, 2048, 1);
    }, LOCUS_CAPACITY, LOCUS_DEFAULT_POLICY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).contains("REJECTED"));
    assertTrue(all, cs.get(2).contains("REFUSED"));
  }

  /**
   * A child without the key takes its parent's maximum; a child's own key stands, even above
   * its parent's (CapacityScheduler holds a queue's value to the cluster's only).
   */
  @Test
  public void aChildInheritsItsParentsMaximumUnlessItSetsItsOwn() throws Exception {
    Setup setup = twoQueues().cs("root.a.queues", "c,d").cs("root.a.c.capacity", "50")
        .cs("root.a.d.capacity", "50").cs("root.a.maximum-allocation-mb", "2048")
        .cs("root.a.d.maximum-allocation-mb", "4096");
    List<String> cs = compare(cluster, setup, run -> {
      run.submitAsking("alice", "c", 4096, 1);
      run.submitAsking("alice", "d", 4096, 1);
      run.submitAsking("alice", "c", 2048, 1);
      run.running();
    }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).contains("REJECTED"));
    assertTrue(all, cs.get(3).equals("running: [app2, app3]"));
  }

  @Test
  public void aQueuesMaximumVcoresBoundsItsAsks() throws Exception {
    List<String> cs = compare(cluster, twoQueues().cs("root.a.maximum-allocation-vcores", "2"),
        run -> {
          run.submitAsking("alice", "a", 1024, 3);
          String app = run.submitAsking("alice", "a", 1024, 2);
          run.askFromAm(app, 1024, 3);
          run.running();
        }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).contains("REJECTED"));
    assertTrue(all, cs.get(2).contains("REFUSED"));
  }

  /** The resource string covers every type and, set, wins over the two older keys. */
  @Test
  public void theResourceStringFormBoundsItsAsksOverTheOlderKeys() throws Exception {
    Setup setup = twoQueues().cs("root.a.maximum-allocation", "memory-mb=2048,vcores=2")
        .cs("root.a.maximum-allocation-mb", "4096");
    List<String> cs = compare(cluster, setup, run -> {
      run.submitAsking("alice", "a", 4096, 1);
      run.submitAsking("alice", "a", 2048, 3);
      String app = run.submitAsking("alice", "a", 2048, 2);
      run.askFromAm(app, 3072, 1);
      run.running();
    }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).contains("REJECTED"));
    assertTrue(all, cs.get(1).contains("REJECTED"));
    assertTrue(all, cs.get(3).contains("REFUSED"));
  }

  /**
   * {@code -refreshQueues} may raise a leaf's maximum but not lower it (its AMs were told
   * it); a refused refresh leaves the maximum in force.
   */
  @Test
  public void aRefreshMayRaiseALeafsMaximumButNotLowerIt() throws Exception {
    List<String> cs = compare(cluster, twoQueues().cs("root.a.maximum-allocation-mb", "2048"),
        run -> {
          run.refresh(A + "maximum-allocation-mb", "1024");
          run.submitAsking("alice", "a", 2048, 1);
          run.refresh(A + "maximum-allocation-mb", "4096");
          run.submitAsking("alice", "a", 4096, 1);
          run.refresh(A + "maximum-allocation-mb", "16384");
          run.submitAsking("alice", "a", 8192, 1);
          run.running();
        }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(0).endsWith("REFUSED"));
    assertTrue(all, cs.get(2).endsWith("OK"));
    assertTrue(all, cs.get(4).endsWith("REFUSED"));
  }

  /** A leaf created on submission takes the key from its parent's template. */
  @Test
  public void aCreatedLeafTakesItsTemplatesMaximum() throws Exception {
    Setup setup = new Setup().cs("root.queues", "default,users")
        .cs("root.default.capacity", "1w").cs("root.users.capacity", "1w")
        .cs("root.users.auto-queue-creation-v2.enabled", "true")
        .cs("root.users.auto-queue-creation-v2.template.maximum-allocation-mb", "2048");
    List<String> cs = compare(cluster, setup, run -> {
      String app = run.submit("alice", "root.users.alice");
      run.askFromAm(app, 4096, 1);
      run.askFromAm(app, 2048, 1);
    }, LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.get(1).contains("REFUSED"));
  }

  /**
   * A template's maximum above the cluster's refuses the submission that would create the
   * queue, with CapacityScheduler's message. Locus only: CapacityScheduler's own creation throws
   * it inside the RM's event handling and the application is never answered.
   */
  @Test
  public void aTemplatesMaximumAboveTheClustersRefusesTheCreation() throws Exception {
    Setup setup = new Setup().cs("root.queues", "default,users")
        .cs("root.default.capacity", "1w").cs("root.users.capacity", "1w")
        .cs("root.users.auto-queue-creation-v2.enabled", "true")
        .cs("root.users.auto-queue-creation-v2.leaf-template.maximum-allocation-mb", "16384");
    List<String> locus = AgainstCapacityScheduler.run(cluster, LOCUS_CAPACITY, setup, run -> {
      run.submit("alice", "root.users.alice");
      run.submit("alice", "default");
    });
    String all = String.join("\n", locus);
    assertTrue(all, locus.get(0).contains(": FAILED ") && locus.get(0).contains(
        "Queue maximum allocation cannot be larger than the cluster setting for queue"
            + " root.users.alice max allocation per queue: <memory:16384, vCores:4>"));
    assertTrue(all, locus.get(1).contains("ACCEPTED"));
  }

  /** A queue's maximum above the cluster's stops the RM at start, with CS's message. */
  @Test
  public void aMaximumAboveTheClustersIsRefusedAtStart() throws Exception {
    String[][] cases = {
        {"root.a.maximum-allocation-mb", "16384"},
        {"root.a.maximum-allocation-vcores", "16"},
        {"root.a.maximum-allocation", "memory-mb=16384,vcores=2"},
    };
    for (String[] c : cases) {
      for (boolean capacityScheduler : new boolean[] {true, false}) {
        YarnConfiguration conf = LocusRmFixture.locusConf();
        if (capacityScheduler) {
          conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
              ResourceScheduler.class);
        }
        String cs = AgainstCapacityScheduler.CS;
        conf.set(cs + "root.queues", "a,b");
        conf.set(cs + "root.a.capacity", "50");
        conf.set(cs + "root.b.capacity", "50");
        conf.set(cs + c[0], c[1]);
        String who = (capacityScheduler ? "CapacityScheduler" : "Locus") + " with " + c[0];
        try {
          cluster.start(conf).stop();
          fail(who + " started");
        } catch (Exception e) {
          String messages = LocusRmFixture.messages(e);
          assertTrue(who + ": " + messages, messages.contains("Queue maximum allocation cannot"
              + " be larger than the cluster setting for queue root.a max allocation per queue: "
              + (c[0].endsWith("vcores") ? "<memory:8192, vCores:16>" : "<memory:16384, vCores:")));
          assertTrue(who + ": " + messages, capacityScheduler || messages.contains(cs + c[0]));
        }
      }
    }
  }
}
