package org.locus.it;

import java.io.Closeable;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.commons.io.FileUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.net.TableMapping;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/**
 * An embedded HDFS + YARN + MapReduce cluster whose nodes are distinct hosts.
 *
 * <p>MiniYARNCluster names every NodeManager "localhost", which makes every map trivially node-local. Here
 * node i is the loopback address 127.0.0.(i+2) (Linux answers the whole 127/8): its DataNode registers
 * that address as its host name (so block locations name it) and its NodeManager binds its RPC server to
 * it (so the RM's NodeId names it). The NodeManagers are therefore started here, not by MiniYARNCluster,
 * which would bind them all to localhost. Racks come from one topology table, read by {@link TableMapping}
 * in the RM and the MR AMs and by {@link HostTableMapping} in the NameNode.
 *
 * <p>The scheduler class is one switch: the system property {@value #SCHEDULER_PROPERTY}, defaulting to
 * {@value #LOCUS_SCHEDULER}.
 */
public final class EmbeddedCluster implements Closeable {
  public static final String SCHEDULER_PROPERTY = "locus.it.scheduler";
  public static final String LOCUS_SCHEDULER = "org.locus.yarn.LocusScheduler";
  public static final long BLOCK_SIZE = 1024 * 1024;
  public static final int NODE_MEMORY_MB = 4096;
  public static final int NODE_VCORES = 8;
  /** HDFS replication of every file the tests and the demo write (Corpus, TeraInput). */
  public static final int REPLICATION = 1;
  /** NodeManager and MapReduce AM heartbeat intervals, ms. */
  public static final int NM_HEARTBEAT_MS = 500;
  public static final int AM_HEARTBEAT_MS = 500;
  /** Container sizes, MB: MapReduce AMs, and maps and reduces. */
  public static final int AM_MEMORY_MB = 512;
  public static final int TASK_MEMORY_MB = 256;
  /** How often a client waiting for a job asks whether it is done (mapreduce.client.completion.pollinterval). */
  public static final int CLIENT_POLL_MS = 500;
  /**
   * JVM options added to every MapReduce AM and task JVM (system property; empty by default, so the demo's
   * and the benches' tasks run as on a real cluster). The tests set it: their jobs' JVMs live seconds, and
   * on 2 cores the compiler threads a fresh JVM starts cost more than the code they compile saves.
   */
  public static final String TASK_JVM_OPTIONS_PROPERTY = "locus.it.task.jvm.options";
  /** mapreduce.job.reduce.slowstart.completedmaps. */
  public static final float REDUCE_SLOWSTART = 0.8f;

  private final String name;
  private final File workDir;
  private final List<String> hosts;
  private final Map<String, String> rackOfHost;
  private String schedulerClass;
  /** Scheduler settings layered over the cluster's own for the current YARN start (e.g. CapacityScheduler keys). */
  private Map<String, String> schedulerSettings = Collections.emptyMap();
  /** YARN starts on this HDFS so far: each later start gets its own NodeManager directories. */
  private int yarnStarts;
  private Configuration baseConf;
  private boolean rmRecovery;
  private boolean useRmSiteDir;
  private MiniDFSCluster dfs;
  private DistributedFileSystem clientFs;
  private MiniMRYarnCluster yarn;
  private final List<NodeManager> nodeManagers = new ArrayList<>();
  /** Per host index, settings over the cluster's for that host's NodeManager (e.g. the resource types it declares). */
  private final Map<Integer, Map<String, String>> nodeSettings = new LinkedHashMap<>();
  private final Map<String, InetSocketAddress> dataNodeByHost = new LinkedHashMap<>();

  /** Which scheduler class the cluster runs: the switch every test and the demo go through. */
  public static String configuredScheduler() {
    return System.getProperty(SCHEDULER_PROPERTY, LOCUS_SCHEDULER);
  }

  /**
   * @param nodes number of hosts, each with one DataNode and one NodeManager
   * @param racks number of racks; hosts are dealt to racks in contiguous groups
   * @param rmRecovery whether the RM keeps state in a file-system store for work-preserving restart
   */
  public static EmbeddedCluster start(String name, int nodes, int racks, boolean rmRecovery) throws Exception {
    return start(name, nodes, racks, rmRecovery, false);
  }

