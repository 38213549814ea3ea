package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Rule;
import org.junit.Test;

/**
 * An application whose table holds more rows than {@code locus.app.max-ask-rows} (Hadoop bounds
 * none) is refused by the shim as the core would refuse it, without encoding the table: every
 * change of such an application would otherwise build and send the whole table again, for the
 * core to refuse again. Nothing is lost: its previous asks stay, and the change that brings the
 * table under the limit is taken.
 */
public class AskRowLimitTest {
  private static final int LIMIT = 100;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Test
  public void aTableOverTheRowLimitIsRefusedWithoutBeingSentAgainAtEachChange()
      throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", Integer.toString(LIMIT));
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);

    // 99 hosts, the rack and `*`: one row over the limit.
    List<ResourceRequest> rows = AskDeltaTest.mapsOverManyHosts(LIMIT - 1, 1);
    assertEquals(LIMIT + 1, rows.size());
    am.allocate(rows, Collections.emptyList());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    am.allocate(Collections.emptyList(), Collections.emptyList());
    String shown = app.getDiagnostics().toString();
    assertTrue(shown, shown.contains("Locus refused"));
    assertTrue("named as the core names it: " + shown, shown.contains("application "
        + app.getApplicationId() + ": ask update refused, " + (LIMIT + 1)
        + " rows in one message, over locus.app.max-ask-rows = " + LIMIT));
    assertEquals(0, stats(rm).get("pending_containers").asInt());

    // Each change of `*` owes the core the whole table, which is over the limit: refused by
    // the shim, nothing crosses.
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    long before = scheduler.currentCore().sentToCore();
    for (int i = 0; i < 10; i++) {
      am.allocate(Collections.singletonList(
          ResourceRequest.newInstance(p, ResourceRequest.ANY, size, LIMIT + i)),
          Collections.emptyList());
      scheduler.awaitSchedulingIdle();
    }
    assertEquals("bytes sent to the core for 10 changes of a table over the limit", 0,
        scheduler.currentCore().sentToCore() - before);
    am.allocate(Collections.emptyList(), Collections.emptyList());
    shown = app.getDiagnostics().toString();
    assertTrue("still shown to the owner: " + shown, shown.contains("Locus refused")
        && shown.contains("over locus.app.max-ask-rows = " + LIMIT));

    // Withdrawing a host row brings the table to the limit: taken whole, refusal lifted.
    am.allocate(Collections.singletonList(
        ResourceRequest.newInstance(p, "node-7.example", size, 0)), Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    assertEquals(LIMIT + 9, stats(rm).get("pending_containers").asInt());
    am.allocate(Collections.emptyList(), Collections.emptyList());
    shown = app.getDiagnostics().toString();
    assertTrue(shown, !shown.contains("Locus refused"));
  }

  /** The shim refuses by the limit the core runs: a refresh that raises it lets the table in. */
  @Test
  public void aRefreshThatRaisesTheLimitLetsTheTableIn() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", Integer.toString(LIMIT));
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    am.allocate(AskDeltaTest.mapsOverManyHosts(LIMIT - 1, 1), Collections.emptyList());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    assertEquals(0, stats(rm).get("pending_containers").asInt());

    YarnConfiguration raised = new YarnConfiguration(rm.getConfig());
    raised.set("locus.app.max-ask-rows", Integer.toString(LIMIT + 1));
    scheduler.reinitialize(raised, rm.getRMContext());
    am.allocate(Collections.singletonList(ResourceRequest.newInstance(Priority.newInstance(20),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), LIMIT + 5)), Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    assertEquals("the whole table, taken", LIMIT + 5,
        stats(rm).get("pending_containers").asInt());
    am.allocate(Collections.emptyList(), Collections.emptyList());
    String shown = app.getDiagnostics().toString();
    assertTrue(shown, !shown.contains("Locus refused"));
  }

  /**
   * A change may carry more rows than the limit and still leave a table under it (an AM that
   * withdraws one key's rows and asks for another's in one call): sent as the table, not refused
   * (refused, the AM's new key would wait for its next change).
   */
  @Test
  public void aChangeOfMoreRowsThanTheLimitThatLeavesATableUnderItIsTaken() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", "5");
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    Resource size = Resource.newInstance(GB, 1);
    Priority p1 = Priority.newInstance(20);
    Priority p2 = Priority.newInstance(10);
    am.allocate(java.util.Arrays.asList(
        ResourceRequest.newInstance(p1, "h1", size, 1),
        ResourceRequest.newInstance(p1, "/default-rack", size, 1),
        ResourceRequest.newInstance(p1, ResourceRequest.ANY, size, 1)), Collections.emptyList());
    rm.drainEvents();
    scheduler.awaitSchedulingIdle();
    // Six rows in one call; the table after it holds p2's three.
    am.allocate(java.util.Arrays.asList(
        ResourceRequest.newInstance(p1, "h1", size, 0),
        ResourceRequest.newInstance(p1, "/default-rack", size, 0),
        ResourceRequest.newInstance(p1, ResourceRequest.ANY, size, 0),
        ResourceRequest.newInstance(p2, "h2", size, 3),
        ResourceRequest.newInstance(p2, "/default-rack", size, 3),
        ResourceRequest.newInstance(p2, ResourceRequest.ANY, size, 3)), Collections.emptyList());
    scheduler.awaitSchedulingIdle();
    assertEquals("p2's containers, asked in the call", 3,
        stats(rm).get("pending_containers").asInt());
    am.allocate(Collections.emptyList(), Collections.emptyList());
    String shown = app.getDiagnostics().toString();
    assertTrue(shown, !shown.contains("Locus refused"));
  }
}
