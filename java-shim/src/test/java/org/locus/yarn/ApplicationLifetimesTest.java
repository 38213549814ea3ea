package org.locus.yarn;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;
import org.locus.yarn.AgainstCapacityScheduler.Setup;
import org.locus.yarn.AgainstCapacityScheduler.Under;

/**
 * A queue's application lifetimes ({@code maximum-application-lifetime},
 * {@code default-application-lifetime}, inherited from the parent), enforced by the RM's
 * lifetime monitor with the lifetime the scheduler decides, under CapacityScheduler and under
 * Locus in the same run ({@link AgainstCapacityScheduler}).
 */
public class ApplicationLifetimesTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static Setup shortParent() {
    return new Setup().queues("default", "50", "batch", "50")
        .cs("root.batch.queues", "short,long")
        .cs("root.batch.short.capacity", "50").cs("root.batch.long.capacity", "50")
        .cs("root.batch.maximum-application-lifetime", "6")
        .cs("root.batch.short.default-application-lifetime", "4")
        .cs("root.batch.long.maximum-application-lifetime", "0")
        .set(YarnConfiguration.RM_APPLICATION_MONITOR_INTERVAL_MS, "100");
  }

  /**
   * In {@code short} (maximum 6 s from its parent, default 4 s) an application asking for none
   * gets 4 s and one asking for an hour gets 6 s, and the monitor kills both; in {@code long}
   * (maximum 0: none, overriding the parent's) and in {@code default} the lifetime asked for,
   * or none, stands.
   */
  @Test
  public void aQueuesLifetimesBoundItsApplications() throws Exception {
    List<String> cs = AgainstCapacityScheduler.compare(cluster, shortParent(), run -> {
      String none = run.submit("alice", "short");
      String hour = run.submitWithLifetime("alice", "short", 3600);
      String unbounded = run.submit("alice", "long");
      String asked = run.submitWithLifetime("alice", "long", 3600);
      String plain = run.submit("alice", "default");
      for (String app : new String[] {none, hour, unbounded, asked, plain}) {
        run.showLifetime(app);
      }
      run.awaitEnd(none, 30);
      run.awaitEnd(hour, 30);
      run.awaitEnd(plain, 0);
    }, Under.LOCUS_CAPACITY);
    String all = String.join("\n", cs);
    assertTrue(all, cs.contains("lifetime of app1: 4 s"));
    assertTrue(all, cs.contains("lifetime of app2: 6 s"));
    assertTrue(all, cs.contains("lifetime of app3: none"));
    assertTrue(all, cs.contains("lifetime of app4: 3600 s"));
    assertTrue(all, cs.get(cs.size() - 3).startsWith("app1 KILLED"));
    assertTrue(all, cs.get(cs.size() - 2).startsWith("app2 KILLED"));
  }

  /** A default above the queue's maximum stops the RM at start under both, CS's message. */
  @Test
  public void aDefaultAboveTheMaximumIsRefusedAtStart() throws Exception {
    for (boolean capacityScheduler : new boolean[] {true, false}) {
      YarnConfiguration conf = LocusRmFixture.locusConf();
      if (capacityScheduler) {
        conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
            ResourceScheduler.class);
      }
      String cs = AgainstCapacityScheduler.CS;
      conf.set(cs + "root.queues", "default,batch");
      conf.set(cs + "root.default.capacity", "50");
      conf.set(cs + "root.batch.capacity", "50");
      conf.set(cs + "root.batch.maximum-application-lifetime", "2");
      conf.set(cs + "root.batch.default-application-lifetime", "5");
      try {
        cluster.start(conf).stop();
        fail((capacityScheduler ? "CapacityScheduler" : "Locus") + " started");
      } catch (Exception e) {
        String messages = LocusRmFixture.messages(e);
        assertTrue(messages, messages
            .contains("Default lifetime 5 can't exceed maximum lifetime 2"));
      }
    }
  }
}
