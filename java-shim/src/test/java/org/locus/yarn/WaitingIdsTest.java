package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Rule;
import org.junit.Test;

/**
 * Host rows naming hosts without a NodeManager (a MapReduce job's split hosts) cross as the ids
 * the core gave the application's waiting names ({@link WaitingIds}): learned from the core's
 * answer to a frame that sent them by name, refused by the core once the name no longer holds
 * a row (the link then re-sends the asks by name), forgotten with a replaced core, and bounded
 * whatever an AM names.
 */
public class WaitingIdsTest {
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

  /** Notes {@code rows} as allocate() does and sends the frame; the refusal, or null. */
  private static LocusException change(MockRM rm, LocusAppAttempt attempt,
      List<ResourceRequest> rows, int[] numbered) throws Exception {
    synchronized (attempt) {
      attempt.updateResourceRequests(rows);
      attempt.noteAsksChanged(rows);
      ByteBuffer frame = attempt.takeAsksFrame(link(rm).nameIds());
      numbered[0] = numberedRows(frame);
      return link(rm).sendAsks(frame, attempt);
    }
  }

  private static void assertNotRefused(RMApp app) {
    assertFalse(app.getDiagnostics().toString(),
        app.getDiagnostics().toString().contains("Locus refused"));
  }

  @Test
  public void splitHostsAreLearnedAndThenCrossAsIds() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusAppAttempt attempt = attempt(rm, am);
    int[] numbered = new int[1];

