package org.locus.yarn;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.junit.Rule;
import org.junit.Test;

/**
 * {@code locus.preemption.size-based} acts through the preemption rounds the RM's scheduling
 * monitor runs. Set without the monitor running Locus's policy it would change nothing, so the
 * RM refuses it at start, and a refresh refuses it, naming both keys.
 */
public class SizeBasedPreemptionSettingTest {
  private static final String KEY = "locus.preemption.size-based";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static YarnConfiguration conf(boolean sizeBased, boolean monitor) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set("locus.policy", "fsp");
    conf.setBoolean(KEY, sizeBased);
    if (monitor) {
      conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
      conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PreemptionTest.PCPP);
    }
    return conf;
  }

  @Test
  public void sizeBasedPreemptionWithTheMonitorOffStopsTheRmNamingBothKeys() {
    try {
      cluster.start(conf(true, false));
      fail("the RM started with " + KEY + "=true and the scheduling monitor off");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(KEY));
      assertTrue(m, m.contains(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS));
    }
  }

  @Test
  public void sizeBasedPreemptionWithTheMonitorOnStarts() throws Exception {
    MockRM rm = cluster.start(conf(true, true));
    assertTrue("the monitor runs",
        !LocusRmFixture.scheduler(rm).getSchedulingMonitorManager().isRSMEmpty());
  }

  @Test
  public void aRefreshTurningSizeBasedPreemptionOnWithoutTheMonitorIsRefused() throws Exception {
    MockRM rm = cluster.start(conf(false, false));
    try {
      LocusRmFixture.scheduler(rm).reinitialize(conf(true, false), rm.getRMContext());
      fail("a refresh took " + KEY + "=true with the scheduling monitor off");
    } catch (IOException e) {
      assertTrue(messages(e), messages(e).contains(KEY));
    }
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t).append('\n');
    }
    return out.toString();
  }
}
