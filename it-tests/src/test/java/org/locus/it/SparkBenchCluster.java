package org.locus.it;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The embedded cluster for {@code ./locus bench spark} (bench/spark_latency.py): one HDFS, then YARN under each
 * scheduler in turn, while a client outside this JVM submits Spark applications to it.
 *
 * <p>The two sides talk through files in a control directory (system property {@value #CONTROL}). For each run
 * {@code NAME} in {@value #RUNS} this driver starts YARN, writes {@code NAME/conf/core-site.xml} and
 * {@code yarn-site.xml} (a HADOOP_CONF_DIR for clients) and then {@code NAME/ready} (the RM's web address);
 * it waits for the client to write {@code NAME/done}, stops YARN and writes {@code NAME/stopped}. The wait is a
 * hang guard ({@value #WAIT_MINUTES}, default 60 minutes), not a timing: a client that dies leaves the
 * cluster to end there.
 */
public final class SparkBenchCluster {
  /** System property: the control directory shared with the client. */
  static final String CONTROL = "locus.spark.control";
  /** System property: the runs, comma-separated, in order (capacity-default, locus-default). */
  static final String RUNS = "locus.spark.runs";
  /** System property: minutes to wait for the client per run. */
  static final String WAIT_MINUTES = "locus.spark.wait.minutes";
  static final int HOSTS = 4;
  static final int RACKS = 2;

  private SparkBenchCluster() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run();
    } catch (Throwable t) {
      System.err.println("spark bench cluster failed: " + t);
      t.printStackTrace();
      status = 2;
    }
    // Hadoop leaves non-daemon threads behind.
    System.exit(status);
  }

  /** The scheduler class and its settings for a run name; fails naming the unknown name. */
  static Map.Entry<String, Map<String, String>> schedulerOf(String run) {
    switch (run) {
      case "capacity-default":
        return Map.entry(Demo.CAPACITY_SCHEDULER, Demo.capacitySchedulerDefaults());
      case "locus-default":
        return Map.entry(EmbeddedCluster.LOCUS_SCHEDULER, Collections.emptyMap());
      default:
        throw new IllegalArgumentException(RUNS + ": unknown run '" + run
            + "' (known: capacity-default, locus-default)");
    }
  }

  private static int run() throws Exception {
    Demo.quietJavaUtilLogging();
    String control = System.getProperty(CONTROL);
    if (control == null || control.isEmpty()) {
      throw new IllegalArgumentException("system property " + CONTROL + " (the control directory) is required");
    }
    File controlDir = new File(control).getAbsoluteFile();
    List<String> runs = new ArrayList<>();
    for (String r : System.getProperty(RUNS, "capacity-default,locus-default").split(",")) {
      if (!r.trim().isEmpty()) {
        schedulerOf(r.trim());
        runs.add(r.trim());
      }
    }
    if (runs.isEmpty()) {
      throw new IllegalArgumentException(RUNS + " names no run");
    }
    long waitMs = Long.parseLong(System.getProperty(WAIT_MINUTES, "60")) * 60_000L;
    try (EmbeddedCluster cluster = EmbeddedCluster.startHdfs("spark-bench", HOSTS, RACKS)) {
      for (String run : runs) {
        Map.Entry<String, Map<String, String>> s = schedulerOf(run);
        File dir = new File(controlDir, run);
        if (!dir.isDirectory() && !dir.mkdirs()) {
          throw new IOException("cannot create " + dir);
        }
        cluster.startYarn(s.getKey(), s.getValue());
        try {
          Configuration conf = cluster.clientConf();
          File confDir = new File(dir, "conf");
          if (!confDir.isDirectory() && !confDir.mkdirs()) {
            throw new IOException("cannot create " + confDir);
          }
          writeSite(new File(confDir, "core-site.xml"), coreSite(conf));
          writeSite(new File(confDir, "yarn-site.xml"), yarnSite(conf));
          String web = conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS);
          Files.write(new File(dir, "ready").toPath(),
              ("scheduler=" + s.getKey() + "\nrm_web=" + web + "\n").getBytes(StandardCharsets.UTF_8));
          System.out.println(run + ": YARN up under " + s.getKey() + ", RM web " + web);
          File done = new File(dir, "done");
          long deadline = System.currentTimeMillis() + waitMs;
          while (!done.exists()) {
            if (System.currentTimeMillis() > deadline) {
              throw new IllegalStateException("no " + done + " within " + waitMs / 60_000 + " minutes");
            }
            Thread.sleep(200);
          }
        } finally {
          cluster.stopYarn();
        }
        Files.write(new File(dir, "stopped").toPath(), new byte[0]);
      }
    }
    return 0;
  }

  /** The keys a Hadoop client needs to reach this cluster's file system. */
  static Map<String, String> coreSite(Configuration conf) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, conf.get(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY));
    // Spark's staging files are written from the client; one replica, as every other file of the cluster.
    out.put("dfs.replication", String.valueOf(EmbeddedCluster.REPLICATION));
    return out;
  }

  /** The RM's addresses as bound (ephemeral ports), so clients and AMs reach the running RM. */
  static Map<String, String> yarnSite(Configuration conf) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String key : new String[] {YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_SCHEDULER_ADDRESS,
        YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS,
        YarnConfiguration.RM_WEBAPP_ADDRESS}) {
      out.put(key, conf.get(key));
    }
    out.put(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB,
        conf.get(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB));
    out.put(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
        conf.get(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB));
    return out;
  }

  private static void writeSite(File file, Map<String, String> keys) throws IOException {
    Configuration c = new Configuration(false);
    keys.forEach((k, v) -> {
      if (v == null) {
        throw new IllegalStateException("the running cluster has no value for " + k);
      }
      c.set(k, v);
    });
    try (OutputStream out = new FileOutputStream(file)) {
      c.writeXml(out);
    }
  }
}
