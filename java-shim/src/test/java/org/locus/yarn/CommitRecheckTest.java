package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.settle;
import static org.locus.yarn.LocusRmFixture.stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;

/**
 * A decision is committed only as the core made it and only while the queue limits it was made
 * under still hold, as CapacityScheduler re-checks a proposal at commit
 * ({@code AbstractCSQueue.accept}, {@code LeafQueue.accept}). Each scenario runs under
 * CapacityScheduler first (the oracle, stepped without a window: it decides and commits at the
 * heartbeat), then under Locus with the same steps taken while the core's decision is held
 * between deciding and committing ({@link HeldPass}); both must end with the same usage.
 */
public class CommitRecheckTest {
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  /** Heartbeats after the window, for a decision made afresh (none is expected). */
  private static final int AFTER_ROUNDS = 5;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** What happens while the first decision for the 1 GB ask is in flight. */
  private interface Step {
    void run(Run r) throws Exception;
  }

  /** One RM of a scenario with its node and applications. */
  private static final class Run {
    final MockRM rm;
    final MockNM nm;
    final Map<String, RMApp> apps = new LinkedHashMap<>();
    final Map<String, MockAM> ams = new LinkedHashMap<>();

    Run(MockRM rm, MockNM nm) {
      this.rm = rm;
      this.nm = nm;
    }

    LocusScheduler locus() {
      ResourceScheduler s = rm.getResourceScheduler();
      return s instanceof LocusScheduler ? (LocusScheduler) s : null;
    }

    /** Memory the application holds now, as the RM reports it. */
    long usedMb(String app) {
      return rm.getResourceScheduler()
          .getAppResourceUsageReport(apps.get(app).getCurrentAppAttempt().getAppAttemptId())
          .getUsedResources().getMemorySize();
    }

    void submit(String name, String user, String queue) throws Exception {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withUser(user).withQueue(queue).build());
      apps.put(name, app);
      ams.put(name, LocusRmFixture.launchAndRegisterAM(app, rm, nm));
    }

    /** {@code name}'s AM asks for {@code n} more 1 GB containers and gets them. */
    void grow(String name, int n) throws Exception {
      MockAM am = ams.get(name);
      am.allocate("*", GB, n, new ArrayList<>());
      assertEquals(name + "'s containers", n, heartbeatUntil(rm, nm, am, n).size());
    }

