package org.locus.it;

import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerAppReport;

/** Looks at a running job from the RM's side: its attempt, AM container and live containers. */
final class AppProbe {
  private AppProbe() {}

  static ApplicationId appId(Job job) {
    return TypeConverter.toYarn(job.getJobID()).getAppId();
  }

  static RMApp app(ResourceManager rm, ApplicationId id) {
    return rm.getRMContext().getRMApps().get(id);
  }

  /** The RM's live containers of the app's current attempt, id → host; empty while the RM does not know it. */
  static Map<ContainerId, String> liveContainers(ResourceManager rm, ApplicationId id) {
    Map<ContainerId, String> out = new HashMap<>();
    RMApp app = app(rm, id);
    RMAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
    if (attempt == null) {
      return out;
    }
    SchedulerAppReport report = rm.getResourceScheduler().getSchedulerAppInfo(attempt.getAppAttemptId());
    if (report == null) {
      return out;
    }
    for (RMContainer c : report.getLiveContainers()) {
      out.put(c.getContainerId(), c.getAllocatedNode().getHost());
    }
    return out;
  }

  /**
   * Waits until the app has at least {@code min} live containers (the AM plus maps), so that a test acts
   * on a job whose tasks are really running. Fails with what it saw.
   */
  static Map<ContainerId, String> awaitLiveContainers(EmbeddedCluster cluster, Job job, int min, long timeoutMs)
      throws Exception {
    ApplicationId id = appId(job);
    long deadline = System.currentTimeMillis() + timeoutMs;
    Map<ContainerId, String> live = new HashMap<>();
    while (System.currentTimeMillis() < deadline) {
      if (job.isComplete()) {
        throw new IllegalStateException("job " + id + " finished before " + min + " containers were seen live");
      }
      live = liveContainers(cluster.resourceManager(), id);
      if (live.size() >= min) {
        return live;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("job " + id + " has " + live.size() + " live containers after " + timeoutMs
        + " ms, wanted " + min + ": " + live);
  }

  static ContainerId amContainer(ResourceManager rm, ApplicationId id) {
    return app(rm, id).getCurrentAppAttempt().getMasterContainer().getId();
  }
}
