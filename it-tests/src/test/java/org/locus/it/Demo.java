package org.locus.it;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

/**
 * The demo: an embedded 4-host, 2-rack cluster running the configured scheduler (Locus by default) through
 * a batch of real WordCount jobs, one alone and three at once, then one row per job and a summary.
 * Exits non-zero when a job fails or produces a wrong count.
 */
public final class Demo {
  private static final class Planned {
    final String name;
    final Corpus corpus;
    final int reduces;
    Job job;
    long submitted;
    JobOutcome outcome;
    boolean correct;

    Planned(String name, Corpus corpus, int reduces) {
      this.name = name;
      this.corpus = corpus;
      this.reduces = reduces;
    }
  }

  private Demo() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run();
    } catch (Throwable t) {
      System.err.println("demo failed: " + t);
      t.printStackTrace();
      status = 2;
    }
    // Hadoop leaves non-daemon threads behind; the verdict is already printed.
    System.exit(status);
  }

  private static int run() throws Exception {
    quietJavaUtilLogging();
    System.out.println("Starting embedded cluster (HDFS + YARN + MapReduce history), scheduler "
        + EmbeddedCluster.configuredScheduler() + " ...");
    try (EmbeddedCluster cluster = EmbeddedCluster.start("demo", 4, 2, false)) {
      DistributedFileSystem fs = cluster.fileSystem();
      List<Planned> plan = new ArrayList<>();
      plan.add(new Planned("wc-small", Corpus.write(fs, new Path("/demo/in/small"), 2, 600_000, 101,
          cluster.dataNodes(), 0, EmbeddedCluster.BLOCK_SIZE), 1));
      plan.add(new Planned("wc-medium", Corpus.write(fs, new Path("/demo/in/medium"), 4, 1_500_000, 102,
          cluster.dataNodes(), 1, EmbeddedCluster.BLOCK_SIZE), 1));
      plan.add(new Planned("wc-large", Corpus.write(fs, new Path("/demo/in/large"), 6, 2_000_000, 103,
          cluster.dataNodes(), 2, EmbeddedCluster.BLOCK_SIZE), 2));
      plan.add(new Planned("wc-wide", Corpus.write(fs, new Path("/demo/in/wide"), 8, 500_000, 104,
          cluster.dataNodes(), 3, EmbeddedCluster.BLOCK_SIZE), 2));

      String locality = describeLocality(cluster, plan);
      System.out.println("Cluster: " + cluster.hosts().size() + " nodes " + racksLine(cluster)
          + "; HDFS block 1 MB, replication 1.");
      System.out.println(locality);
      System.out.println("Running " + plan.get(0).name + " alone, then the other " + (plan.size() - 1)
          + " concurrently ...");

      submit(cluster, plan.get(0));
      await(cluster, plan.get(0));
      for (Planned p : plan.subList(1, plan.size())) {
        submit(cluster, p);
      }
      for (Planned p : plan.subList(1, plan.size())) {
        await(cluster, p);
      }

      printTable(plan);
      printSummary(cluster, plan);
      boolean allGood = plan.stream().allMatch(p -> p.outcome.succeeded && p.correct);
      System.out.println(allGood ? "RESULT: all " + plan.size() + " jobs succeeded with correct counts."
          : "RESULT: FAILED - at least one job failed or produced wrong counts.");
      return allGood ? 0 : 1;
    }
  }

  /**
   * Jersey/Guice inside the RM and NM web apps log through java.util.logging, whose default handler writes
   * to stderr; send those records to a file next to Hadoop's log instead.
   */
  private static void quietJavaUtilLogging() throws java.io.IOException {
    java.util.logging.LogManager.getLogManager().reset();
    java.io.File dir = new java.io.File(System.getProperty("locus.it.log.dir", "build/it-logs"));
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new java.io.IOException("cannot create log dir " + dir);
    }
    java.util.logging.FileHandler file =
        new java.util.logging.FileHandler(new java.io.File(dir, "demo-jul.log").getPath(), true);
    file.setFormatter(new java.util.logging.SimpleFormatter());
    java.util.logging.Logger.getLogger("").addHandler(file);
  }

  private static void submit(EmbeddedCluster cluster, Planned p) throws Exception {
    p.job = WordCount.newJob(cluster.clientConf(), p.name, p.corpus.dir(), new Path("/demo/out/" + p.name),
        p.reduces);
    p.submitted = System.nanoTime();
    p.job.submit();
  }

  private static void await(EmbeddedCluster cluster, Planned p) throws Exception {
    p.outcome = JobOutcome.await(p.job, p.submitted);
    p.correct = p.outcome.succeeded && p.corpus.expectedCounts().equals(
        WordCount.readOutput(cluster.fileSystem(), new Path("/demo/out/" + p.name)));
  }

  /** Checks, rather than assumes, that block locations name several distinct hosts that are all nodes. */
  private static String describeLocality(EmbeddedCluster cluster, List<Planned> plan) throws Exception {
    Set<String> nodeHosts = new HashSet<>();
    for (RMNode n : cluster.resourceManager().getRMContext().getRMNodes().values()) {
      nodeHosts.add(n.getHostName());
    }
    Set<String> blockHosts = new HashSet<>();
    for (Planned p : plan) {
      for (FileStatus f : cluster.fileSystem().listStatus(p.corpus.dir())) {
        for (BlockLocation b : cluster.fileSystem().getFileBlockLocations(f, 0, f.getLen())) {
          for (String h : b.getHosts()) {
            blockHosts.add(h);
          }
        }
      }
    }
    boolean real = nodeHosts.size() > 1 && blockHosts.size() > 1 && nodeHosts.containsAll(blockHosts);
    return real
        ? "Locality is REAL: every node is its own host (" + String.join(", ", new java.util.TreeSet<>(nodeHosts))
            + "); input blocks live on " + blockHosts.size() + " of them, one replica each."
        : "Locality is TRIVIAL: node hosts " + nodeHosts + " vs block hosts " + blockHosts
            + " - node-local counts below mean nothing.";
  }

  private static String racksLine(EmbeddedCluster cluster) {
    Map<String, List<String>> byRack = new java.util.TreeMap<>();
    for (String h : cluster.hosts()) {
      byRack.computeIfAbsent(cluster.rackOf(h), r -> new ArrayList<>()).add(h);
    }
    return "on " + byRack.size() + " racks " + byRack;
  }

  private static void printTable(List<Planned> plan) {
    String fmt = "%-24s %-10s %5s %8s %11s %11s %11s %14s  %s%n";
    System.out.println();
    System.out.printf(fmt, "job", "name", "maps", "reduces", "node-local", "rack-local", "off-switch",
        "turnaround(s)", "result");
    for (Planned p : plan) {
      JobOutcome o = p.outcome;
      String result = !o.succeeded ? "FAILED" : p.correct ? "ok" : "WRONG COUNTS";
      System.out.printf(fmt, o.jobId, p.name, o.maps, o.reduces, o.nodeLocalMaps, o.rackLocalMaps,
          o.offSwitchMaps, String.format("%.1f", o.turnaroundSeconds), result);
    }
  }

  private static void printSummary(EmbeddedCluster cluster, List<Planned> plan) {
    long maps = 0, reduces = 0, node = 0, rack = 0, off = 0;
    double turnaround = 0;
    for (Planned p : plan) {
      maps += p.outcome.maps;
      reduces += p.outcome.reduces;
      node += p.outcome.nodeLocalMaps;
      rack += p.outcome.rackLocalMaps;
      off += p.outcome.offSwitchMaps;
      turnaround += p.outcome.turnaroundSeconds;
    }
    long placed = Math.max(1, node + rack + off);
    System.out.println();
    System.out.printf("Totals: %d jobs, %d maps, %d reduces%n", plan.size(), maps, reduces);
    System.out.printf("Map locality: node-local %.1f%%, rack-local %.1f%%, off-switch %.1f%%%n",
        100.0 * node / placed, 100.0 * rack / placed, 100.0 * off / placed);
    System.out.printf("Mean turnaround: %.1f s%n", turnaround / plan.size());
    if (cluster.runsLocus()) {
      System.out.println("Locus core counters (every container: AMs and reduces too, not only maps): "
          + cluster.coreStats());
    } else {
      System.out.println("Locus core counters: n/a (scheduler is " + cluster.schedulerClass() + ")");
    }
  }
}
