package org.locus.sls;

import static org.junit.Assert.assertEquals;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.nodemanager.NMSimulator;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.junit.After;
import org.junit.Test;

/**
 * An SLS job whose AM finishes must finish, not fail: SLS 3.4.3's AMSimulator.lastStep tells its
 * simulated NM that the AM container has ended before it unregisters the AM, and when the NM's
 * next heartbeat reaches the RM first, the RM fails the attempt ("AM Container for appattempt_...
 * exited with exitCode: 0") and SLS writes no jobruntime.csv row for the job. Here the NM reports
 * at once and the RM acts on it before the AM's next step: the worst case of that race,
 * deterministic, under CapacityScheduler (the race is SLS's, whatever the scheduler).
 */
public class AmUnregistrationTest {
  private static final int GB = 1024;

  static {
    NetUtils.addStaticResolution("h1", "127.0.0.1");
  }

  private MockRM rm;

  /** CapacityScheduler as SLS's AM needs it (lastStep casts to SchedulerWrapper), no metrics. */
  public static class PlainSlsScheduler extends CapacityScheduler implements SchedulerWrapper {
    private volatile SLSRunner runner;

    @Override
    public SchedulerMetrics getSchedulerMetrics() {
      return null;
    }

    @Override
    public Tracker getTracker() {
      return null;
    }

    @Override
    public String getRealQueueName(String queue) {
      return queue;
    }

    @Override
    public void propagatedHandle(SchedulerEvent event) {
      super.handle(event);
    }

    @Override
    public Allocation allocatePropagated(ApplicationAttemptId attemptId,
        List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
        List<ContainerId> release, List<String> blacklistAdditions,
        List<String> blacklistRemovals, ContainerUpdates updateRequests) {
      return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
          blacklistRemovals, updateRequests);
    }

    @Override
    public void setSLSRunner(SLSRunner runner) {
      this.runner = runner;
    }

    @Override
    public SLSRunner getSLSRunner() {
      return runner;
    }
  }

  /**
   * SLS's NM of the AM's node, heartbeating the moment the AM container is cleaned up (COMPLETE,
   * exit 0, as NMSimulator reports it), and the RM done with that heartbeat before it returns.
   */
  private final class ReportingNm extends NMSimulator {
    private final MockNM nm;

    ReportingNm(MockNM nm) {
      this.nm = nm;
    }

    @Override
    public void cleanupContainer(ContainerId id) {
      try {
        nm.nodeHeartbeat(id.getApplicationAttemptId(), id.getContainerId(),
            ContainerState.COMPLETE);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      rm.drainEvents();
    }
  }

  private static final class Runner extends LocusSlsRunner {
    private final Map<NodeId, NMSimulator> nms = new HashMap<>();

    Runner() throws Exception {
      super();
    }

    @Override
    public Map<NodeId, NMSimulator> getNmMap() {
      return nms;
    }
  }

  /** The harness's AM, wired to this RM and runner as SLS's AMRunner would. */
  private static final class Am extends ArrivingMRAMSimulator {
    Am(MockRM rm, SLSRunner se, RMApp app) {
      this.rm = rm;
      this.se = se;
      this.appId = app.getApplicationId();
    }
  }

  @After
  public void stop() {
    if (rm != null) {
      rm.stop();
    }
  }

  @Test
  public void aJobWhoseAmFinishesFinishesEvenWhenTheNmReportsTheAmContainerAtOnce()
      throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, PlainSlsScheduler.class,
        ResourceScheduler.class);
    // SLS submits every application with one attempt: a failed attempt fails the job.
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 1);
    rm = new MockRM(conf);
    rm.start();
    MockNM nm = rm.registerNode("h1:1234", 8 * GB);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockRM.launchAM(app, rm, nm);
    RMAppAttempt attempt = app.getCurrentAppAttempt();

    Runner runner = new Runner();
    runner.getNmMap().put(nm.getNodeId(), new ReportingNm(nm));
    Am am = new Am(rm, runner, app);
    // What SLS's MockAMLauncher does once the RM launched the AM container: the AM registers.
    am.notifyAMContainerLaunched(attempt.getMasterContainer());
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.RUNNING);

    // The job's last container is done: MRAMSimulator ends the AM.
    Exception threw = null;
    try {
      am.lastStep();
    } catch (Exception e) {
      threw = e;
    }
    rm.drainEvents();
    EnumSet<RMAppState> done = EnumSet.of(RMAppState.FINISHED, RMAppState.FAILED,
        RMAppState.KILLED);
    for (int i = 0; i < 100 && !done.contains(app.getState()); i++) {
      Thread.sleep(50);
    }
    assertEquals("the job's end (RM diagnostics: " + app.getDiagnostics()
        + "; the AM's lastStep threw: " + threw + ")", RMAppState.FINISHED, app.getState());
  }
}
