package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.junit.Rule;
import org.junit.Test;

/**
 * A changed frame carries each noted row as the RM holds it when the frame is taken. The RM
 * keeps the AM's own ResourceRequest objects and lowers their counts in place, so the frame
 * reads the noted objects without looking each row up; these pin that contract and the two
 * ways the RM replaces rows itself between the AM's call and the frame. Each test does the
 * AM's calls and the take in one hold of the attempt's lock, as allocate() and the scheduling
 * thread do, so no pass of the scheduling thread falls between them.
 */
public class NotedRowsTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static final Priority P = Priority.newInstance(20);
  private static final Resource SIZE = Resource.newInstance(GB, 1);

  private MockRM rm;

  private LocusAppAttempt attempt() throws Exception {
    MockRM rm = cluster.start(locusConf());
    this.rm = rm;
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    return (LocusAppAttempt) scheduler(rm).getApplicationAttempt(am.getApplicationAttemptId());
  }

  /** What allocate() does with the AM's rows (AllocateHandler), without the scheduling thread. */
  private static void amSets(LocusAppAttempt attempt, ResourceRequest... rows) {
    List<ResourceRequest> ask = Arrays.asList(rows);
    attempt.updateResourceRequests(ask);
    attempt.noteAsksChanged(ask);
  }

  /** A lost container's asks as the RM puts them back: one more at h2, its rack and `*`. */
  private static ContainerRequest oneOfEachBack() {
    return new ContainerRequest(Arrays.asList(row("h2", 1), row("/default-rack", 1),
        row(ResourceRequest.ANY, 1)));
  }

  private static ResourceRequest row(String name, int count) {
    return ResourceRequest.newInstance(P, name, SIZE, count);
  }

  /** The count of each row of a changed frame written by name. */
  static Map<String, Integer> counts(ByteBuffer frame) {
    Map<String, Integer> out = new HashMap<>();
    int rows = frame.getInt(8);
    int at = AsksFrame.HEADER_BYTES + (frame.getShort(6) & 0xffff);
    if (AsksFrame.numbered(frame)) {
      at += 8;
    }
    for (int i = 0; i < rows; i++) {
      int count = frame.getInt(at + 24);
      int length = frame.getShort(at + AsksFrame.ROW_FIXED_BYTES - 2) & 0xffff;
      if (length == 0 && AsksFrame.numbered(frame)) {
        // A numbered row: its name is the id that follows, shown as "#id".
        out.put("#" + frame.getInt(at + AsksFrame.ROW_FIXED_BYTES), count);
        at += AsksFrame.ROW_FIXED_BYTES + 4;
        at += AsksFrame.extraBytes(frame, at);
        continue;
      }
      byte[] name = new byte[length];
      for (int k = 0; k < length; k++) {
        name[k] = frame.get(at + AsksFrame.ROW_FIXED_BYTES + k);
      }
      out.put(new String(name, StandardCharsets.UTF_8), count);
      at += AsksFrame.ROW_FIXED_BYTES + length;
      at += AsksFrame.extraBytes(frame, at);
    }
    return out;
  }

  /** The contract the frame relies on: if the RM copied the AM's rows, every row is looked up. */
  @Test
  public void theRmHoldsTheAmsOwnRowsSoTheFrameReadsThemWithoutLookingThemUp() throws Exception {
    LocusAppAttempt attempt = attempt();
    synchronized (attempt) {
      amSets(attempt, row("h2", 2), row("/default-rack", 2), row(ResourceRequest.ANY, 2));
      Map<String, Integer> sent = counts(attempt.takeAsksFrame(null));
      assertEquals(Integer.valueOf(2), sent.get("h2"));
      assertEquals(3, sent.size());
      assertEquals("rows read as noted", 3, attempt.rowsReadAsNoted());
    }
  }

  /** A container's asks put back after the AM's call: the RM's new rows go, not the noted ones. */
  @Test
  public void rowsTheRmPutBackAfterTheAmsCallAreSentAsTheRmHoldsThem() throws Exception {
    LocusAppAttempt attempt = attempt();
    synchronized (attempt) {
      amSets(attempt, row("h2", 2), row("/default-rack", 2), row(ResourceRequest.ANY, 2));
      // As when a container is lost before the AM acquired it: the RM puts copies back, one
      // more than it held.
      attempt.recoverResourceRequestsForContainer(oneOfEachBack());
      Map<String, Integer> sent = counts(attempt.takeAsksFrame(null));
      assertEquals(Integer.valueOf(3), sent.get("h2"));
      assertEquals(Integer.valueOf(3), sent.get(ResourceRequest.ANY));
    }
  }

  /**
   * The AM sets a key's {@code *} to 0 (the RM drops the key's table), then asks again without
   * its host row: the RM holds no row of that host, whatever the noted object still says.
   */
  @Test
  public void aKeysTableRemadeByTheRmSendsTheRowsItNoLongerHoldsAsZero() throws Exception {
    LocusAppAttempt attempt = attempt();
    synchronized (attempt) {
      amSets(attempt, row("h2", 5), row("/default-rack", 5), row(ResourceRequest.ANY, 5));
      amSets(attempt, row(ResourceRequest.ANY, 0));
      amSets(attempt, row("/default-rack", 3), row(ResourceRequest.ANY, 3));
      Map<String, Integer> sent = counts(attempt.takeAsksFrame(null));
      assertEquals(Integer.valueOf(0), sent.get("h2"));
      assertEquals(Integer.valueOf(3), sent.get("/default-rack"));
      assertEquals(Integer.valueOf(3), sent.get(ResourceRequest.ANY));
    }
  }
  /**
   * A put-back racing the AM's call: it counted itself, then waited for the attempt's write
   * lock while allocate() applied and noted the AM's rows, and replaced them right after. The
   * frame must send the RM's rows (one more each), not the noted objects the RM no longer holds.
   */
  @Test
  public void aPutBackRacingTheAmsCallIsNotReadAsTheNotedRows() throws Exception {
    LocusAppAttempt attempt = attempt();
    java.lang.reflect.Field f = org.apache.hadoop.yarn.server.resourcemanager.scheduler
        .SchedulerApplicationAttempt.class.getDeclaredField("writeLock");
    f.setAccessible(true);
    java.util.concurrent.locks.Lock write = (java.util.concurrent.locks.Lock) f.get(attempt);
    synchronized (attempt) {
      Thread putBack = new Thread(() -> attempt.recoverResourceRequestsForContainer(
          oneOfEachBack()), "put-back");
      write.lock();
      try {
        putBack.start();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (putBack.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertEquals("the put-back waits for the write lock", Thread.State.WAITING,
            putBack.getState());
        amSets(attempt, row("h2", 2), row("/default-rack", 2), row(ResourceRequest.ANY, 2));
      } finally {
        write.unlock();
      }
      putBack.join(20_000);
      Map<String, Integer> sent = counts(attempt.takeAsksFrame(null));
      assertEquals(Integer.valueOf(3), sent.get("h2"));
      assertEquals(Integer.valueOf(3), sent.get(ResourceRequest.ANY));
    }
  }

  /**
   * The same reading in a frame that numbers hosts (the scheduling thread's case once the core
   * published ids): the noted objects are read, and a node's host goes as its id.
   */
  @Test
  public void aNumberedFrameReadsTheNotedRowsToo() throws Exception {
    LocusAppAttempt attempt = attempt();
    java.lang.reflect.Field f = LocusScheduler.class.getDeclaredField("link");
    f.setAccessible(true);
    NameIds ids = ((CoreLink) f.get(scheduler(rm))).nameIds();
    Integer h1 = ids.id("h1");
    org.junit.Assert.assertNotNull("h1 is a node's host", h1);
    synchronized (attempt) {
      amSets(attempt, row("h1", 2), row("/default-rack", 2), row(ResourceRequest.ANY, 2));
      ByteBuffer frame = attempt.takeAsksFrame(ids);
      org.junit.Assert.assertTrue(AsksFrame.numbered(frame));
      Map<String, Integer> sent = counts(frame);
      assertEquals(Integer.valueOf(2), sent.get("#" + h1));
      assertEquals(Integer.valueOf(2), sent.get(ResourceRequest.ANY));
      assertEquals(3, sent.size());
      assertEquals("rows read as noted", 3, attempt.rowsReadAsNoted());
    }
  }
  /** An AM's row that runs {@link #onCount} once, the first time the frame reads its count. */
  static final class HookedRow
      extends org.apache.hadoop.yarn.api.records.impl.pb.ResourceRequestPBImpl {
    volatile Runnable onCount;

    @Override
    public int getNumContainers() {
      Runnable r = onCount;
      if (r != null) {
        onCount = null;
        r.run();
      }
      return super.getNumContainers();
    }
  }

  /**
   * A put-back that starts while the frame is being written (after the frame checked the
   * count): the rows already written may be the noted objects the RM has just replaced, so the
   * frame is written again with every row looked up.
   */
  @Test
  public void aPutBackDuringTheFrameHasTheFrameWrittenAgainByLookup() throws Exception {
    LocusAppAttempt attempt = attempt();
    HookedRow h2 = new HookedRow();
    h2.setPriority(P);
    h2.setResourceName("h2");
    h2.setCapability(SIZE);
    h2.setNumContainers(2);
    h2.setRelaxLocality(true);
    synchronized (attempt) {
      amSets(attempt, h2, row("/default-rack", 2), row(ResourceRequest.ANY, 2));
      h2.onCount = () -> {
        // Another thread, as the RM's would be: it takes only the attempt's write lock.
        Thread putBack = new Thread(() -> attempt.recoverResourceRequestsForContainer(
            oneOfEachBack()), "put-back");
        putBack.start();
        try {
          putBack.join(20_000);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      };
      Map<String, Integer> sent = counts(attempt.takeAsksFrame(null));
      assertEquals("the hook ran", null, h2.onCount);
      assertEquals(Integer.valueOf(3), sent.get("h2"));
      assertEquals(Integer.valueOf(3), sent.get(ResourceRequest.ANY));
      assertEquals("written again by lookup", 0, attempt.rowsReadAsNoted());
    }
  }
}
