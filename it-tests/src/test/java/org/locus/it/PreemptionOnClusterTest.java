package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.SleepJob;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppMetrics;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Inter-queue preemption on the embedded cluster with Hadoop's own SleepJob: two 50 % queues that
 * may each grow to 100 %, a job of long maps in queue a holding the whole cluster, then a small job
 * in queue b. With the RM's monitor on and ProportionalCapacityPreemptionPolicy named, b's job
 * finishes while a's maps still run, from containers taken from a, under CapacityScheduler and under
 * Locus alike; with the monitor off, b's job does not finish while a holds the cluster.
 */
public class PreemptionOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";
  private static final String PCPP = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
      + "ProportionalCapacityPreemptionPolicy";
  private static final String P = "yarn.resourcemanager.monitor.capacity.preemption.";
  private static final int NODES = 2;
  /**
   * Every map container: 512 MB stays under the 10 % of the cluster that CapacityScheduler's default
   * total_preemption_per_round lets one round take, so both schedulers may take one a round, and a's
   * 512 MB AM and its maps fill both 4 GB nodes to the last MB: b runs only on what is taken from a.
   */
  private static final int TASK_MB = 512;
  /** a's maps: with its AM they hold the whole cluster, and a asks for nothing more. */
  private static final int A_MAPS = (NODES * EmbeddedCluster.NODE_MEMORY_MB - EmbeddedCluster.AM_MEMORY_MB)
      / TASK_MB;
  /** Longer than the whole test: a's maps can only end early by being preempted or killed. */
  private static final long A_MAP_MS = 600_000;
  private static final int B_MAPS = 2;
  private static final long B_MAP_MS = 1_000;
  /**
   * How long b's job may take before the run gives up on it: the monitor's interval and
   * max_wait_before_kill for each of the few containers b needs, a few heartbeats, and the job's
   * own runtime (AM and task JVMs starting on a loaded 2-core machine), with generous slack. A
   * guard against a hang, not a timing: the assertions are about the order of events. A healthy run
   * stops watching when b ends, so the bound costs nothing; on a loaded machine b's AM alone has
   * taken a minute to start.
   */
  private static final long B_GIVE_UP_MS = 240_000;
  private static final long FILL_GIVE_UP_MS = 180_000;

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("preemption", NODES, 1);
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Map<String, String> settings(boolean monitor) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "root.queues", "a,b");
    for (String q : new String[] {"a", "b"}) {
      s.put(CS + "root." + q + ".capacity", "50");
      s.put(CS + "root." + q + ".maximum-capacity", "100");
      // One user may hold up to the queue's maximum, not only its guarantee.
      s.put(CS + "root." + q + ".user-limit-factor", "2");
    }
    if (monitor) {
      s.put(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, "true");
      s.put(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, PCPP);
      s.put(P + "monitoring_interval", "1000");
      s.put(P + "max_wait_before_kill", "3000");
    }
    return s;
  }

  /** What one run saw when it stopped watching. */
  private static final class Outcome {
    final String scheduler;
    boolean bSucceeded;
    boolean aRunningWhenBEnded;
    long bMs;
    RMAppMetrics a;
    RMAppMetrics b;

    Outcome(String scheduler) {
      this.scheduler = scheduler;
    }

    @Override
    public String toString() {
      return scheduler + ": b succeeded " + bSucceeded + " after " + bMs + " ms, a still running "
          + aRunningWhenBEnded + ", a preempted " + a.getNumNonAMContainersPreempted() + " tasks + "
          + a.getNumAMContainersPreempted() + " AMs (" + a.getResourcePreempted() + "), b preempted "
          + b.getNumNonAMContainersPreempted() + " tasks + " + b.getNumAMContainersPreempted() + " AMs";
    }
  }

  private static Job sleepJob(String queue, int maps, long mapMs, int amMb) throws Exception {
    Configuration conf = new Configuration(cluster.clientConf());
    conf.set(MRJobConfig.QUEUE_NAME, queue);
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, amMb);
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, TASK_MB);
    SleepJob sleep = new SleepJob();
    sleep.setConf(conf);
    Job job = sleep.createJob(maps, 0, mapMs, (int) Math.max(1, mapMs / 1000), 0, 1);
    job.setJobName("sleep-" + queue);
    return job;
  }

  /**
   * a fills the cluster, then b is submitted; watches until b's job ends, a's ends, or
   * {@code watchMs} passes, then kills what still runs.
   */
  private static Outcome run(String scheduler, boolean monitor, long watchMs) throws Exception {
    cluster.startYarn(scheduler, settings(monitor));
    YarnClient yc = YarnClient.createYarnClient();
    yc.init(cluster.clientConf());
    yc.start();
    Job a = null;
    Job b = null;
    try {
      a = sleepJob("a", A_MAPS, A_MAP_MS, EmbeddedCluster.AM_MEMORY_MB);
      a.submit();
      AppProbe.awaitLiveContainers(cluster, a, 1 + A_MAPS, FILL_GIVE_UP_MS);
      b = sleepJob("b", B_MAPS, B_MAP_MS, EmbeddedCluster.AM_MEMORY_MB);
      long submitted = System.currentTimeMillis();
      b.submit();
      Outcome out = new Outcome(scheduler);
      long deadline = submitted + watchMs;
      while (!b.isComplete() && !a.isComplete() && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      out.bMs = System.currentTimeMillis() - submitted;
      out.aRunningWhenBEnded = !a.isComplete();
      out.bSucceeded = b.isComplete() && b.isSuccessful();
      out.a = AppProbe.app(cluster.resourceManager(), AppProbe.appId(a)).getRMAppMetrics();
      out.b = AppProbe.app(cluster.resourceManager(), AppProbe.appId(b)).getRMAppMetrics();
      System.out.println("preemption on the cluster, monitor " + (monitor ? "on" : "off") + ": " + out);
      return out;
    } finally {
      for (Job j : new Job[] {a, b}) {
        if (j != null && j.getJobID() != null && !j.isComplete()) {
          ApplicationId id = AppProbe.appId(j);
          yc.killApplication(id);
        }
      }
      yc.stop();
      cluster.stopYarn();
    }
  }

  @Test
  public void queueBGetsItsGuaranteeBackFromAOnlyWithTheMonitor() throws Exception {
    Outcome cs = run(CAPACITY_SCHEDULER, true, B_GIVE_UP_MS);
    Outcome locus = run(EmbeddedCluster.LOCUS_SCHEDULER, true, B_GIVE_UP_MS);
    for (Outcome o : new Outcome[] {cs, locus}) {
      assertTrue(o.toString(), o.bSucceeded);
      assertTrue("b's job ends while a's maps still run: " + o, o.aRunningWhenBEnded);
      assertTrue("a's maps could not have ended by themselves: " + o, o.bMs < A_MAP_MS);
      assertTrue("a gave b containers: " + o, o.a.getNumNonAMContainersPreempted() >= 1);
      assertEquals("a's AM is taken last, and a holds more than b needs: " + o,
          0, o.a.getNumAMContainersPreempted());
      assertEquals("nothing is taken from b: " + o, 0,
          o.b.getNumNonAMContainersPreempted() + o.b.getNumAMContainersPreempted());
    }
    int c = cs.a.getNumNonAMContainersPreempted();
    int l = locus.a.getNumNonAMContainersPreempted();
    assertTrue("similar counts: " + cs + " / " + locus, l <= 2 * c + 1 && c <= 2 * l + 1);

    // The same scenario without the monitor, watched as long as the slower of the two runs above
    // needed and half a minute more: b's job, done by then with preemption, must still be waiting
    // for a's maps.
    long watch = Math.min(B_GIVE_UP_MS, Math.max(cs.bMs, locus.bMs) + 30_000);
    Outcome off = run(EmbeddedCluster.LOCUS_SCHEDULER, false, watch);
    assertFalse("b waits while a holds the cluster: " + off, off.bSucceeded);
    assertTrue("a still runs: " + off, off.aRunningWhenBEnded);
    assertEquals("nothing is preempted: " + off, 0, off.a.getNumNonAMContainersPreempted());
  }
}
