package org.locus.yarn.web;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.rules.ExternalResource;
import org.locus.yarn.LocusRmFixture;

/**
 * MockRMs serving their web app on a free port, stepped by hand; every one started is stopped
 * after the test, including one whose start failed.
 */
final class WebRms extends ExternalResource {
  private static final int GB = 1024;
  private final List<MockRM> rms = new ArrayList<>();

  MockRM start(Class<? extends ResourceScheduler> scheduler) throws IOException {
    return start(scheduler, new YarnConfiguration());
  }

  MockRM start(Class<? extends ResourceScheduler> scheduler, YarnConfiguration conf)
      throws IOException {
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.setBoolean("mockrm.webapp.enabled", true);
    // Stepped by hand with MockRM's helpers, which need decisions at heartbeats (LocusRmFixture).
    conf.set("locus.scheduling.mode", "heartbeat");
    conf.set("locus.scheduling.eager", "false");
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + RmRest.freePort());
    MockRM rm = new MockRM(LocusRmFixture.privateState(conf));
    LocusRmFixture.quietLogs();
    rms.add(rm);
    rm.start();
    return rm;
  }

  /** Stops {@code rm} now, for a test that needs it gone before it starts the next one. */
  void stop(MockRM rm) {
    rm.stop();
    rms.remove(rm);
  }

  @Override
  protected void after() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }
}