  /**
   * @param rmSiteDir whether the RM reads core-site.xml / yarn-site.xml from {@link #rmSiteDir()} (Hadoop's
   *     FileSystemBasedConfigurationProvider), as it does at start and on every {@code yarn rmadmin -refresh*}:
   *     a test edits yarn-site.xml there the way an operator edits the RM's, without touching the classpath
   *     every other service and task JVM reads
   */
  public static EmbeddedCluster start(String name, int nodes, int racks, boolean rmRecovery, boolean rmSiteDir)
      throws Exception {
    EmbeddedCluster cluster = create(name, nodes, racks, configuredScheduler());
    cluster.useRmSiteDir = rmSiteDir;
    cluster.rmRecovery = rmRecovery;
    try {
      cluster.startHdfsAndTopology();
      cluster.startYarn(cluster.schedulerClass, Collections.emptyMap());
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * HDFS only, with the same hosts, racks and topology table as {@link #start}; YARN comes and goes with
   * {@link #startYarn} / {@link #stopYarn}, so several schedulers can run on one file system whose blocks
   * stay where they were written.
   */
  public static EmbeddedCluster startHdfs(String name, int nodes, int racks) throws Exception {
    EmbeddedCluster cluster = create(name, nodes, racks, configuredScheduler());
    try {
      cluster.startHdfsAndTopology();
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private static EmbeddedCluster create(String name, int nodes, int racks, String schedulerClass) {
    if (nodes < 1 || nodes > 250) {
      throw new IllegalArgumentException("nodes must be in 1..250 (one loopback address each), got " + nodes);
    }
    if (racks < 1 || racks > nodes) {
      throw new IllegalArgumentException("racks must be in 1.." + nodes + ", got " + racks);
    }
    return new EmbeddedCluster(name, nodes, racks, schedulerClass);
  }

  private EmbeddedCluster(String name, int nodes, int racks, String schedulerClass) {
    this.name = name;
    this.schedulerClass = schedulerClass;
    this.workDir = new File(System.getProperty("locus.it.work.dir", "build/it-cluster"), name).getAbsoluteFile();
    Map<String, String> r = topology(nodes, racks);
    this.hosts = Collections.unmodifiableList(new ArrayList<>(r.keySet()));
    this.rackOfHost = Collections.unmodifiableMap(r);
  }

  /** Host to rack, in host order: 127.0.0.2, 127.0.0.3, ... dealt to racks /rack-a, /rack-b ... in contiguous groups. */
  static Map<String, String> topology(int nodes, int racks) {
    Map<String, String> r = new LinkedHashMap<>();
    int perRack = (nodes + racks - 1) / racks;
    for (int i = 0; i < nodes; i++) {
      r.put("127.0.0." + (i + 2), "/rack-" + (char) ('a' + i / perRack));
    }
    return r;
  }

  private void startHdfsAndTopology() throws Exception {
    FileUtils.deleteDirectory(workDir);
    if (!workDir.mkdirs()) {
      throw new IOException("cannot create cluster work dir " + workDir);
    }
    File table = new File(workDir, "topology.table");
    try (PrintWriter out = new PrintWriter(table, StandardCharsets.UTF_8.name())) {
      rackOfHost.forEach((host, rack) -> out.println(host + " " + rack));
    }

    Configuration base = new Configuration();
    base.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_TABLE_MAPPING_FILE_KEY, table.getPath());
    base.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK_SIZE);
    base.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, REPLICATION);
    startHdfs(base);
    baseConf = base;
  }

  /**
   * Starts the RM (with {@code scheduler} and {@code settings} over the cluster's configuration), the
   * history server and one NodeManager per host, and waits until every node runs. Fails if YARN is up.
   */
  public void startYarn(String scheduler, Map<String, String> settings) throws Exception {
    if (yarn != null) {
      throw new IllegalStateException("YARN is already running under " + schedulerClass + "; stopYarn() first");
    }
    try {
      Class.forName(scheduler);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("scheduler class " + scheduler + " (system property "
          + SCHEDULER_PROPERTY + ") is not on the test classpath", e);
    }
    schedulerClass = scheduler;
    schedulerSettings = new LinkedHashMap<>(settings);
    yarnStarts++;
    YarnConfiguration yc = new YarnConfiguration(baseConf);
    yc.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, dfs.getURI().toString());
    yc.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, TableMapping.class.getName());
    configureYarn(yc, rmRecovery);
    yarn = new MiniMRYarnCluster(yarnStarts == 1 ? name : name + "-" + yarnStarts, 0);
    yarn.init(yc);
    yarn.start();
    for (int i = 0; i < hosts.size(); i++) {
      startNodeManager(i);
    }
    waitForRunningNodes(hosts.size(), 60_000);
  }

  /**
   * Settings over the cluster's for the NodeManager on host {@code node} (0-based), from its next start on: e.g.
   * {@code yarn.nodemanager.resource-type.yarn.io/gpu} for a node with GPUs while the others have none.
   */
  public void setNodeSettings(int node, Map<String, String> settings) {
    nodeSettings.put(node, new LinkedHashMap<>(settings));
  }

  /**
   * Stops the NodeManagers, the RM and the history server; HDFS and its blocks stay. The NodeManagers stop
   * side by side: each one that ran containers spends most of its stop waiting (for its applications,
   * which it keeps until their logs' retention ends, then for the log handler's delayed deletions), and
   * one after another those waits add up on every YARN start a test makes.
   */
  public void stopYarn() {
    List<Thread> stopping = new ArrayList<>();
    for (NodeManager nm : nodeManagers) {
      Thread t = new Thread(() -> {
        try {
          nm.stop();
        } catch (RuntimeException e) {
          System.err.println("stopping NodeManager: " + e);
        }
      }, "stop-" + nm.getName());
      t.start();
      stopping.add(t);
    }
    boolean interrupted = false;
    for (Thread t : stopping) {
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    nodeManagers.clear();
    if (yarn != null) {
      yarn.stop();
      yarn = null;
    }
  }

  private void startHdfs(Configuration base) throws Exception {
    Configuration hc = new HdfsConfiguration(base);
    hc.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, HostTableMapping.class.getName());
    // All clients connect from 127.0.0.1, which every DataNode also registers as its IP: "prefer the
    // writer's node" would pile every block onto one DataNode. Corpus places blocks explicitly instead.
    hc.setBoolean("dfs.namenode.block-placement-policy.default.prefer-local-node", false);
    dfs = new MiniDFSCluster.Builder(hc, new File(workDir, "dfs"))
        .numDataNodes(0)
        .useConfiguredTopologyMappingClass(true)
        .build();
    for (String host : hosts) {
      // One DataNode per call: each gets its own configuration, hence its own host name.
      Configuration dn = new HdfsConfiguration(hc);
      dn.set(DFSConfigKeys.DFS_DATANODE_HOST_NAME_KEY, host);
      dfs.startDataNodes(dn, 1, null, true, null, null, null, null, null, false, false, true, null, null, null);
    }
    dfs.waitActive();
    // Our own client, not FileSystem.get's cached one: MiniDFSCluster rewrites dfs.replication in its
    // configuration to min(replication, DataNodes at build), 0 here, and the cache hands the first client per
    // user and URI to everyone, whatever their configuration; the RM's node-attribute store then fails at start
    // ("Requested replication factor of 0"). Stopping YARN also closes the cached client, which would end a
    // file system meant to outlive several YARN starts.
    clientFs = (DistributedFileSystem) FileSystem.newInstance(dfs.getURI(), new HdfsConfiguration(base));
    if (clientFs.getDefaultReplication(new org.apache.hadoop.fs.Path("/")) != 1) {
      throw new IllegalStateException("the HDFS client's default replication is "
          + clientFs.getDefaultReplication(new org.apache.hadoop.fs.Path("/")) + ", expected 1");
    }
    for (DataNode dn : dfs.getDataNodes()) {
      dataNodeByHost.put(dn.getDatanodeId().getHostName(), dn.getXferAddress());
    }
    if (!dataNodeByHost.keySet().equals(new java.util.HashSet<>(hosts))) {
      throw new IllegalStateException("DataNodes registered as " + dataNodeByHost.keySet() + ", expected " + hosts);
    }
  }

  private void configureYarn(YarnConfiguration c, boolean rmRecovery) throws IOException {
    c.set(YarnConfiguration.RM_SCHEDULER, schedulerClass);
    // Set, not added as a resource: a set key wins over any capacity-scheduler.xml on the classpath (Hadoop's
    // test jars carry two, one with node-locality-delay -1).
    schedulerSettings.forEach(c::set);
    c.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    c.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, NODE_MEMORY_MB);
    c.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, NM_HEARTBEAT_MS);
    c.setLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, 20_000);
    c.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 500);
    c.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 120_000);
    c.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    c.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    c.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.5f);
    if (rmRecovery) {
      c.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
      c.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
      c.set(YarnConfiguration.RM_STORE, FileSystemRMStateStore.class.getName());
      c.set(YarnConfiguration.FS_RM_STATE_STORE_URI, new File(workDir, "rm-state").toURI().toString());
      c.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 2_000);
    }
    if (useRmSiteDir) {
      c.set(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS, FileSystemBasedConfigurationProvider.class.getName());
      c.set(YarnConfiguration.FS_BASED_RM_CONF_STORE, rmSiteDir().toURI().toString());
    }

    // Task JVMs are real processes: they get the test classpath (Hadoop jars + our WordCount).
    String classpath = pathingJar().getAbsolutePath();
    c.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, classpath);
    c.set(MRJobConfig.MAPREDUCE_APPLICATION_CLASSPATH, classpath);
    c.setBoolean("mapreduce.jvm.add-opens-as-default", true);
    c.setInt(MRJobConfig.MR_AM_VMEM_MB, AM_MEMORY_MB);
    String taskJvm = taskJvmOptions();
    c.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx384m" + taskJvm);
    c.setInt(MRJobConfig.MAP_MEMORY_MB, TASK_MEMORY_MB);
    c.setInt(MRJobConfig.REDUCE_MEMORY_MB, TASK_MEMORY_MB);
    c.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx192m" + taskJvm);
    c.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx192m" + taskJvm);
    c.setInt(MRJobConfig.IO_SORT_MB, 32);
    c.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
    c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, REDUCE_SLOWSTART);
    c.setInt(MRJobConfig.MR_AM_TO_RM_HEARTBEAT_INTERVAL_MS, AM_HEARTBEAT_MS);
    // Job.waitForCompletion polls every 5 s by default: up to 5 s idle after every job a test waits for.
    c.setInt(Job.COMPLETION_POLL_INTERVAL_KEY, CLIENT_POLL_MS);
    c.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
  }

  private static String taskJvmOptions() {
    String extra = System.getProperty(TASK_JVM_OPTIONS_PROPERTY, "").trim();
    return extra.isEmpty() ? "" : " " + extra;
  }

  /**
   * A jar whose manifest Class-Path lists this JVM's classpath. Passing the ~250 entries themselves makes
   * the container's CLASSPATH exceed Linux's 128 KiB limit for one environment string ("Argument list too
   * long" when the NodeManager launches a task).
   */
  private File pathingJar() throws IOException {
    StringBuilder cp = new StringBuilder();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      File f = new File(entry).getAbsoluteFile();
      String url = f.toURI().toString();
      if (f.isDirectory() && !url.endsWith("/")) {
        url += "/";
      }
      cp.append(url).append(' ');
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString().trim());
    File jar = new File(workDir, "classpath.jar");
    try (JarOutputStream out = new JarOutputStream(new FileOutputStream(jar), manifest)) {
      out.flush();
    }
    return jar;
  }

  private void startNodeManager(int i) throws Exception {
    String host = hosts.get(i);
    YarnConfiguration c = new YarnConfiguration(yarn.getConfig());
    c.set(YarnConfiguration.NM_ADDRESS, host + ":0");
    c.set(YarnConfiguration.NM_LOCALIZER_ADDRESS, host + ":0");
    c.set(YarnConfiguration.NM_WEBAPP_ADDRESS, host + ":0");
    String prefix = yarnStarts <= 1 ? "" : "yarn-" + yarnStarts + "/";
    c.set(YarnConfiguration.NM_LOCAL_DIRS, dir(prefix + "nm-" + i + "-local"));
    c.set(YarnConfiguration.NM_LOG_DIRS, dir(prefix + "nm-" + i + "-logs"));
    c.setInt(YarnConfiguration.NM_PMEM_MB, NODE_MEMORY_MB);
    c.setInt(YarnConfiguration.NM_VCORES, NODE_VCORES);
    c.setBoolean(YarnConfiguration.NM_ENABLE_HARDWARE_CAPABILITY_DETECTION, false);
    c.setBoolean(YarnConfiguration.NM_CONTAINER_MONITOR_ENABLED, false);
    nodeSettings.getOrDefault(i, Collections.emptyMap()).forEach(c::set);
    // A NodeManager reads the resource types it declares once per JVM (ResourceUtils keeps them): each
    // NodeManager of this JVM must read its own settings.
    ResourceUtils.resetNodeResources();
    NodeManager nm = new NodeManager();
    nm.init(c);
    nm.start();
    if (nm.getServiceState() != Service.STATE.STARTED) {
      throw new IllegalStateException("NodeManager on " + host + " failed to start", nm.getFailureCause());
    }
    String registered = nm.getNMContext().getNodeId().getHost();
    if (!host.equals(registered)) {
      throw new IllegalStateException("NodeManager " + i + " registered as host " + registered + ", expected "
          + host + ": block locations would not match any node");
    }
    nodeManagers.add(nm);
  }

  private String dir(String leaf) throws IOException {
    File d = new File(workDir, leaf);
    if (!d.isDirectory() && !d.mkdirs()) {
      throw new IOException("cannot create " + d);
    }
    return d.getAbsolutePath();
  }

  /** Waits until the RM lists exactly {@code count} RUNNING nodes; fails naming what it saw. */
  public void waitForRunningNodes(int count, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      ResourceManager rm = resourceManager();
      int running = 0;
      if (rm != null) {
        for (RMNode node : rm.getRMContext().getRMNodes().values()) {
          if (node.getState() == NodeState.RUNNING) {
            running++;
          }
        }
        if (running == count && rm.getResourceScheduler().getNumClusterNodes() == count) {
          return;
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("expected " + count + " running nodes, RM has " + running);
      }
      Thread.sleep(200);
    }
  }

  public Configuration clientConf() {
    return new Configuration(yarn.getConfig());
  }

  public DistributedFileSystem fileSystem() {
    return clientFs;
  }

  public ResourceManager resourceManager() {
    return yarn.getResourceManager();
  }

  public MiniMRYarnCluster yarn() {
    return yarn;
  }

  public List<String> hosts() {
    return hosts;
  }

  /** The RM's site-file directory; only read when the cluster was started with {@code rmSiteDir}. */
  public File rmSiteDir() {
    return new File(workDir, "rm-site");
  }

  public String rackOf(String host) {
    return rackOfHost.get(host);
  }

  public String schedulerClass() {
    return schedulerClass;
  }

  public boolean runsLocus() {
    return LOCUS_SCHEDULER.equals(schedulerClass);
  }

  public NodeManager nodeManager(int i) {
    return nodeManagers.get(i);
  }

  /** DataNode transfer addresses in host order: the favoured-node targets for {@link Corpus}. */
  public InetSocketAddress[] dataNodes() {
    InetSocketAddress[] out = new InetSocketAddress[hosts.size()];
    for (int i = 0; i < hosts.size(); i++) {
      out[i] = dataNodeByHost.get(hosts.get(i));
    }
    return out;
  }

  /** Stops host i's NodeManager (its DataNode keeps running). */
  public void stopNodeManager(int i) {
    nodeManagers.get(i).stop();
  }

  /** Stops the RM and starts a fresh one on the same configuration (same ports, same state store). */
  public void restartResourceManager() throws InterruptedException {
    yarn.restartResourceManager(0);
  }

  /**
   * The scheduler's own counters (Locus: {@code getCoreStatsJson()}), as name → value. Fails with a clear
   * message when the running scheduler does not expose them.
   */
  public Map<String, Long> coreStats() {
    Object scheduler = resourceManager().getResourceScheduler();
    String json;
    try {
      Method m = scheduler.getClass().getMethod("getCoreStatsJson");
      json = (String) m.invoke(scheduler);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("scheduler " + scheduler.getClass().getName()
          + " has no getCoreStatsJson(): core counters exist only with " + LOCUS_SCHEDULER, e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("getCoreStatsJson() failed on " + scheduler.getClass().getName(), e);
    }
    Map<String, Long> out = new TreeMap<>();
    try {
      JsonNode root = new ObjectMapper().readTree(json);
      root.fields().forEachRemaining(f -> {
        if (f.getValue().isNumber()) {
          out.put(f.getKey(), f.getValue().asLong());
        }
      });
    } catch (IOException e) {
      throw new IllegalStateException("getCoreStatsJson() returned malformed JSON: " + json, e);
    }
    return out;
  }

  @Override
  public void close() {
    stopYarn();
    if (clientFs != null) {
      try {
        clientFs.close();
      } catch (IOException e) {
        System.err.println("closing the HDFS client: " + e);
      }
    }
    if (dfs != null) {
      dfs.shutdown();
    }
  }
}
