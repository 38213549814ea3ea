package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** A NodeManager dies while a job's maps run on it: the job still finishes with the right answer. */
public class NodeManagerLossTest {
  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = EmbeddedCluster.start("nm-loss", 4, 2, false);
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void jobCompletesAfterANodeManagerRunningItsMapsStops() throws Exception {
    Corpus corpus = Corpus.write(cluster.fileSystem(), new Path("/in/nm-loss"), 4, 1_500_000, 23,
        cluster.dataNodes(), 0, EmbeddedCluster.BLOCK_SIZE);
    Job job = WordCount.newJob(cluster.clientConf(), "wordcount-nm-loss", corpus.dir(), new Path("/out/nm-loss"), 1);
    // Maps idle long enough that the NodeManager is stopped under running maps, not after them.
    job.getConfiguration().setLong(WordCount.MAP_PAUSE_MS, 15_000);
    long t = System.nanoTime();
    job.submit();
    ApplicationId id = AppProbe.appId(job);

    awaitRunningMaps(job, 2, 180_000);
    Map<ContainerId, String> live = AppProbe.liveContainers(cluster.resourceManager(), id);
    String amHost = live.get(AppProbe.amContainer(cluster.resourceManager(), id));
    String victim = null;
    for (Map.Entry<ContainerId, String> e : live.entrySet()) {
      if (!e.getValue().equals(amHost)) {
        victim = e.getValue();
        break;
      }
    }
    assertTrue("every live container is on the AM's host " + amHost + ": " + live, victim != null);
    int victimIndex = cluster.hosts().indexOf(victim);
    long mapsOnVictim = live.values().stream().filter(victim::equals).count();
    cluster.stopNodeManager(victimIndex);
    cluster.waitForRunningNodes(cluster.hosts().size() - 1, 60_000);

    JobOutcome outcome = JobOutcome.await(job, t);
    assertTrue("job failed after losing " + victim + ": " + outcome, outcome.succeeded);
    assertEquals(corpus.expectedCounts(), WordCount.readOutput(cluster.fileSystem(), new Path("/out/nm-loss")));
    // The maps that were running on the lost node had to run again elsewhere: their successful attempt is
    // not the first one.
    int rerun = 0;
    for (TaskReport map : job.getTaskReports(TaskType.MAP)) {
      if (map.getSuccessfulTaskAttemptId().getId() > 0) {
        rerun++;
      }
    }
    assertTrue("expected re-run maps after losing " + mapsOnVictim + " containers on " + victim + ": " + outcome,
        rerun >= 1);
  }

  /** Waits until {@code min} map tasks have a launched, running attempt. */
  private static void awaitRunningMaps(Job job, int min, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    int running = 0;
    while (System.currentTimeMillis() < deadline) {
      assertTrue("job finished before its maps were seen running", !job.isComplete());
      running = 0;
      for (TaskReport map : job.getTaskReports(TaskType.MAP)) {
        if (map.getCurrentStatus() == TIPStatus.RUNNING) {
          running++;
        }
      }
      if (running >= min) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(running + " maps running after " + timeoutMs + " ms, wanted " + min);
  }
}
