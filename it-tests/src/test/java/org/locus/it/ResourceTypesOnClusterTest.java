package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * GPUs as a resource type on the embedded cluster: {@code yarn.io/gpu} declared in {@code
 * yarn.resource-types}, two NodeManagers of which only the first declares 2 GPUs, the
 * DominantResourceCalculator. DistributedShell, YARN's own client, asks two containers of one
 * GPU each: under CapacityScheduler and under Locus both run on the GPU node and none on the
 * other, whose memory and vcores are as free. An ask for more GPUs than any node has is refused
 * at submission by the RM, naming the type.
 */
public class ResourceTypesOnClusterTest {
  private static final String GPU = ResourceInformation.GPU_URI;
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.startHdfs("resource-types", 2, 1);
    // What resource-types.xml does for the RM and every client of this JVM: each Resource carries
    // memory, vcores and GPUs.
    Configuration types = new Configuration(false);
    types.set(YarnConfiguration.RESOURCE_TYPES, GPU);
    ResourceUtils.resetResourceTypes(types);
    cluster.setNodeSettings(0,
        Collections.singletonMap(YarnConfiguration.NM_RESOURCES_PREFIX + GPU, "2"));
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    ResourceUtils.resetResourceTypes(new Configuration());
    ResourceUtils.resetNodeResources();
  }

  private static Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(YarnConfiguration.RESOURCE_TYPES, GPU);
    s.put("yarn.scheduler.capacity.resource-calculator",
        DominantResourceCalculator.class.getName());
    // The largest allocation is the largest node's from the start (not the configured maximum,
    // unbounded for GPUs, for the first 10 s): what a long-running RM refuses.
    s.put(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, "0");
    return s;
  }

  /**
   * The jar DistributedShell ships as its AM's: the running cluster's configuration as {@code
   * yarn-site.xml}. The AM class itself comes from the containers' classpath (the test's); its
   * {@code new YarnConfiguration()} finds the RM's ephemeral ports in this file, which is first on
   * its classpath, as a real AM finds them in the cluster's yarn-site.xml.
   */
  private static String siteJar() throws IOException {
    File jar = File.createTempFile("locus-yarn-site-", ".jar");
    jar.deleteOnExit();
    try (JarOutputStream out = new JarOutputStream(new FileOutputStream(jar))) {
      out.putNextEntry(new JarEntry("yarn-site.xml"));
      StringWriter site = new StringWriter();
      cluster.yarn().getConfig().writeXml(site);
      out.write(site.toString().getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar.getAbsolutePath();
  }

  private static String[] shell(String containerResources, int containers) throws IOException {
    String jar = siteJar();
    return new String[] {
        "-jar", jar,
        "-shell_command", "sleep 3",
        "-num_containers", String.valueOf(containers),
        "-master_resources", "memory-mb=512,vcores=1",
        "-container_resources", containerResources,
        "-timeout", "300000"};
  }

  /** The hosts of every container with a GPU while DistributedShell runs; whether it succeeded. */
  private static boolean runAndWatch(List<String> gpuHosts) throws Exception {
    ResourceManager rm = cluster.resourceManager();
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    Client client = new Client(new Configuration(cluster.clientConf()));
    assertTrue(client.init(shell("memory-mb=256,vcores=1," + GPU + "=1", 2)));
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread run = new Thread(() -> {
      try {
        outcome.set(client.run());
      } catch (Exception e) {
        outcome.set(e);
      }
    }, "distributed-shell");
    run.start();
    Map<String, String> seen = new LinkedHashMap<>();
    while (run.isAlive()) {
      for (NodeId id : nodeIds()) {
        SchedulerNode node = scheduler.getSchedulerNode(id);
        if (node == null) {
          continue;
        }
        for (RMContainer c : node.getCopiedListOfRunningContainers()) {
          if (c.getAllocatedResource().getResourceValue(GPU) > 0) {
            seen.put(c.getContainerId().toString(), id.getHost());
          }
        }
      }
      run.join(50);
    }
    gpuHosts.addAll(seen.values());
    if (outcome.get() instanceof Exception) {
      throw (Exception) outcome.get();
    }
    return Boolean.TRUE.equals(outcome.get());
  }

  private static List<NodeId> nodeIds() {
    List<NodeId> ids = new ArrayList<>();
    for (int i = 0; i < cluster.hosts().size(); i++) {
      ids.add(cluster.nodeManager(i).getNMContext().getNodeId());
    }
    return ids;
  }

  /** Under {@code scheduler}: the GPU containers' hosts, then the refusal of a 3-GPU ask. */
  private static String check(String scheduler) throws Exception {
    cluster.startYarn(scheduler, settings());
    try {
      String gpuHost = cluster.nodeManager(0).getNMContext().getNodeId().getHost();
      assertEquals(scheduler + ": the GPU node's declared GPUs", 2L,
          cluster.resourceManager().getRMContext().getRMNodes()
              .get(cluster.nodeManager(0).getNMContext().getNodeId())
              .getTotalCapability().getResourceValue(GPU));
      List<String> hosts = new ArrayList<>();
      assertTrue(scheduler + ": DistributedShell succeeded", runAndWatch(hosts));
      assertEquals(scheduler + ": hosts of the GPU containers",
          Collections.nCopies(2, gpuHost), hosts);

      Client tooMany = new Client(new Configuration(cluster.clientConf()));
      // The AM's own container asks 3 GPUs: the RM validates it at submission.
      String[] args = shell("memory-mb=256,vcores=1", 1);
      for (int i = 0; i < args.length; i++) {
        if (args[i].equals("-master_resources")) {
          args[i + 1] = "memory-mb=512,vcores=1," + GPU + "=3";
        }
      }
      assertTrue(tooMany.init(args));
      String message = null;
      try {
        tooMany.run();
      } catch (Exception e) {
        message = String.valueOf(e.getMessage());
      }
      assertNotNull(scheduler + ": an ask for 3 GPUs, more than any node has, was accepted",
          message);
      assertTrue(scheduler + ": " + message,
          message.contains("greater than maximum allowed allocation") && message.contains(GPU));
      return message;
    } finally {
      cluster.stopYarn();
    }
  }

  @Test
  public void gpuContainersLandOnlyOnTheGpuNodeAndTooManyGpusAreRefused() throws Exception {
    String cs = check(CAPACITY_SCHEDULER);
    String locus = check(EmbeddedCluster.LOCUS_SCHEDULER);
    // The same refusal, from the RM's own validation, under both.
    assertEquals(cs.replaceAll("application_\\d+_\\d+", "app"),
        locus.replaceAll("application_\\d+_\\d+", "app"));
  }
}
