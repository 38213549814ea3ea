package org.locus.yarn.bench;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.locus.yarn.LocusScheduler;

/**
 * Serves the RM's web app under Locus with a few queues and applications in them, so the
 * scheduler page can be looked at (and screenshot for docs/) without a cluster: a MockRM on
 * {@code locus.web.port} (default 18088), four 8 GB nodes on two racks, {@code capacity} policy
 * with three queues, apps holding containers in two of them and one waiting. Serves for
 * {@code locus.web.seconds} (default 120). Run with {@code gradle :java-shim:webPageDemo}.
 */
public final class WebPageDemo {
  private static final int GB = 1024;

  private WebPageDemo() {
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.getInteger("locus.web.port", 18088);
    int seconds = Integer.getInteger("locus.web.seconds", 120);
    for (int i = 1; i <= 4; i++) {
      NetUtils.addStaticResolution("host" + i, "127.0.0.1");
    }
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.set("locus.policy", "capacity");
    conf.set("locus.capacity.queues", "prod:60:100,dev:30:60,adhoc:10:40");
    conf.setBoolean("mockrm.webapp.enabled", true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + port);
    MockRM rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
    rm.start();
    List<MockNM> nms = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      nms.add(rm.registerNode("host" + i + ":1234", 8 * GB, 8));
    }
    run(rm, nms, 0, "prod", "etl-nightly", "alice", 14);
    run(rm, nms, 1, "prod", "report-build", "bob", 4);
    run(rm, nms, 2, "dev", "feature-test", "carol", 6);
    // The cluster is now nearly full: this one's AM waits.
    MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder.createWithMemory(6 * GB, rm)
        .withQueue("adhoc").withAppName("adhoc-query").withUser("dave").build());
    for (MockNM nm : nms) {
      nm.nodeHeartbeat(true);
    }
    rm.drainEvents();
    System.out.println("Serving http://127.0.0.1:" + port + "/cluster/scheduler for " + seconds
        + " s");
    Thread.sleep(seconds * 1000L);
    rm.stop();
  }

  private static void run(MockRM rm, List<MockNM> nms, int amNode, String queue, String name,
      String user, int tasks) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withAppName(name).withUser(user).build());
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nms.get(amNode));
    // Splits on the AM's host: delay scheduling places what fits there node-local.
    am.allocate("host" + (amNode + 1), GB, tasks, new ArrayList<>());
    int got = 0;
    for (int i = 0; i < 60 && got < tasks; i++) {
      for (MockNM nm : nms) {
        nm.nodeHeartbeat(true);
      }
      rm.drainEvents();
      got += am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers().size();
      Thread.sleep(20);
    }
  }
}