    /** {@code name}'s AM asks for one container of 1 GB and {@code vcores} and gets it. */
    void growWide(String name, int vcores) throws Exception {
      MockAM am = ams.get(name);
      am.allocate(java.util.Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(1), ResourceRequest.ANY, Resource.newInstance(GB, vcores), 1)),
          new ArrayList<>());
      assertEquals(name + "'s container", 1, heartbeatUntil(rm, nm, am, 1).size());
    }

    /** Moves {@code name} to {@code queue}; no settling (a held pass must not be awaited). */
    void move(String name, String queue) throws Exception {
      ApplicationId id = apps.get(name).getApplicationId();
      rm.getRMAppManager().moveApplicationAcrossQueue(id, queue);
    }
  }

  private Run start(Class<? extends ResourceScheduler> scheduler, Map<String, String> queues)
      throws Exception {
    YarnConfiguration conf = locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.set("locus.policy", "capacity");
    for (Map.Entry<String, String> e : queues.entrySet()) {
      conf.set(CS + e.getKey(), e.getValue());
    }
    MockRM rm = cluster.start(conf);
    return new Run(rm, rm.registerNode("h1:1234", 8 * GB, 8));
  }

  /**
   * {@code app} asks for one 1 GB container; {@code during} runs while the first decision for it
   * is in flight (Locus: held between the core's decision and the commit; CapacityScheduler
   * decides at the heartbeat, so the steps come before it), then the node heartbeats.
   */
  private static void window(Run r, String app, Step during) throws Exception {
    MockAM am = r.ams.get(app);
    LocusScheduler locus = r.locus();
    if (locus == null) {
      am.allocate("*", GB, 1, new ArrayList<>());
      during.run(r);
    } else {
      HeldPass pass = new HeldPass(locus);
      try {
        am.allocate("*", GB, 1, new ArrayList<>());
        locus.awaitSchedulingIdle();
        r.nm.nodeHeartbeat(true);
        assertTrue("a scheduling pass decided the 1 GB container", pass.awaitHeld());
        during.run(r);
      } finally {
        pass.release();
      }
      settle(r.rm);
    }
    for (int i = 0; i < AFTER_ROUNDS; i++) {
      r.nm.nodeHeartbeat(true);
      settle(r.rm);
      am.allocate(new ArrayList<>(), new ArrayList<>());
    }
    settle(r.rm);
  }

  /** The scenario under CapacityScheduler, then under Locus: the usage each left. */
  private Map<String, Long> run(Class<? extends ResourceScheduler> scheduler,
      Map<String, String> queues, Step setup, String app, Step during) throws Exception {
    Run r = start(scheduler, queues);
    setup.run(r);
    int rejectedBefore = r.locus() == null ? 0 : stats(r.rm).get("rejected").asInt();
    window(r, app, during);
    Map<String, Long> used = new LinkedHashMap<>();
    for (String name : r.apps.keySet()) {
      used.put(name, r.usedMb(name));
    }
    if (r.locus() != null) {
      assertEquals(stats(r.rm).toString(), 0, stats(r.rm).get("in_flight").asInt());
      used.put("rejected", (long) (stats(r.rm).get("rejected").asInt() - rejectedBefore));
    }
    r.rm.stop();
    return used;
  }

  private static Map<String, String> twoQueues(String aCapacity, String aMaximum,
      String aUserLimitFactor) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("root.queues", "a,b");
    q.put("root.a.capacity", aCapacity);
    q.put("root.a.maximum-capacity", aMaximum);
    q.put("root.a.user-limit-factor", aUserLimitFactor);
    q.put("root.b.capacity", String.valueOf(100 - Integer.parseInt(aCapacity)));
    return q;
  }

  /**
   * The AM re-asks the same scheduler key at 6 GB while a 1 GB decision for it is in flight.
   * Queue a may hold 40 % of 8 GB (3,276 MB) and holds the AM's 1 GB: the 6 GB container does
   * not fit under it. The commit used to size the container from the new ask and took the
   * queue to 7,168 MB; the decision is now handed back, and the core, deciding from the 6 GB
   * ask, gives nothing.
   */
  @Test(timeout = 300_000)
  public void aDecisionIsCommittedOnlyWithTheCapabilityTheCoreDecided() throws Exception {
    Map<String, String> queues = twoQueues("40", "40", "10");
    Step setup = r -> r.submit("A", "alice", "a");
    Step reAsk = r -> r.ams.get("A").allocate("*", 6 * GB, 1, new ArrayList<>());
    Map<String, Long> cs = run(CapacityScheduler.class, queues, setup, "A", reAsk);
    assertEquals("CapacityScheduler keeps queue a at its AM", GB, (long) cs.get("A"));
    Map<String, Long> locus = run(LocusScheduler.class, queues, setup, "A", reAsk);
    assertEquals("queue a under Locus (maximum 3,276 MB)", cs.get("A"), locus.get("A"));
    assertTrue("the held decision was handed back: " + locus, locus.get("rejected") >= 1);
  }

  /**
   * An ancestor's maximum: p (50 %, maximum 50 %) holds leaves a and c. Bob's application with
   * 3 GB moves from b into c while alice's 1 GB decision in a is in flight; p then holds its
   * whole 4,096 MB and the container would take it past. CapacityScheduler, deciding after the
   * move, gives nothing; the commit must refuse too.
   */
  @Test(timeout = 300_000)
  public void anAncestorsMaximumIsRecheckedAtCommit() throws Exception {
    ancestorsMaximumRechecked(parentAndLeaves(), r -> r.grow("B", 2));
  }

  /**
   * An ancestor's maximum in vcores under DominantResourceCalculator: as above, p (50 % of 8 GB
   * and 8 vcores) holds leaves a and c; bob's application, holding 2 GB and 4 vcores, moves
   * from b into c while alice's 1 GB, 1 vcore decision in a is in flight. p then holds 3 GB and
   * 5 vcores: room in memory, none in vcores. CapacityScheduler gives nothing; a commit that
   * re-checked memory alone would take the container.
   */
  @Test(timeout = 300_000)
  public void anAncestorsMaximumInEveryTypeIsRecheckedAtCommitUnderDrc() throws Exception {
    Map<String, String> queues = parentAndLeaves();
    queues.put("resource-calculator",
        org.apache.hadoop.yarn.util.resource.DominantResourceCalculator.class.getName());
    ancestorsMaximumRechecked(queues, r -> r.growWide("B", 3));
  }

  /** p (50 %, maximum 50 %) with leaves a and c; b beside it. */
  private static Map<String, String> parentAndLeaves() {
    Map<String, String> queues = new LinkedHashMap<>();
    queues.put("root.queues", "p,b");
    queues.put("root.p.capacity", "50");
    queues.put("root.p.maximum-capacity", "50");
    queues.put("root.p.queues", "a,c");
    queues.put("root.p.a.capacity", "50");
    queues.put("root.p.a.user-limit-factor", "10");
    queues.put("root.p.c.capacity", "50");
    queues.put("root.b.capacity", "50");
    return queues;
  }

  /**
   * Bob's application in b grows ({@code grow}), alice's starts in a, and bob's moves into c
   * while alice's decision is in flight: alice keeps her AM only, under both schedulers.
   */
  private void ancestorsMaximumRechecked(Map<String, String> queues, Step grow)
      throws Exception {
    Step setup = r -> {
      r.submit("B", "bob", "b");
      grow.run(r);
      r.submit("A", "alice", "a");
    };
    Step move = r -> r.move("B", "c");
    Map<String, Long> cs = run(CapacityScheduler.class, queues, setup, "A", move);
    assertEquals("CapacityScheduler: alice keeps her AM only " + cs, GB, (long) cs.get("A"));
    Map<String, Long> locus = run(LocusScheduler.class, queues, setup, "A", move);
    assertEquals("alice's usage under Locus " + locus, cs.get("A"), locus.get("A"));
    assertEquals(cs.get("B"), locus.get("B"));
    assertTrue("the held decision was handed back: " + locus, locus.get("rejected") >= 1);
  }

  /**
   * The user limit: alice's second application with 4 GB moves from b into a while her 1 GB
   * decision in a is in flight; she then holds more than her limit in a (40 % of 8 GB,
   * user-limit-factor 1), and CapacityScheduler gives her nothing more there.
   */
  @Test(timeout = 300_000)
  public void theUserLimitIsRecheckedAtCommit() throws Exception {
    Map<String, String> queues = twoQueues("40", "100", "1");
    Step setup = r -> {
      r.submit("B", "alice", "b");
      r.grow("B", 3);
      r.submit("A", "alice", "a");
    };
    Step move = r -> r.move("B", "a");
    Map<String, Long> cs = run(CapacityScheduler.class, queues, setup, "A", move);
    assertEquals("CapacityScheduler: alice's A keeps its AM only " + cs, GB, (long) cs.get("A"));
    Map<String, Long> locus = run(LocusScheduler.class, queues, setup, "A", move);
    assertEquals("alice's A under Locus " + locus, cs.get("A"), locus.get("A"));
    assertTrue("the held decision was handed back: " + locus, locus.get("rejected") >= 1);
  }
}
