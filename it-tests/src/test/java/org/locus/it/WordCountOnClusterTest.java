package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.mapreduce.Job;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** Real WordCount jobs on a 4-host, 2-rack embedded cluster: answers, locality, and the core's part in it. */
public class WordCountOnClusterTest {
  private static EmbeddedCluster cluster;
  private static Corpus corpus;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = EmbeddedCluster.start("wordcount", 4, 2, false);
    // 4 files x ~1.5 MB at 1 MB blocks: 8 splits, each file's blocks on a different host.
    corpus = Corpus.write(cluster.fileSystem(), new Path("/in/wordcount"), 4, 1_500_000, 7,
        cluster.dataNodes(), 0, EmbeddedCluster.BLOCK_SIZE);
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void inputBlocksLiveOnDistinctNodeManagerHosts() throws Exception {
    DistributedFileSystem fs = cluster.fileSystem();
    Set<String> blockHosts = new HashSet<>();
    int blocks = 0;
    for (FileStatus f : fs.listStatus(corpus.dir())) {
      for (BlockLocation b : fs.getFileBlockLocations(f, 0, f.getLen())) {
        blocks++;
        String[] hosts = b.getHosts();
        String[] paths = b.getTopologyPaths();
        for (int k = 0; k < hosts.length; k++) {
          blockHosts.add(hosts[k]);
          // Topology path = rack + "/" + the replica's transfer address.
          String rack = paths[k].substring(0, paths[k].lastIndexOf('/'));
          assertEquals("NameNode rack of " + hosts[k], cluster.rackOf(hosts[k]), rack);
        }
      }
    }
    assertTrue("expected several blocks per file, got " + blocks, blocks >= 8);
    assertEquals("block replicas should cover every host, each a NodeManager host",
        new HashSet<>(cluster.hosts()), blockHosts);
  }

  @Test
  public void wordCountIsCorrectAndTheCoreMadeTheAllocations() throws Exception {
    long before = cluster.runsLocus() ? cluster.coreStats().getOrDefault("allocations", 0L) : 0;
    Path out = new Path("/out/single");
    Job job = WordCount.newJob(cluster.clientConf(), "wordcount-single", corpus.dir(), out, 2);
    JobOutcome outcome = JobOutcome.run(job);

    assertTrue("job failed: " + outcome, outcome.succeeded);
    assertEquals(corpus.expectedCounts(), WordCount.readOutput(cluster.fileSystem(), out));
    assertEquals("maps placed (node+rack+off-switch) vs launched: " + outcome, outcome.maps,
        outcome.nodeLocalMaps + outcome.rackLocalMaps + outcome.offSwitchMaps);

    assumeTrue("core counters exist only with " + EmbeddedCluster.LOCUS_SCHEDULER, cluster.runsLocus());
    Map<String, Long> stats = cluster.coreStats();
    long allocations = stats.getOrDefault("allocations", 0L) - before;
    // Every launched map and reduce, plus the AM, ran in a container the core chose.
    long containers = outcome.maps + outcome.reduces + 1;
    assertTrue("core allocations " + allocations + " < containers the job ran " + containers + "; stats " + stats,
        allocations >= containers);
  }

  @Test
  public void twoConcurrentJobsBothFinishCorrectly() throws Exception {
    Corpus small = Corpus.write(cluster.fileSystem(), new Path("/in/concurrent-b"), 3, 700_000, 11,
        cluster.dataNodes(), 1, EmbeddedCluster.BLOCK_SIZE);
    Job a = WordCount.newJob(cluster.clientConf(), "wordcount-a", corpus.dir(), new Path("/out/a"), 1);
    Job b = WordCount.newJob(cluster.clientConf(), "wordcount-b", small.dir(), new Path("/out/b"), 1);
    long t = System.nanoTime();
    a.submit();
    b.submit();
    JobOutcome ra = JobOutcome.await(a, t);
    JobOutcome rb = JobOutcome.await(b, t);

    assertTrue("job a failed: " + ra, ra.succeeded);
    assertTrue("job b failed: " + rb, rb.succeeded);
    assertEquals(corpus.expectedCounts(), WordCount.readOutput(cluster.fileSystem(), new Path("/out/a")));
    assertEquals(small.expectedCounts(), WordCount.readOutput(cluster.fileSystem(), new Path("/out/b")));
  }
}
