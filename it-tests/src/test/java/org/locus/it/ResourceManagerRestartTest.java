package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Work-preserving RM restart under a running job: the new RM (and its scheduler) takes over the containers
 * that kept running, the AM is not restarted, and the job finishes with the right answer.
 */
public class ResourceManagerRestartTest {
  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = EmbeddedCluster.start("rm-restart", 3, 2, true);
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void runningContainersSurviveAResourceManagerRestart() throws Exception {
    Corpus corpus = Corpus.write(cluster.fileSystem(), new Path("/in/rm-restart"), 3, 1_500_000, 31,
        cluster.dataNodes(), 0, EmbeddedCluster.BLOCK_SIZE);
    Job job = WordCount.newJob(cluster.clientConf(), "wordcount-rm-restart", corpus.dir(),
        new Path("/out/rm-restart"), 1);
    job.getConfiguration().setLong(WordCount.MAP_PAUSE_MS, 20_000);
    long t = System.nanoTime();
    job.submit();
    ApplicationId id = AppProbe.appId(job);

    Map<ContainerId, String> before = AppProbe.awaitLiveContainers(cluster, job, 3, 180_000);
    ContainerId am = AppProbe.amContainer(cluster.resourceManager(), id);
    String rmAddress = cluster.resourceManager().getConfig().get(YarnConfiguration.RM_SCHEDULER_ADDRESS);
    cluster.restartResourceManager();
    ResourceManager rm = cluster.resourceManager();
    assertEquals("restarted RM must listen where the AM and NodeManagers look for it", rmAddress,
        rm.getConfig().get(YarnConfiguration.RM_SCHEDULER_ADDRESS));
    cluster.waitForRunningNodes(cluster.hosts().size(), 60_000);

    // The NodeManagers report their containers on re-registration; the new scheduler must adopt the AM's.
    long deadline = System.currentTimeMillis() + 60_000;
    Map<ContainerId, String> after = AppProbe.liveContainers(rm, id);
    while (!after.containsKey(am) && System.currentTimeMillis() < deadline) {
      Thread.sleep(250);
      after = AppProbe.liveContainers(rm, id);
    }
    assertTrue("AM container " + am + " not recovered by the new RM; live: " + after + ", before: " + before,
        after.containsKey(am));
    assertEquals("AM container recovered on another host", before.get(am), after.get(am));
    if (cluster.runsLocus()) {
      // The new RM's core starts empty: it must have been told about the containers that kept running,
      // or it would hand their resources out again.
      Map<String, Long> stats = cluster.coreStats();
      assertTrue("new core learned of no recovered containers; stats " + stats,
          stats.getOrDefault("recovered", 0L) >= 1);
    }

    JobOutcome outcome = JobOutcome.await(job, t);
    assertTrue("job failed across the RM restart: " + outcome, outcome.succeeded);
    assertEquals(corpus.expectedCounts(), WordCount.readOutput(cluster.fileSystem(), new Path("/out/rm-restart")));
    assertEquals("the AM was restarted instead of being kept", 1,
        AppProbe.app(cluster.resourceManager(), id).getAppAttempts().size());
  }
}
