package org.locus.yarn;

import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_CAPACITY;
import static org.locus.yarn.AgainstCapacityScheduler.Under.LOCUS_DEFAULT_POLICY;
import static org.locus.yarn.AgainstCapacityScheduler.compare;

import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;

/**
 * Application limits and queue states at submission and on moves, under CapacityScheduler
 * and under Locus, side by side: a queue's {@code maximum-applications}, the per-user maximum
 * CapacityScheduler derives from it ({@code minimum-user-limit-percent} times
 * {@code user-limit-factor}), the global {@code maximum-applications}, and STOPPED queues.
 */
public class LimitsAgainstCapacitySchedulerTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static Setup twoQueues() {
    return new Setup().queues("a", "50", "b", "50");
  }

  @Test
  public void aQueuesMaximumApplicationsRefusesTheNextSubmission() throws Exception {
    Setup setup = twoQueues().cs("root.a.maximum-applications", "2");
    compare(cluster, setup, run -> {
      run.submit("alice", "a");
      run.submit("bob", "a");
      run.submit("carol", "a");
      run.submit("carol", "b");
      run.running();
    }, LOCUS_CAPACITY);
  }

  @Test
  public void aUsersShareOfTheQueuesApplicationsRefusesTheirNextSubmission() throws Exception {
    // 4 applications in a; alice may hold 4 * 50 % * 1 = 2 of them.
    Setup setup = twoQueues().cs("root.a.maximum-applications", "4")
        .cs("root.a.minimum-user-limit-percent", "50")
        .cs("root.a.user-limit-factor", "1");
    compare(cluster, setup, run -> {
      run.submit("alice", "a");
      run.submit("alice", "a");
      run.submit("alice", "a");
      run.submit("bob", "a");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void theGlobalMaximumApplicationsSplitsByCapacity() throws Exception {
    // Each queue may hold its share of 4: 2.
    Setup setup = twoQueues().cs("maximum-applications", "4");
    compare(cluster, setup, run -> {
      for (int i = 0; i < 3; i++) {
        run.submit("alice", "a");
      }
      run.submit("bob", "b");
    }, LOCUS_CAPACITY);
  }

  private static void threeIntoADefaultQueueOfTwo(LocusRmFixture cluster,
      AgainstCapacityScheduler.Under under) throws Exception {
    Setup setup = new Setup().cs("root.default.maximum-applications", "2");
    compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
      run.submit("carol", "default");
    }, under);
  }

  @Test
  public void theDefaultQueuesLimitHoldsUnderCapacity() throws Exception {
    threeIntoADefaultQueueOfTwo(cluster, LOCUS_CAPACITY);
  }

  @Test
  public void theDefaultQueuesLimitHoldsUnderTheDefaultPolicy() throws Exception {
    threeIntoADefaultQueueOfTwo(cluster, LOCUS_DEFAULT_POLICY);
  }

  @Test
  public void aStoppedQueueTakesNoSubmissionAndNoMove() throws Exception {
    Setup setup = twoQueues().cs("root.b.state", "STOPPED");
    compare(cluster, setup, run -> {
      String app = run.submit("alice", "a");
      run.submit("alice", "b");
      run.move("alice", app, "b");
      run.refresh(AgainstCapacityScheduler.CS + "root.b.state", "RUNNING");
      run.submit("alice", "b");
      run.move("alice", app, "b");
    }, LOCUS_CAPACITY);
  }

  @Test
  public void aMoveIsRefusedWhenTheTargetIsFull() throws Exception {
    Setup setup = twoQueues().cs("root.b.maximum-applications", "1");
    compare(cluster, setup, run -> {
      String first = run.submit("alice", "a");
      run.submit("bob", "b");
      run.move("alice", first, "b");
    }, LOCUS_CAPACITY);
  }
}
