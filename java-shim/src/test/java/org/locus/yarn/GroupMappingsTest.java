package org.locus.yarn;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.security.GroupMappingServiceProvider;
import org.apache.hadoop.security.Groups;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;
import org.locus.yarn.AgainstCapacityScheduler.Under;

/**
 * Queue mappings that name the submitter's groups ({@code g:}, {@code %primary_group},
 * {@code %secondary_group}), with the groups from a fixed mapping service, under
 * CapacityScheduler and under Locus in the same run ({@link AgainstCapacityScheduler}).
 */
public class GroupMappingsTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** Each user's groups, the primary first. */
  public static final class FixedGroups implements GroupMappingServiceProvider {
    private static final Map<String, List<String>> GROUPS = new HashMap<>();

    static {
      GROUPS.put("alice", Arrays.asList("eng", "ml"));
      GROUPS.put("bob", Arrays.asList("ops", "guests", "research"));
      GROUPS.put("carol", Collections.singletonList("guests"));
      GROUPS.put("erin", Arrays.asList("guests", "ops"));
    }

    @Override
    public List<String> getGroups(String user) {
      return GROUPS.getOrDefault(user, Collections.emptyList());
    }

    @Override
    public void cacheGroupsRefresh() {}

    @Override
    public void cacheGroupsAdd(List<String> groups) {}
  }

  private static Configuration withFixedGroups(Configuration conf) {
    conf.set(CommonConfigurationKeys.HADOOP_SECURITY_GROUP_MAPPING, FixedGroups.class.getName());
    return conf;
  }

  @After
  public void restoreGroups() {
    Groups.getUserToGroupsMappingServiceWithLoadedConfiguration(new Configuration());
  }

  /**
   * {@code %secondary_group} places bob in the first of his secondary groups that names a
   * queue ({@code research}, past {@code guests}); carol has no secondary group, so her rule
   * places her in the default queue (CapacityScheduler's fallback for a legacy rule, no later
   * rule tried); erin's group rule places her; {@code %primary_group.%user} places alice under
   * her primary group's parent, and dave, with no groups, in the default queue.
   */
  @Test
  public void groupTargetsPlaceAsUnderCapacityScheduler() throws Exception {
    Groups.getUserToGroupsMappingServiceWithLoadedConfiguration(
        withFixedGroups(new Configuration()));
    Setup setup = new Setup().queues("default", "40", "ml", "20", "research", "20", "eng", "20")
        .cs("root.eng.queues", "alice,bob")
        .cs("root.eng.alice.capacity", "50").cs("root.eng.bob.capacity", "50")
        .cs("queue-mappings", "u:bob:%secondary_group,u:carol:%secondary_group,g:guests:ml,"
            + "u:%user:%primary_group.%user")
        .set(CommonConfigurationKeys.HADOOP_SECURITY_GROUP_MAPPING, FixedGroups.class.getName());
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      for (String user : new String[] {"alice", "bob", "carol", "erin", "dave"}) {
        run.submit(user, "default");
      }
    }, Under.LOCUS_CAPACITY);
    assertEquals(String.join("\n", cs), Arrays.asList(
        "submit app1 by alice to default: ACCEPTED in root.eng.alice at priority 0",
        "submit app2 by bob to default: ACCEPTED in root.research at priority 0",
        "submit app3 by carol to default: ACCEPTED in root.default at priority 0",
        "submit app4 by erin to default: ACCEPTED in root.ml at priority 0",
        "submit app5 by dave to default: ACCEPTED in root.default at priority 0"), cs);
  }

  /**
   * A rule that matches but whose queue does not exist places the application in the default
   * queue, even where a later rule would match, as CapacityScheduler does.
   */
  @Test
  public void aMatchingRuleWithoutItsQueuePlacesInDefault() throws Exception {
    Setup setup = new Setup().queues("default", "50", "etl", "50")
        .cs("queue-mappings", "u:alice:%user,u:alice:etl,u:bob:etl");
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      run.submit("alice", "default");
      run.submit("bob", "default");
    }, Under.LOCUS_CAPACITY);
    assertEquals(String.join("\n", cs), Arrays.asList(
        "submit app1 by alice to default: ACCEPTED in root.default at priority 0",
        "submit app2 by bob to default: ACCEPTED in root.etl at priority 0"), cs);
  }

  /** A mapping to a fixed queue that does not exist stops the RM at start under both. */
  @Test
  public void aMappingToAQueueThatDoesNotExistIsRefusedAtStart() throws Exception {
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      org.apache.hadoop.yarn.conf.YarnConfiguration conf = LocusRmFixture.locusConf();
      if (capacityScheduler) {
        conf.setClass(org.apache.hadoop.yarn.conf.YarnConfiguration.RM_SCHEDULER,
            org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler
                .class,
            org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler.class);
      }
      conf.set(AgainstCapacityScheduler.CS + "root.queues", "default,etl");
      conf.set(AgainstCapacityScheduler.CS + "root.default.capacity", "50");
      conf.set(AgainstCapacityScheduler.CS + "root.etl.capacity", "50");
      conf.set(AgainstCapacityScheduler.CS + "queue-mappings", "u:alice:etl,u:bob:nosuch");
      try {
        cluster.start(conf).stop();
        org.junit.Assert.fail((capacityScheduler ? "CapacityScheduler" : "Locus") + " started");
      } catch (Exception e) {
        String messages = LocusRmFixture.messages(e);
        org.junit.Assert.assertTrue(messages,
            messages.contains("nosuch"));
      }
    }
  }

  /**
   * JSON mapping rules ({@code mapping-rule-format=json}): a custom placement; a rule whose
   * queue does not exist ({@code root.guests} for carol's primary group) skipping to the next;
   * a group rule that rejects; a user rule creating the user's queue under a flexible parent.
   */
  @Test
  public void jsonRulesPlaceAsUnderCapacityScheduler() throws Exception {
    Groups.getUserToGroupsMappingServiceWithLoadedConfiguration(
        withFixedGroups(new Configuration()));
    String json = "{\"rules\":["
        + "{\"type\":\"user\",\"matches\":\"alice\",\"policy\":\"custom\","
        + "\"customPlacement\":\"root.etl\",\"fallbackResult\":\"skip\"},"
        + "{\"type\":\"user\",\"matches\":\"carol\",\"policy\":\"primaryGroup\","
        + "\"parentQueue\":\"root\",\"fallbackResult\":\"skip\"},"
        + "{\"type\":\"group\",\"matches\":\"ops\",\"policy\":\"reject\","
        + "\"fallbackResult\":\"skip\"},"
        + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"user\","
        + "\"parentQueue\":\"root.users\",\"create\":true,\"fallbackResult\":"
        + "\"placeDefault\"}]}";
    Setup setup = new Setup().queues("default", "30", "etl", "30", "users", "40")
        .cs("root.users.auto-queue-creation-v2.enabled", "true")
        .cs("mapping-rule-format", "json").cs("mapping-rule-json", json)
        .set(CommonConfigurationKeys.HADOOP_SECURITY_GROUP_MAPPING, FixedGroups.class.getName());
    List<String> cs = AgainstCapacityScheduler.compare(cluster, setup, run -> {
      for (String user : new String[] {"alice", "bob", "carol", "dave"}) {
        run.submit(user, "default");
      }
    }, Under.LOCUS_CAPACITY);
    assertEquals(String.join("\n", cs), Arrays.asList(
        "submit app1 by alice to default: ACCEPTED in root.etl at priority 0",
        "submit app2 by bob to default: REJECTED Application submission have been rejected by a"
            + " mapping rule. Please see the logs for details",
        "submit app3 by carol to default: ACCEPTED in root.users.carol at priority 0",
        "submit app4 by dave to default: ACCEPTED in root.users.dave at priority 0"), cs);
  }
}
