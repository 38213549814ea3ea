package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.BeforeClass;
import org.junit.Test;

public class LocusCoreTest {
  private static final String NODE_H1 = "{\"type\":\"node_added\",\"node\":\"h1:8041\",\"host\":\"h1\","
      + "\"rack\":\"/rack1\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}}";

  /** h1's heartbeat as the shim offers it: one node of an offers frame, 8 GB and 8 cores free. */
  private static ByteBuffer offerH1() {
    return OffersFrame.encode(Collections.singletonList(NodeId.newInstance("h1", 8041)),
        Collections.singletonList(Resource.newInstance(8192, 8)), 1000L);
  }

  @BeforeClass
  public static void loadLibrary() {
    NativeLoader.load();
  }

  @Test
  public void openStatsAndClose() {
    LocusCore core = LocusCore.open("{}");
    assertFalse(core.isClosed());
    String stats = core.stats();
    assertTrue(stats, stats.startsWith("{") && stats.contains("\"heartbeats\""));
    core.close();
    assertTrue(core.isClosed());
    LocusException e = assertThrows(LocusException.class, core::stats);
    assertTrue(e.getMessage(), e.getMessage().contains("invalid or closed Locus handle"));
  }

  @Test
  public void closeIsIdempotent() {
    LocusCore core = LocusCore.open("{}");
    core.close();
    core.close();
    try (LocusCore other = LocusCore.open("{}")) {
      // The first core's second close must not have freed anything else.
      assertTrue(other.stats().contains("\"heartbeats\""));
    }
  }

  @Test
  public void everyCallOnAClosedCoreThrows() {
    LocusCore core = LocusCore.open("{}");
    core.close();
    assertThrows(LocusException.class, () -> core.events("[]"));
    assertThrows(LocusException.class, () -> core.offers(offerH1()));
    assertThrows(LocusException.class, () -> core.reconfigure("{}"));
  }

  @Test
  public void nativeRejectsZeroAndStaleHandles() {
    for (Runnable call : new Runnable[] {
        () -> LocusNative.stats(0),
        () -> LocusNative.events(0, "[]"),
        () -> LocusNative.decide(0, offerH1(), offerH1().limit()),
        () -> LocusNative.reconfigure(0, "{}"),
        () -> LocusNative.capacityQueues(0),
        () -> LocusNative.close(0)}) {
      LocusException e = assertThrows(LocusException.class, call::run);
      assertTrue(e.getMessage(), e.getMessage().contains("invalid or closed Locus handle"));
    }
    long h = LocusNative.create("{}");
    assertNotEquals(0, h);
    LocusNative.close(h);
    LocusException e = assertThrows(LocusException.class, () -> LocusNative.close(h));
    assertTrue(e.getMessage(), e.getMessage().contains("invalid or closed Locus handle"));
    assertThrows(LocusException.class, () -> LocusNative.stats(h));
  }

