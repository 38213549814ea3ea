package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.locusConf;
import static org.locus.yarn.LocusRmFixture.scheduler;
import static org.locus.yarn.LocusRmFixture.stats;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.junit.Rule;
import org.junit.Test;

/**
 * The mode Locus's scheduling thread runs in is the one the core in service resolved from its
 * settings ({@code locus.scheduling.mode=auto}: async for fifo with hadoop locality, heartbeat for
 * td), whatever
 * happened to the core: refreshed, refused a refresh, panicked and was rebuilt.
 */
public class SchedulingModeTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /**
   * fifo with hadoop locality under auto: async (with a locality wait auto would pick heartbeat,
   * the same as td's, and a mode change would go unseen). No node heartbeats on their own
   * (MockNMs step by hand).
   */
  private MockRM startFifo() {
    YarnConfiguration conf = locusConf();
    conf.unset(SchedulingMode.KEY);
    conf.set("locus.policy", "fifo");
    conf.set("locus.locality", "hadoop");
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 600_000);
    return cluster.start(conf);
  }

  private static YarnConfiguration withPolicy(MockRM rm, String policy) {
    YarnConfiguration conf = new YarnConfiguration(rm.getConfig());
    conf.set("locus.policy", policy);
    return conf;
  }

  /** The loop's mode and the core's agree, and are {@code expected}. */
  private static void assertMode(MockRM rm, SchedulingMode expected) throws Exception {
    assertEquals("the core's resolved mode", expected.toString(),
        stats(rm).get("scheduling_mode").asText());
    assertEquals("the scheduling thread's mode", expected, scheduler(rm).schedulingMode());
  }

  @Test(timeout = 120_000)
  public void aRefreshChangesTheModeAndARefusedOneKeepsIt() throws Exception {
    MockRM rm = startFifo();
    assertMode(rm, SchedulingMode.ASYNC);
    scheduler(rm).reinitialize(withPolicy(rm, "td"), rm.getRMContext());
    assertMode(rm, SchedulingMode.HEARTBEAT);

    YarnConfiguration bad = withPolicy(rm, "fifo");
    bad.set(SchedulingMode.KEY, "sometimes");
    try {
      scheduler(rm).reinitialize(bad, rm.getRMContext());
      fail("locus.scheduling.mode=sometimes accepted");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(SchedulingMode.KEY));
    }
    assertMode(rm, SchedulingMode.HEARTBEAT);
    assertEquals("td", stats(rm).get("policy").asText());
  }

  /**
   * The core panics right after it took the new settings, before the shim read what they
   * resolve to: the refresh fails as one that changed nothing, the core is rebuilt on the
   * settings still in force, and the loop runs the rebuilt core's mode. Retried, it passes.
   */
  @Test(timeout = 120_000)
  public void aPanicRightAfterARefreshLeavesTheOldSettingsAndModeEverywhere() throws Exception {
    MockRM rm = startFifo();
    rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    scheduler.setReconfiguredHook(() -> CoreFaults.panic(scheduler.currentCore(),
        "core bug right after a refresh"));
    try {
      scheduler.reinitialize(withPolicy(rm, "td"), rm.getRMContext());
      fail("a refresh whose core panicked must not pass for accepted");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("settings still in force are unchanged"));
    } finally {
      scheduler.setReconfiguredHook(null);
    }
    assertNotNull("the failed refresh started a rebuild", scheduler.lastCoreRebuild());
    scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
    assertEquals(1, scheduler.getCoreRebuilds());
    assertEquals("fifo", stats(rm).get("policy").asText());
    assertMode(rm, SchedulingMode.ASYNC);

    scheduler.reinitialize(withPolicy(rm, "td"), rm.getRMContext());
    assertEquals("td", stats(rm).get("policy").asText());
    assertMode(rm, SchedulingMode.HEARTBEAT);
  }

  /** A core rebuilt after a panic runs the refreshed settings, and the loop their mode. */
  @Test(timeout = 120_000)
  public void aCoreRebuiltAfterARefreshRunsItsModeInTheLoop() throws Exception {
    MockRM rm = startFifo();
    rm.registerNode("h1:1234", 8 * GB, 8);
    LocusScheduler scheduler = scheduler(rm);
    scheduler.reinitialize(withPolicy(rm, "td"), rm.getRMContext());
    CoreFaults.panic(scheduler.currentCore(), "core bug after a refresh");
    // The next event sent to the core finds it poisoned and starts the rebuild.
    rm.registerNode("h2:1234", 8 * GB, 8);
    rm.drainEvents();
    assertNotNull(scheduler.lastCoreRebuild());
    scheduler.lastCoreRebuild().get(30, TimeUnit.SECONDS);
    assertEquals(1, scheduler.getCoreRebuilds());
    assertEquals("td", stats(rm).get("policy").asText());
    assertMode(rm, SchedulingMode.HEARTBEAT);
  }
}
