package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;

/**
 * Application counts, side by side with CapacityScheduler: the same settings and the same
 * submissions and moves run under CapacityScheduler, then under Locus, and every outcome
 * (accepted, or refused with CapacityScheduler's reason) is the same. The system-wide and the
 * queue's maximum-applications and the per-user maximum hold under the default policy too,
 * and a move is refused by the target's limits as a submission would be.
 */
public class ApplicationLimitsTest {
  private static final String CS = CapacitySchedulerConfiguration.PREFIX;
  private static final int ROUNDS = 40;

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** One step of a scenario against a running RM: its outcome, application ids as "APP". */
  private interface Step {
    String run(MockRM rm, List<RMApp> apps) throws Exception;
  }

  private static Step submit(String queue, String user) {
    return (rm, apps) -> {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(1024, rm).withQueue(queue).withUser(user)
          .withWaitForAppAcceptedState(false).build());
      apps.add(app);
      RMAppState state = settle(rm, app);
      String outcome = "submit " + user + " to " + queue + ": " + state;
      if (state != RMAppState.ACCEPTED) {
        outcome += " " + reason(app.getDiagnostics().toString(), app.getApplicationId());
      }
      return outcome;
    };
  }

  /** Moves the {@code index}-th submitted application. */
  private static Step move(int index, String target) {
    return (rm, apps) -> {
      ApplicationId id = apps.get(index).getApplicationId();
      String outcome = "move app " + index + " to " + target + ": ";
      try {
        rm.getRMAppManager().moveApplicationAcrossQueue(id, target);
      } catch (YarnException e) {
        return outcome + "refused " + reason(e.getMessage(), id);
      }
      return outcome + "moved, now in " + apps.get(index).getQueue();
    };
  }

  private static final String[] REASONS = {
      "Maximum system application limit reached,cannot accept submission of application: ",
      " applications, cannot accept submission of application: ",
      " cannot accept submission of application: "};

  /**
   * CapacityScheduler's reason inside a refusal (each scheduler wraps it in its own words),
   * from "Queue" or "Maximum" to the application id.
   */
  private static String reason(String message, ApplicationId id) {
    String m = message.replace(id.toString(), "APP");
    for (String r : REASONS) {
      int end = m.indexOf(r + "APP");
      if (end >= 0) {
        int start = Math.max(m.lastIndexOf("Queue ", end), m.lastIndexOf("Maximum ", end));
        return m.substring(start, end + r.length() + "APP".length());
      }
    }
    return "(no reason CapacityScheduler gives) " + m;
  }

  private static RMAppState settle(MockRM rm, RMApp app) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      LocusRmFixture.settle(rm);
      RMAppState s = app.getState();
      if (s != RMAppState.NEW && s != RMAppState.NEW_SAVING && s != RMAppState.SUBMITTED) {
        return s;
      }
      Thread.sleep(50);
    }
    return app.getState();
  }

  private List<String> run(Class<?> scheduler, YarnConfiguration settings, Step... steps)
      throws Exception {
    YarnConfiguration conf = new YarnConfiguration(settings);
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    MockRM rm = cluster.start(conf);
    List<RMApp> apps = new ArrayList<>();
    List<String> outcomes = new ArrayList<>();
    try {
      for (Step s : steps) {
        outcomes.add(s.run(rm, apps));
      }
    } finally {
      rm.stop();
    }
    return outcomes;
  }

  /** The outcomes under CapacityScheduler and under Locus, which must be the same. */
  private List<String> sideBySide(YarnConfiguration settings, Step... steps) throws Exception {
    List<String> cs = run(CapacityScheduler.class, settings, steps);
    List<String> locus = run(LocusScheduler.class, settings, steps);
    assertEquals(String.join("\n", cs), String.join("\n", locus));
    return locus;
  }

  @Test
  public void theSystemWideMaximumHoldsUnderTheDefaultPolicy() throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setInt(CS + "maximum-applications", 3);
    List<String> out = sideBySide(conf,
        submit("default", "alice"), submit("default", "alice"), submit("default", "bob"),
        submit("default", "carol"));
    assertEquals("submit carol to default: FAILED Maximum system application limit reached,"
        + "cannot accept submission of application: APP", out.get(3));
  }

  @Test
  public void theQueuesAndEachUsersMaximumHoldUnderTheDefaultPolicy() throws Exception {
    // root.default: 4 applications, 2 per user (minimum-user-limit-percent 50, factor 1).
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setInt(CS + "root.default.maximum-applications", 4);
    conf.setInt(CS + "root.default.minimum-user-limit-percent", 50);
    List<String> out = sideBySide(conf,
        submit("default", "alice"), submit("default", "alice"), submit("default", "alice"),
        submit("default", "bob"), submit("default", "carol"), submit("default", "dave"));
    assertEquals("submit alice to default: FAILED Queue root.default already has 2 "
        + "applications from user alice cannot accept submission of application: APP",
        out.get(2));
    assertEquals("submit dave to default: FAILED Queue root.default already has 4 "
        + "applications, cannot accept submission of application: APP", out.get(5));
  }

  @Test
  public void aMoveIsRefusedByTheTargetsApplicationLimits() throws Exception {
    // a holds 3 applications; b holds 6, 2 per user (user-limit-factor 0.34).
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.set("locus.policy", "capacity");
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.setInt(CS + "root.a.maximum-applications", 3);
    conf.setInt(CS + "root.b.maximum-applications", 6);
    conf.setFloat(CS + "root.b.user-limit-factor", 0.34f);
    List<String> out = sideBySide(conf,
        submit("a", "bob"), submit("a", "carol"), submit("b", "dave"), submit("b", "alice"),
        submit("b", "alice"), submit("a", "alice"),
        move(2, "a"), move(5, "b"), move(0, "b"));
    assertEquals("move app 2 to a: refused Queue root.a already has 3 applications, "
        + "cannot accept submission of application: APP", out.get(6));
    assertEquals("move app 5 to b: refused Queue root.b already has 2 applications from user "
        + "alice cannot accept submission of application: APP", out.get(7));
    assertTrue(out.get(8), out.get(8).startsWith("move app 0 to b: moved"));
  }
}