  @Test
  public void capacityQueuesAreNullOutsideCapacityAndParsedUnderIt() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      assertEquals(null, core.capacityQueues());
      assertEquals(null, CoreMessages.capacityQueues(core.capacityQueues()));
      core.reconfigure("{\"locus.policy\":\"capacity\",\"locus.capacity.queues\":\"a:30:60,b:70\"}");
      java.util.Map<String, LocusQueue.Limits> queues =
          CoreMessages.capacityQueues(core.capacityQueues());
      assertEquals(java.util.Arrays.asList("a", "b"), new ArrayList<>(queues.keySet()));
      assertEquals(30.0, queues.get("a").capacity, 1e-9);
      assertEquals(60.0, queues.get("a").maximumCapacity, 1e-9);
      assertEquals(100.0, queues.get("b").maximumCapacity, 1e-9);
    }
    java.io.IOException e = assertThrows(java.io.IOException.class,
        () -> CoreMessages.capacityQueues("[{\"name\":\"a\"}]"));
    assertTrue(e.getMessage(), e.getMessage().contains("maximum_capacity"));
  }

  @Test
  public void malformedJsonIsNamed() {
    LocusException e = assertThrows(LocusException.class, () -> LocusCore.open("{not json"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("malformed properties JSON"));
    e = assertThrows(LocusException.class, () -> LocusCore.open("{\"locus.policy\":1}"));
    assertTrue(e.getMessage(), e.getMessage().contains("locus.policy"));

    try (LocusCore core = LocusCore.open("{}")) {
      e = assertThrows(LocusException.class,
          () -> core.events("[" + NODE_H1 + ",{\"type\":\"node_added\",\"node\":\"h2:8041\"}]"));
      assertTrue(e.getMessage(), e.getMessage().startsWith("event 1 (node_added) rejected"));
      assertTrue(e.getMessage(), e.getMessage().contains("host"));

      e = assertThrows(LocusException.class, () -> core.events("{}"));
      assertTrue(e.getMessage(), e.getMessage().contains("expected an array"));

      e = assertThrows(LocusException.class, () -> core.events(null));
      assertTrue(e.getMessage(), e.getMessage().contains("eventsJsonArray must not be null"));

      // The core is still usable after refusing input.
      assertTrue(core.stats().contains("\"heartbeats\""));
    }
  }

  @Test
  public void aRefusedEventIsNamedAndEarlierOnesStayApplied() {
    try (LocusCore core = LocusCore.open("{}")) {
      LocusException e = assertThrows(LocusException.class, () -> core.events("[" + NODE_H1
          + ",{\"type\":\"asks_updated\",\"app\":\"application_9_0001\",\"asks\":[]}]"));
      assertTrue(e.getMessage(), e.getMessage().startsWith("event 1 (asks_updated) rejected"));
      assertTrue(e.getMessage(), e.getMessage().contains("application_9_0001"));
      assertEquals(1, statsCounter(core.stats(), "nodes"));
      // The node from the refused batch is usable.
      assertNull(core.offers(offerH1()));
    }
  }

  @Test
  public void unknownLocusKeyIsAConfigError() {
    LocusConfigException e = assertThrows(LocusConfigException.class,
        () -> LocusCore.open("{\"locus.no.such.setting\":\"1\"}"));
    assertTrue(e.getMessage(), e.getMessage().contains("locus.no.such.setting"));
  }

  @Test
  public void badLogLevelIsRejected() {
    LocusException e = assertThrows(LocusException.class, () -> LocusNative.initLogging(9));
    assertTrue(e.getMessage(), e.getMessage().contains("9"));
  }

  @Test
  public void concurrentHeartbeatsEventsAndStats() throws Exception {
    final int threads = 8;
    final int rounds = 500;
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[" + NODE_H1 + "]");
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        final int id = t;
        results.add(pool.submit((Callable<Integer>) () -> {
          start.await();
          int heartbeats = 0;
          for (int i = 0; i < rounds; i++) {
            if (id % 2 == 0) {
              // No application asks: the offer is decided, with nothing to place, and not refused.
              assertNull(core.offers(offerH1()));
              heartbeats++;
            } else {
              core.events("[{\"type\":\"app_added\",\"app\":\"application_1_" + id + "_" + i
                  + "\",\"queue\":\"default\",\"user\":\"u\"}]");
              core.stats();
            }
          }
          return heartbeats;
        }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> f : results) {
        total += f.get(5, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertEquals(threads / 2 * rounds, total);
      // Every heartbeat reached the core exactly once.
      assertEquals(total, statsCounter(core.stats(), "heartbeats"));
    }
  }

  @Test
  public void callsRacingCloseNeverReachTheNextCore() throws Exception {
    List<LocusCore> newer = new ArrayList<>();
    for (int round = 0; round < 30; round++) {
      LocusCore core = LocusCore.open("{}");
      ExecutorService pool = Executors.newFixedThreadPool(3);
      CountDownLatch started = new CountDownLatch(3);
      List<Future<?>> callers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        callers.add(pool.submit(() -> {
          started.countDown();
          for (int i = 0; i < 300; i++) {
            try {
              // This core never has a node; the one opened after it does.
              assertEquals(0, statsCounter(core.stats(), "nodes"));
            } catch (LocusException e) {
              assertTrue(e.getMessage(), e.getMessage().contains("invalid or closed Locus handle"));
            }
          }
        }));
      }
      started.await();
      core.close();
      // The allocator likes to hand the freed address straight to the next core.
      LocusCore next = LocusCore.open("{}");
      next.events("[" + NODE_H1 + "]");
      newer.add(next);
      for (Future<?> f : callers) {
        f.get(1, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertTrue(core.isClosed());
      assertThrows(LocusException.class, core::stats);
    }
    for (LocusCore c : newer) {
      assertEquals(1, statsCounter(c.stats(), "nodes"));
      c.close();
    }
  }

  @Test
  public void rustLogRecordsReachTheCoreLoggerAtItsLevel() {
    org.apache.log4j.Logger log4j = org.apache.log4j.Logger.getLogger("org.locus.core");
    Level before = log4j.getLevel();
    Capture capture = new Capture();
    log4j.addAppender(capture);
    try {
      log4j.setLevel(Level.INFO);
      LocusCore.open("{}").close();
      assertTrue(capture.events.toString(), capture.events.stream().anyMatch(
          ev -> ev.getLevel() == Level.INFO
              && ev.getRenderedMessage().contains("Locus core created")));

      capture.events.clear();
      log4j.setLevel(Level.WARN);
      LocusCore.open("{}").close();
      assertTrue(capture.events.toString(), capture.events.stream().noneMatch(
          ev -> ev.getRenderedMessage().contains("Locus core created")));
    } finally {
      log4j.removeAppender(capture);
      log4j.setLevel(before);
    }
  }

  static long statsCounter(String statsJson, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(statsJson);
    assertTrue(statsJson, m.find());
    return Long.parseLong(m.group(1));
  }

  private static final class Capture extends AppenderSkeleton {
    final List<LoggingEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    protected void append(LoggingEvent event) {
      events.add(event);
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  }
}