    assertNull(change(rm, attempt, splits(1, "g1", "g2", "g3"), numbered));
    assertEquals("the first change names them", 0, numbered[0]);
    synchronized (attempt) {
      assertEquals(3, attempt.waitingIds().size());
      assertNotEquals(WaitingIds.NONE, attempt.waitingIds().id("g1"));
      assertEquals("a rack of a live node is no waiting name", WaitingIds.NONE,
          attempt.waitingIds().id("/default-rack"));
    }
    assertNull(change(rm, attempt, splits(2, "g1", "g2", "g3"), numbered));
    assertEquals("the next one numbers the three split hosts", 3, numbered[0]);
    assertEquals(6, stats(rm).get("pending_containers").asInt());
    assertNotRefused(app);
  }

  /**
   * g1's last row withdrawn frees its name in the core; the shim still holds its id, and the
   * AM asking for g1 again sends a frame the core refuses. The link re-sends the table by name:
   * the core holds the rows, the owner sees no refusal, and the stale id is gone.
   */
  @Test
  public void aFreedNamesIdIsRefusedAndTheRowsReachTheCoreByName() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusAppAttempt attempt = attempt(rm, am);
    int[] numbered = new int[1];
    assertNull(change(rm, attempt, splits(1, "g1", "g2"), numbered));
    int g1;
    synchronized (attempt) {
      g1 = attempt.waitingIds().id("g1");
    }
    assertNotEquals(WaitingIds.NONE, g1);
    List<ResourceRequest> withdraw = splits(1, "g2");
    withdraw.add(ResourceRequest.newInstance(Priority.newInstance(20), "g1",
        Resource.newInstance(GB, 1), 0));
    assertNull(change(rm, attempt, withdraw, numbered));
    assertEquals(1, stats(rm).get("pending_containers").asInt());

    assertNull("refused by id, accepted by name",
        change(rm, attempt, splits(3, "g1", "g2"), numbered));
    assertTrue("g1 went by its old id", numbered[0] >= 1);
    assertEquals(6, stats(rm).get("pending_containers").asInt());
    synchronized (attempt) {
      assertNotEquals("not the freed id", g1, attempt.waitingIds().id("g1"));
    }
    assertNotRefused(app);
  }

  /** After a rebuild the ids learned from the old core are not used on the new one. */
  @Test
  public void aRebuiltCoresFramesDoNotCarryTheOldCoresWaitingIds() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    LocusAppAttempt attempt = attempt(rm, am);
    int[] numbered = new int[1];
    assertNull(change(rm, attempt, splits(1, "g1", "g2"), numbered));
    long oldEpoch = link(rm).nameIds().epoch();

    CoreFaults.panic(scheduler.currentCore(), "broken to be rebuilt");
    rm.registerNode("h2:1234", 8 * GB, 8);
    rm.drainEvents();
    scheduler.lastCoreRebuild().get(60, TimeUnit.SECONDS);
    scheduler.awaitSchedulingIdle();
    assertNotEquals(oldEpoch, link(rm).nameIds().epoch());

    assertNull(change(rm, attempt, splits(2, "g1", "g2"), numbered));
    assertEquals("the old core's ids are dropped, the names go by name", 0, numbered[0]);
    assertEquals(4, stats(rm).get("pending_containers").asInt());
    synchronized (attempt) {
      assertEquals("and learned from the new core", 2, attempt.waitingIds().size());
    }
    assertNotRefused(app);
  }

  /**
   * A numbered frame records the names of its rows by name at their row numbers, also after
   * thousands of rows by id (the writer's record then has to grow past its first size).
   */
  @Test
  public void rowsByNameAfterManyRowsByIdAreRecordedAtTheirRowNumbers() {
    int hosts = 3000;
    List<String> names = new ArrayList<>();
    StringBuilder answer = new StringBuilder("{\"epoch\":5,\"ids\":[");
    for (int i = 0; i < hosts; i++) {
      names.add("node-" + i);
      answer.append(i == 0 ? "" : ",").append(i);
    }
    NameIds ids = new NameIds(5L);
    assertTrue(ids.learn(names, NameIds.Answer.parse(answer.append("]}").toString(), hosts)));
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    List<ResourceRequest> rows = new ArrayList<>();
    for (String h : names) {
      rows.add(ResourceRequest.newInstance(p, h, size, 1));
    }
    rows.add(ResourceRequest.newInstance(p, "split-host", size, 1));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, hosts + 1));
    ByteBuffer frame = AsksFrame.encode(AsksFrame.KIND_CHANGED,
        org.apache.hadoop.yarn.api.records.ApplicationId.newInstance(1L, 1), rows, null, ids);
    assertEquals(hosts, numberedRows(frame));
    String[] recorded = AsksFrame.rowNames();
    assertEquals("split-host", recorded[hosts]);
    assertEquals(ResourceRequest.ANY, recorded[hosts + 1]);
  }

  /**
   * Names an AM crafted to share one hash code cost at most {@link WaitingIds#MAX_PROBES}
   * probes each: the first few are numbered, the rest go by name, and other names are still
   * found.
   */
  @Test
  public void namesOfOneHashCodeCostBoundedProbes() {
    WaitingIds table = new WaitingIds();
    assertSame(table, table.forFrame(new NameIds(3L)));
    // "Aa" and "BB" have one hash code, so every string of n such pairs shares one too.
    int n = 10;
    String[] names = new String[(1 << n) + 1];
    int[] learned = new int[1 + 2 * names.length];
    for (int i = 0; i < (1 << n); i++) {
      StringBuilder b = new StringBuilder();
      for (int bit = 0; bit < n; bit++) {
        b.append((i & (1 << bit)) == 0 ? "Aa" : "BB");
      }
      names[i] = b.toString();
    }
    names[1 << n] = "honest-host";
    learned[0] = names.length;
    for (int i = 0; i < names.length; i++) {
      learned[1 + 2 * i] = i;
      learned[2 + 2 * i] = Integer.MIN_VALUE | i;
    }
    assertEquals(names[0].hashCode(), names[(1 << n) - 1].hashCode());
    table.learn(3L, names, learned);
    assertTrue(table.size() + " held", table.size() <= WaitingIds.MAX_PROBES + 1);
    assertEquals(Integer.MIN_VALUE | (1 << n), table.id("honest-host"));
    int numbered = 0;
    for (int i = 0; i < (1 << n); i++) {
      int id = table.id(new String(names[i].toCharArray()));
      if (id != WaitingIds.NONE) {
        assertEquals("never another name's id", Integer.MIN_VALUE | i, id);
        numbered++;
      }
    }
    assertTrue(numbered + " numbered", numbered >= 1 && numbered <= WaitingIds.MAX_PROBES);
  }

  /** An AM naming far more hosts than any job holds cannot grow the table past its bound. */
  @Test
  public void aHostileAmsTableIsBounded() {
    WaitingIds table = new WaitingIds();
    NameIds core = new NameIds(7L);
    assertSame(table, table.forFrame(core));
    int batch = 1000;
    String[] names = new String[batch];
    int[] learned = new int[1 + 2 * batch];
    int id = Integer.MIN_VALUE;
    for (int round = 0; round < 100; round++) {
      learned[0] = batch;
      for (int i = 0; i < batch; i++) {
        names[i] = "host-" + round + "-" + i;
        learned[1 + 2 * i] = i;
        learned[2 + 2 * i] = id++;
      }
      table.learn(7L, names, learned);
      assertTrue(table.size() + " ids held", table.size() <= WaitingIds.MAX_NAMES);
    }
    assertEquals("the last answer is kept", id - 1, table.id("host-99-999"));
    table.learn(8L, new String[] {"other"}, new int[] {1, 0, 5});
    assertEquals("another core's answer is not taken", WaitingIds.NONE, table.id("other"));
    assertNull("a frame by name (no core answered yet) numbers nothing",
        table.forFrame(NameIds.NONE));
    assertEquals("and forgets what it held", 0, table.size());
  }
}
