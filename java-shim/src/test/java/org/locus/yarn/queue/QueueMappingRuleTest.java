package org.locus.yarn.queue;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.Records;
import org.junit.Test;

/**
 * {@code queue-mappings} as the RM's placement manager applies them before Locus sees a
 * submission: CapacityScheduler's application-name mappings
 * ({@code yarn.scheduler.queue-placement-rules.app-name}, {@code name:queue}) after the user and
 * group rules of {@code yarn.scheduler.capacity.queue-mappings}, first match wins.
 */
public class QueueMappingRuleTest {
  private static QueueMappingRule rule(String mappings, String appNames, boolean override)
      throws Exception {
    CapacitySchedulerConfiguration cs = new CapacitySchedulerConfiguration(
        new Configuration(false), false);
    String prefix = CapacitySchedulerConfiguration.PREFIX;
    cs.set(prefix + "root.queues", "default,etl,adhoc,ops,wordcount");
    for (String leaf : new String[] {"default", "etl", "adhoc", "ops", "wordcount"}) {
      cs.set(prefix + "root." + leaf + ".capacity", "20");
    }
    if (mappings != null) {
      cs.set(CapacitySchedulerConfiguration.QUEUE_MAPPING, mappings);
    }
    cs.set(CapacitySchedulerConfiguration.QUEUE_MAPPING_NAME, appNames);
    cs.setBoolean(prefix + "queue-mappings-override.enable", override);
    return QueueMappingRule.of(QueueFile.parse(cs), new Configuration(false));
  }

  private static String place(QueueMappingRule rule, String user, String appName,
      String queue) throws Exception {
    ApplicationSubmissionContext asc = Records.newRecord(ApplicationSubmissionContext.class);
    asc.setApplicationName(appName);
    asc.setQueue(queue);
    ApplicationPlacementContext p = rule.getPlacementForApp(asc, user);
    return p == null ? null : p.getQueue();
  }

  @Test
  public void applicationNameRulesPlaceByTheSubmittedName() throws Exception {
    QueueMappingRule r = rule("u:alice:adhoc", "nightly-etl:etl,%application:%application",
        false);
    assertEquals("nightly-etl:etl", "root.etl", place(r, "bob", "nightly-etl", "default"));
    // User rules come first, as in CapacityScheduler's legacy rules.
    assertEquals("u:alice:adhoc", "root.adhoc", place(r, "alice", "nightly-etl", "default"));
    // a:%application:%application: an application named like a leaf goes there ...
    assertEquals("root.wordcount", place(r, "bob", "wordcount", "default"));
    // ... and one named like no leaf goes to the default queue, CapacityScheduler's fallback.
    assertEquals(QueueMappingRule.DEFAULT_PATH, place(r, "bob", "no-such-queue", "default"));
    // Without override only submissions to default are mapped.
    assertNull(place(r, "bob", "nightly-etl", "ops"));
  }

  @Test
  public void applicationNameRulesOverrideANamedQueueWhenAsked() throws Exception {
    QueueMappingRule r = rule(null, "nightly-etl:etl", true);
    assertEquals("root.etl", place(r, "bob", "nightly-etl", "ops"));
    assertNull(place(r, "bob", "other", "ops"));
  }
}
