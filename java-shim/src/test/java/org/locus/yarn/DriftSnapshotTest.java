package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.settle;
import static org.locus.yarn.LocusRmFixture.stats;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.Container;
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
 * Every snapshot of an application's asks -- the one a drift owes, the one owed after a dropped
 * or failed send, the one a rebuild replays -- goes as the binary by-name asks frame
 * ({@link LocusAppAttempt#snapshotByName}): bounded by {@code locus.app.max-ask-rows} before the
 * table is copied (a table over it is the application's refusal, shown to its owner, never a
 * failure of the core), and emptying the attempt's waiting ids, which die with the core's table
 * it replaces.
 */
public class DriftSnapshotTest {
  private static final int LIMIT = 100;
  /** A few frames of a heartbeat; a JSON snapshot of 100 host rows is over 10 KB. */
  private static final long SMALL = 4_096;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static CoreLink link(MockRM rm) throws Exception {
    java.lang.reflect.Field f = LocusScheduler.class.getDeclaredField("link");
    f.setAccessible(true);
    return (CoreLink) f.get(scheduler(rm));
  }

  private static LocusAppAttempt attempt(MockRM rm, MockAM am) {
    return (LocusAppAttempt) scheduler(rm).getApplicationAttempt(am.getApplicationAttemptId());
  }

  /**
   * The RM's asks of {@code attempt} change behind the shim's back (as when the RM puts back
   * the ask of a lost container): {@code extra} more host rows, one map each, and the totals
   * raised to match, so the digest differs from the core's.
   */
  private static void growBehindTheShim(LocusAppAttempt attempt, int hosts, int extra) {
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    List<ResourceRequest> rows = new ArrayList<>();
    for (int i = 0; i < extra; i++) {
      rows.add(ResourceRequest.newInstance(p, "extra-" + i + ".example", size, 1));
    }
    rows.add(ResourceRequest.newInstance(p, "/default-rack", size, hosts + extra));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, hosts + extra));
    synchronized (attempt) {
      attempt.updateResourceRequests(rows);
    }
  }

  private static String shown(RMApp app, MockAM am) throws Exception {
    am.allocate(Collections.emptyList(), Collections.emptyList());
    return app.getDiagnostics().toString();
  }

  /**
   * A drift found in a decided batch owes the application a snapshot; its table is over the
   * limit, so the shim refuses it as it refuses any frame over the limit: the application's
   * refusal (shown to its owner), the table never built or sent, the core's previous asks in
   * force, and no later batch that sends it again or costs the cluster a rebuild.
   */
  @Test
  public void aDriftOfATableOverTheRowLimitIsTheApplicationsRefusalWithoutTheTable()
      throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", Integer.toString(LIMIT));
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2); // the AM and one map
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    int hosts = LIMIT - 3;
    am.allocate(AskDeltaTest.mapsOverManyHosts(hosts, 1), Collections.emptyList());
    settle(rm);
    assertEquals("99 rows, under the limit: taken", hosts,
        stats(rm).get("pending_containers").asInt());

    // 104 rows in the RM, 103 with containers outstanding once h1's map is placed: over the
    // limit.
    growBehindTheShim(attempt(rm, am), hosts, 5);
    long before = scheduler.currentCore().sentToCore();
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    settle(rm);
    long crossed = scheduler.currentCore().sentToCore() - before;
    assertEquals("the digest found the drift", 1, stats(rm).get("asks_drifts").asInt());
    assertTrue("a drift of a table over the limit sent " + crossed + " bytes to the core",
        crossed < SMALL);
    assertEquals("the core's previous asks stay in force", hosts - 1,
        stats(rm).get("pending_containers").asInt());
    String shown = shown(app, am);
    assertTrue("the application's refusal, shown to its owner: " + shown,
        shown.contains("Locus refused") && shown.contains("application "
            + app.getApplicationId() + ": ask update refused, ")
            && shown.contains(" rows in one message, over locus.app.max-ask-rows = " + LIMIT));
    assertNull("no failure of the core", scheduler.lastCoreRebuild());

    // The next batch of this application owes nothing the core could take: nothing is sent
    // again, and nothing is refused that would resynchronise the cluster.
    MockNM nm2 = rm.registerNode("h2:1234", GB, 1); // one map
    settle(rm);
    before = scheduler.currentCore().sentToCore();
    got = heartbeatUntil(rm, nm2, am, 1);
    assertEquals(1, got.size());
    settle(rm);
    crossed = scheduler.currentCore().sentToCore() - before;
    assertTrue("the next batch of the application sent " + crossed + " bytes", crossed < SMALL);
    assertNull("no resynchronisation of the core", scheduler.lastCoreRebuild());
    assertEquals(0, scheduler.getCoreRebuilds());
  }

  /**
   * The snapshot a drift owes replaces the core's table of the application, and with it the
   * ids of its waiting names: the attempt forgets them, so its next change names them by name
   * and is taken at once, not refused for a stale id and sent again by name.
   */
  @Test
  public void aDriftSnapshotEmptiesTheWaitingIdsSoTheNextChangeIsTakenAtOnce()
      throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusAppAttempt attempt = attempt(rm, am);
    CoreLink link = link(rm);
    int[] numbered = new int[1];
    assertNull(change(link, attempt, splits(1, "g1", "g2"), numbered));
    synchronized (attempt) {
      assertEquals("learned from the core", 2, attempt.waitingIds().size());
    }

    // The RM's total moves behind the shim's back; its digest tells the core, which finds the
    // drift and is sent the table.
    synchronized (attempt) {
      attempt.updateResourceRequests(Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(20), ResourceRequest.ANY, Resource.newInstance(GB, 1), 5)));
      EventsFrame check = new EventsFrame();
      check.asksDigest(attempt.getApplicationId(), AsksDigest.of(attempt));
      assertNull(link.send(check, Collections.singleton(attempt)));
      assertEquals(1, stats(rm).get("asks_drifts").asInt());
      assertEquals("the ids died with the table the snapshot replaced", 0,
          attempt.waitingIds().size());
    }
    assertEquals(5, stats(rm).get("pending_containers").asInt());

    long calls = link.coreCallsOfThisThread();
    assertNull(change(link, attempt, splits(2, "g1", "g2"), numbered));
    assertEquals("the waiting names went by name", 0, numbered[0]);
    assertEquals("one call: taken at once, no resend by name", 1,
        link.coreCallsOfThisThread() - calls);
    assertEquals(4, stats(rm).get("pending_containers").asInt());
    synchronized (attempt) {
      assertEquals("and learned again", 2, attempt.waitingIds().size());
    }
    assertFalse(shown(app, am), shown(app, am).contains("Locus refused"));
  }

  /**
   * A rebuild replays each running attempt's table into the new core. A table over the limit
   * there is that application's refusal, as anywhere else: not built, not sent, shown to its
   * owner; the rebuild itself succeeds and the rest of the RM's bookkeeping is replayed.
   */
  @Test
  public void aTableOverTheLimitInARebuildIsTheApplicationsRefusal() throws Exception {
    YarnConfiguration conf = locusConf();
    conf.set("locus.app.max-ask-rows", Integer.toString(LIMIT));
    MockRM rm = cluster.start(conf);
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    int hosts = LIMIT - 3;
    am.allocate(AskDeltaTest.mapsOverManyHosts(hosts, 1), Collections.emptyList());
    settle(rm);
    assertEquals(hosts, stats(rm).get("pending_containers").asInt());
    growBehindTheShim(attempt(rm, am), hosts, 5);

    LocusCore broken = scheduler.currentCore();
    CoreFaults.panic(broken, "broken to be rebuilt");
    rm.registerNode("h2:1234", GB, 1);
    rm.drainEvents();
    scheduler.lastCoreRebuild().get(60, TimeUnit.SECONDS);
    settle(rm);
    assertEquals("the rebuild succeeded", 1, scheduler.getCoreRebuilds());
    long replayed = scheduler.currentCore().sentToCore();
    assertTrue("the replay sent the new core " + replayed + " bytes", replayed < SMALL);
    assertEquals("both nodes replayed", 2, stats(rm).get("nodes").asInt());
    assertEquals("the AM's container replayed", 1,
        stats(rm).get("running_containers").asInt());
    assertEquals("no asks of the refused table", 0,
        stats(rm).get("pending_containers").asInt());
    String shown = shown(app, am);
    assertTrue("the application's refusal, shown to its owner: " + shown,
        shown.contains("Locus refused") && shown.contains("application "
            + app.getApplicationId() + ": ask update refused, ")
            && shown.contains(" rows in one message, over locus.app.max-ask-rows = " + LIMIT));
  }

  /**
   * A snapshot owed when a batch of the application's containers is executed reaches the core
   * after the batch's containers, so the core's asks are the RM's after them: one fewer.
   */
  @Test
  public void aSnapshotOwedAtABatchFollowsItsContainers() throws Exception {
    MockRM rm = cluster.start(locusConf());
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2); // the AM and one container
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    am.allocate(Collections.singletonList(ResourceRequest.newInstance(Priority.newInstance(20),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), 5)), Collections.emptyList());
    settle(rm);
    assertEquals(5, stats(rm).get("pending_containers").asInt());
    LocusAppAttempt attempt = attempt(rm, am);
    synchronized (attempt) {
      // The RM's table moves to 7 behind the shim (the core still holds 5), then, as after a
      // send that failed, the next message about these asks is the table: 6 after the
      // container if the snapshot follows it, 5 if it came first, 4 if it never came.
      attempt.updateResourceRequests(Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(20), ResourceRequest.ANY, Resource.newInstance(GB, 1), 7)));
      attempt.forgetAsksSent();
    }
    List<Container> got = heartbeatUntil(rm, nm1, am, 1);
    assertEquals(1, got.size());
    settle(rm);
    assertEquals("the table the RM holds after the container", 6,
        stats(rm).get("pending_containers").asInt());
    assertEquals("the AM's and the new one", 2, stats(rm).get("running_containers").asInt());
    assertEquals(0, stats(rm).get("asks_drifts").asInt());
    assertNull(scheduler.lastCoreRebuild());
  }

  /** One map's rows on each of {@code hosts} (count {@code n} each), the rack and `*`. */
  private static List<ResourceRequest> splits(int n, String... hosts) {
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    List<ResourceRequest> rows = new ArrayList<>();
    for (String h : hosts) {
      rows.add(ResourceRequest.newInstance(p, h, size, n));
    }
    rows.add(ResourceRequest.newInstance(p, "/default-rack", size, n * hosts.length));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, n * hosts.length));
    return rows;
  }

  /** Notes {@code rows} as allocate() does and sends the frame; the refusal, or null. */
  private static LocusException change(CoreLink link, LocusAppAttempt attempt,
      List<ResourceRequest> rows, int[] numbered) {
    synchronized (attempt) {
      attempt.updateResourceRequests(rows);
      attempt.noteAsksChanged(rows);
      ByteBuffer frame = attempt.takeAsksFrame(link.nameIds(), link.maxAskRows());
      numbered[0] = numberedRows(frame);
      return link.sendAsks(frame, attempt);
    }
  }

  /** Rows of {@code frame} that carry an id instead of a name. */
  private static int numberedRows(ByteBuffer frame) {
    int rows = frame.getInt(8);
    int at = AsksFrame.HEADER_BYTES + (frame.getShort(6) & 0xffff)
        + (AsksFrame.numbered(frame) ? 8 : 0);
    int numbered = 0;
    for (int i = 0; i < rows; i++) {
      int length = frame.getShort(at + AsksFrame.ROW_FIXED_BYTES - 2) & 0xffff;
      if (length == 0) {
        numbered++;
        length = 4;
      }
      at += AsksFrame.ROW_FIXED_BYTES + length;
      at += AsksFrame.extraBytes(frame, at);
    }
    return numbered;
  }
}
