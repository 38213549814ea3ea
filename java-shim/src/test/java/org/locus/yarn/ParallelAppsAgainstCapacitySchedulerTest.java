package org.locus.yarn;

import static org.locus.yarn.AgainstCapacityScheduler.CS;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_CAPACITY;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_DEFAULT_POLICY;
import static org.locus.yarn.AgainstCapacityScheduler.compare;
import static org.locus.yarn.LocusRmFixture.GB;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;

/**
 * Running-application limits ({@code max-parallel-apps} of a queue, of a parent, of a user),
 * under CapacityScheduler and under Locus, side by side: an application past a limit is
 * accepted but its AM gets no container until a running application ends, then the earliest
 * held one runs; a refresh that raises a limit lets held ones run, one that lowers it stops
 * nothing that runs.
 */
public class ParallelAppsAgainstCapacitySchedulerTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** The reference's "running now" lines, to pin that the scenario holds what it means to. */
  private static List<String> runningLines(List<String> transcript) {
    return transcript.stream().filter(l -> l.startsWith("running now: "))
        .collect(Collectors.toList());
  }

  /**
   * One node large enough that the queues' AM limits (Hadoop's 10 %) admit three AMs each: what
   * holds an application here is a running-application limit, not the AM room.
   */
  private static Setup large() {
    Setup setup = new Setup();
    setup.nodeMb = 64 * GB;
    return setup;
  }

  private static Setup twoQueues() {
    return large().queues("a", "50", "b", "50");
  }

  @Test
  public void aQueuesLimitHoldsTheSecondUntilTheFirstEnds() throws Exception {
    Setup setup = twoQueues().cs("root.a.max-parallel-apps", "1");
    List<String> reference = compare(cluster, setup, run -> {
      String first = run.submit("alice", "a");
      run.submit("bob", "a");
      run.submit("carol", "b");
      run.runningNow();
      run.kill(first);
      run.runningNow();
    }, LOCUS_CAPACITY);
    assertEquals(List.of(
        "running now: [app1, app3]",
        "running now: [app2, app3]"),
        runningLines(reference));
  }

  @Test
  public void aParentsLimitCountsEveryLeafBelowIt() throws Exception {
    Setup setup = large().queues("p", "50", "b", "50")
        .cs("root.p.queues", "x,y").cs("root.p.x.capacity", "50").cs("root.p.y.capacity", "50")
        .cs("root.p.max-parallel-apps", "1");
    List<String> reference = compare(cluster, setup, run -> {
      String first = run.submit("alice", "x");
      run.submit("bob", "y");
      run.submit("carol", "b");
      run.runningNow();
      run.kill(first);
      run.runningNow();
      for (String q : new String[] {"root", "p", "x", "b"}) {
        run.showParallelLimit(q);
      }
    }, LOCUS_CAPACITY);
    assertEquals(List.of(
        "running now: [app1, app3]",
        "running now: [app2, app3]"),
        runningLines(reference));
  }

  @Test
  public void aUsersLimitSpansQueuesAndHoldsOnlyThatUser() throws Exception {
    Setup setup = twoQueues().cs("user.max-parallel-apps", "2")
        .cs("user.alice.max-parallel-apps", "1");
    List<String> reference = compare(cluster, setup, run -> {
      String first = run.submit("alice", "a");
      run.submit("alice", "b");
      run.submit("bob", "a");
      run.submit("bob", "b");
      run.submit("bob", "a");
      run.runningNow();
      run.kill(first);
      run.runningNow();
    }, LOCUS_CAPACITY);
    assertEquals(List.of(
        "running now: [app1, app3, app4]",
        "running now: [app2, app3, app4]"),
        runningLines(reference));
  }

  /**
   * The file's default is every queue's without a limit of its own, root's included: one
   * application runs in the whole cluster, whatever a leaf allows.
   */
  @Test
  public void theDefaultForEveryQueueHoldsRootToo() throws Exception {
    Setup setup = twoQueues().cs("max-parallel-apps", "1").cs("root.b.max-parallel-apps", "2");
    List<String> reference = compare(cluster, setup, run -> {
      run.submit("alice", "a");
      run.submit("alice", "a");
      run.submit("alice", "b");
      run.submit("alice", "b");
      run.runningNow();
      for (String q : new String[] {"root", "a", "b"}) {
        run.showParallelLimit(q);
      }
    }, LOCUS_CAPACITY);
    assertEquals(List.of(
        "running now: [app1]"),
        runningLines(reference));
  }

  @Test
  public void aRefreshRaisingTheLimitLetsHeldOnesRunAndLoweringItStopsNothing()
      throws Exception {
    Setup setup = twoQueues().cs("root.a.max-parallel-apps", "1");
    List<String> reference = compare(cluster, setup, run -> {
      String first = run.submit("alice", "a");
      run.submit("alice", "a");
      run.submit("alice", "a");
      run.runningNow();
      run.refresh(CS + "root.a.max-parallel-apps", "2");
      run.runningNow();
      run.refresh(CS + "root.a.max-parallel-apps", "1");
      run.runningNow();
      run.kill(first);
      run.runningNow();
    }, LOCUS_CAPACITY);
    assertEquals(List.of(
        "running now: [app1]",
        "running now: [app1, app2]",
        "running now: [app1, app2]",
        "running now: [app2]"),
        runningLines(reference));
  }

  @Test
  public void theOneQueuesLimitHoldsUnderTheDefaultPolicy() throws Exception {
    Setup setup = large().cs("root.default.max-parallel-apps", "1")
        .cs("user.bob.max-parallel-apps", "0");
    List<String> reference = compare(cluster, setup, run -> {
      String first = run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
      run.runningNow();
      run.kill(first);
      run.runningNow();
    }, LOCUS_DEFAULT_POLICY);
    assertEquals(List.of(
        "running now: [app1]",
        "running now: [app3]"),
        runningLines(reference));
  }
}
