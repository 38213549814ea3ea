package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.security.PrivilegedExceptionAction;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Auto-created queues on the embedded cluster, no {@code locus.policy} set: {@code root.users}
 * creates its children, either flexibly ({@code auto-queue-creation-v2.enabled}, weights;
 * Cloudera's dynamic queues), with {@code u:%user:root.users.team.%user} mapping each user to
 * a leaf under a parent created on the way from {@code parent-template.*}, or as a legacy
 * managed parent ({@code auto-create-child-queue.enabled} with a {@code leaf-queue-template}),
 * with {@code u:%user:root.users.%user}. Hadoop's pi, submitted by a user the file never
 * names, runs in the queue created for that user under CapacityScheduler and under Locus; the
 * RM's report names it and the scheduler REST describes it the same way. One HDFS serves both
 * files.
 */
public class AutoCreatedQueueOnClusterTest {
  private static final String CS = "yarn.scheduler.capacity.";
  private static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";
  private static final String USER = "alice";

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void startHdfs() throws Exception {
    cluster = EmbeddedCluster.startHdfs("auto-created-queue", 2, 1);
    // The new user writes the job's files under /tmp, as on a cluster where /tmp is shared.
    cluster.fileSystem().mkdirs(new Path("/tmp"));
    cluster.fileSystem().setPermission(new Path("/tmp"), new FsPermission((short) 01777));
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Map<String, String> flexible() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "root.queues", "default,users");
    s.put(CS + "root.default.capacity", "1w");
    s.put(CS + "root.users.capacity", "3w");
    s.put(CS + "root.users.auto-queue-creation-v2.enabled", "true");
    s.put(CS + "root.users.auto-queue-creation-v2.parent-template.maximum-capacity", "80");
    s.put(CS + "queue-mappings", "u:%user:root.users.team.%user");
    return s;
  }

  private static Map<String, String> legacy() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CS + "root.queues", "default,users");
    s.put(CS + "root.default.capacity", "25");
    s.put(CS + "root.users.capacity", "75");
    s.put(CS + "root.users.auto-create-child-queue.enabled", "true");
    s.put(CS + "root.users.leaf-queue-template.capacity", "40");
    s.put(CS + "root.users.leaf-queue-template.maximum-capacity", "100");
    s.put(CS + "root.users.leaf-queue-template.maximum-am-resource-percent", "0.5");
    s.put(CS + "queue-mappings", "u:%user:root.users.%user");
    return s;
  }

  /** Runs pi as the new user under {@code scheduler}; returns the queues as REST shows them. */
  private static Map<String, JsonNode> piAsNewUser(String scheduler, Map<String, String> file,
      String leaf) throws Exception {
    cluster.startYarn(scheduler, file);
    try {
      String name = scheduler.substring(scheduler.lastIndexOf('.') + 1) + "-" + file.size();
      BigDecimal pi = UserGroupInformation.createRemoteUser(USER).doAs(
          (PrivilegedExceptionAction<BigDecimal>) () -> {
            Configuration conf = cluster.clientConf();
            return QuasiMonteCarlo.estimatePi(1, 10, new Path("/tmp/pi-" + name), conf);
          });
      assertEquals(scheduler + ": pi", 3.0, pi.doubleValue(), 1.0);
      ClusterRest.assertOneFinishedAppIn(cluster, scheduler, leaf);
      return ClusterRest.schedulerQueues(cluster);
    } finally {
      cluster.stopYarn();
    }
  }

  /** Runs the file under both schedulers and compares how REST describes every queue. */
  private static void sameQueues(Map<String, String> file, String leaf, String creationMethod)
      throws Exception {
    Map<String, JsonNode> cs = piAsNewUser(CAPACITY_SCHEDULER, file, leaf);
    Map<String, JsonNode> locus = piAsNewUser(EmbeddedCluster.LOCUS_SCHEDULER, file, leaf);
    assertEquals(cs.keySet(), locus.keySet());
    assertTrue(cs.toString(), cs.containsKey(leaf));
    assertEquals(creationMethod, cs.get(leaf).path("creationMethod").asText());
    for (String path : cs.keySet()) {
      JsonNode c = cs.get(path);
      JsonNode l = locus.get(path);
      for (String f : new String[] {"queueType", "creationMethod", "autoCreationEligibility",
          "mode"}) {
        assertEquals(path + " " + f, c.path(f).asText(), l.path(f).asText());
      }
      for (String f : new String[] {"capacity", "absoluteCapacity", "maxCapacity",
          "absoluteMaxCapacity", "weight", "normalizedWeight"}) {
        assertEquals(path + " " + f, c.path(f).asDouble(), l.path(f).asDouble(), 1e-3);
      }
    }
  }

  @Test
  public void piByANewUserRunsInTheQueueCreatedForIt() throws Exception {
    sameQueues(flexible(), "root.users.team." + USER, "dynamicFlexible");
  }

  @Test
  public void piByANewUserRunsInTheLeafItsManagedParentCreated() throws Exception {
    sameQueues(legacy(), "root.users." + USER, "dynamicLegacy");
  }
}
