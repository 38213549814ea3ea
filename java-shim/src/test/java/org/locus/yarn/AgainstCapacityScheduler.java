package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.locus.yarn.LocusRmFixture.GB;

import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.GetNewApplicationRequest;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueUserAclsInfoRequest;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;

/**
 * One scenario, run under CapacityScheduler and under Locus inside a real (in-process)
 * ResourceManager, whose outcomes must be the same: CapacityScheduler is the reference for
 * every rule Locus borrows from it.
 *
 * <p>A scenario is a {@link Setup} (the yarn-site and capacity-scheduler.xml keys, set over
 * Hadoop's defaults, and the nodes) and a {@link Script} of client and admin calls made
 * through the RM's own services (submissions as a user, moves and priority updates as a
 * caller, {@code -showacls}, {@code -refreshQueues}); each call writes one line of a
 * transcript: what the client was told (accepted and in which queue, refused at submission
 * with the RM's message, failed with its diagnostics, moved, ...). The two transcripts are
 * compared whole. Application ids are written as {@code app1}, {@code app2}, ... in
 * submission order; a refusal's message is compared without the wrapper each scheduler puts
 * around the same reason ({@code AccessControlException: } in CapacityScheduler, the
 * {@code Locus refused application ...:} and {@code Locus refused to move ...:} prefixes in
 * Locus).
 *
 * <p>{@link YarnAuthorizationProvider} is one per JVM: {@link LocusRmFixture} resets it
 * before every RM, so each run gets the authorizer its own settings name.
 */
final class AgainstCapacityScheduler {
  static final String CS = "yarn.scheduler.capacity.";

  private AgainstCapacityScheduler() {}

  /** The calls a scenario makes; the same on both schedulers. */
  interface Script {
    void run(Run run) throws Exception;
  }

  /** Settings over Hadoop's defaults (and the test classpath's capacity-scheduler.xml). */
  static final class Setup {
    final Map<String, String> settings = new LinkedHashMap<>();
    int nodes = 1;
    int nodeMb = 8 * GB;

    Setup set(String key, String value) {
      settings.put(key, value);
      return this;
    }

    /** A {@code yarn.scheduler.capacity.} key. */
    Setup cs(String key, String value) {
      return set(CS + key, value);
    }

    Setup aclsOn() {
      return set(YarnConfiguration.YARN_ACL_ENABLE, "true");
    }

    /** Queues under root with their capacities: {@code "a", "50", "b", "50"}. */
    Setup queues(String... nameCapacity) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < nameCapacity.length; i += 2) {
        names.add(nameCapacity[i]);
        cs("root." + nameCapacity[i] + ".capacity", nameCapacity[i + 1]);
      }
      return cs("root.queues", String.join(",", names));
    }

    /**
     * Root neither admits nor administers anyone (a single space, CS's "nobody"), so the
     * queues' own lists decide; Hadoop's default for root is everyone.
     */
    Setup rootClosed() {
      return cs("root.acl_submit_applications", " ").cs("root.acl_administer_queue", " ");
    }
  }

  /** Which scheduler a run uses. */
  enum Under {
    CAPACITY_SCHEDULER, LOCUS_CAPACITY, LOCUS_DEFAULT_POLICY
  }

  /**
   * Runs {@code script} under CapacityScheduler and under each of {@code locus}; asserts every
   * Locus transcript equals CapacityScheduler's. Returns CapacityScheduler's, for a scenario
   * that also wants to pin what the reference does.
   */
  static List<String> compare(LocusRmFixture cluster, Setup setup, Script script,
      Under... locus) throws Exception {
    List<String> reference = run(cluster, Under.CAPACITY_SCHEDULER, setup, script);
    for (Under u : locus) {
      List<String> got = run(cluster, u, setup, script);
      assertEquals(u + " against CapacityScheduler", String.join("\n", reference),
          String.join("\n", got));
    }
    return reference;
  }

  /** One run: a fresh RM (and authorizer) with {@code setup}, then the script. */
  static List<String> run(LocusRmFixture cluster, Under under, Setup setup, Script script)
      throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    if (under == Under.CAPACITY_SCHEDULER) {
      conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
          ResourceScheduler.class);
    } else if (under == Under.LOCUS_CAPACITY) {
      conf.set("locus.policy", "capacity");
    }
    setup.settings.forEach(conf::set);
    MockRM rm = cluster.start(conf);
    try {
      Run run = new Run(rm, conf, under);
      for (int i = 0; i < setup.nodes; i++) {
        run.nms.add(rm.registerNode("h" + (i + 1) + ":1234", setup.nodeMb, 8));
      }
      script.run(run);
      return run.transcript;
    } finally {
      rm.stop();
    }
  }

  /** The calls a script makes, each written to the transcript. */
  static final class Run {
    private final MockRM rm;
    private YarnConfiguration conf;
    final Under under;
    final List<MockNM> nms = new ArrayList<>();
    final List<String> transcript = new ArrayList<>();
    /** Label ({@code app1}, ...) by application id, in submission order. */
    private final Map<ApplicationId, String> labels = new LinkedHashMap<>();
    private final Map<String, ApplicationId> ids = new LinkedHashMap<>();
    /** The AMs {@link #askFromAm} launched, by application label. */
    private final Map<String, MockAM> ams = new LinkedHashMap<>();

    Run(MockRM rm, YarnConfiguration conf, Under under) {
      this.rm = rm;
      this.conf = conf;
      this.under = under;
    }

    /** Submits as {@code user} to {@code queue}; returns the application's label. */
    String submit(String user, String queue) throws Exception {
      return submit(user, queue, null);
    }

    String submit(String user, String queue, Integer priority) throws Exception {
      return submit(user, queue, priority, 0, null);
    }

    /** As {@link #submit(String, String)}, asking for a lifetime of {@code seconds}. */
    String submitWithLifetime(String user, String queue, long seconds) throws Exception {
      return submit(user, queue, null, seconds, null);
    }

    /** As {@link #submit(String, String)}, the AM's container of {@code mb} and vcores. */
    String submitAsking(String user, String queue, int mb, int vcores) throws Exception {
      return submit(user, queue, null, 0, Resource.newInstance(mb, vcores));
    }

    private String submit(String user, String queue, Integer priority, long lifetime,
        Resource am) throws Exception {
      ApplicationId id = rm.getClientRMService()
          .getNewApplication(GetNewApplicationRequest.newInstance()).getApplicationId();
      String label = "app" + (labels.size() + 1);
      labels.put(id, label);
      ids.put(label, id);
      MockRMAppSubmissionData.Builder b = (am == null
          ? MockRMAppSubmissionData.Builder.createWithMemory(GB, rm)
          : MockRMAppSubmissionData.Builder.createWithResource(am, rm))
          .withApplicationId(id).withUser(user).withQueue(queue)
          .withWaitForAppAcceptedState(false);
      if (priority != null) {
        b = b.withAppPriority(Priority.newInstance(priority));
      }
      if (lifetime > 0) {
        b = b.withApplicationTimeouts(Collections.singletonMap(
            org.apache.hadoop.yarn.api.records.ApplicationTimeoutType.LIFETIME, lifetime));
      }
      String head = "submit " + label + " by " + user + " to " + queue
          + (priority == null ? "" : " at priority " + priority)
          + (lifetime > 0 ? " with lifetime " + lifetime + " s" : "")
          + (am == null ? "" : " with an AM of " + am) + ": ";
      try {
        MockRMAppSubmitter.submit(rm, b.build());
      } catch (Exception e) {
        transcript.add(head + "REJECTED " + reason(e));
        return label;
      }
      RMApp app = settled(id);
      if (app.getState() == RMAppState.ACCEPTED) {
        transcript.add(head + "ACCEPTED in " + path(app.getQueue()) + " at priority "
            + app.getApplicationPriority().getPriority());
      } else {
        transcript.add(head + app.getState() + " " + reason(app.getDiagnostics().toString()));
      }
      return label;
    }

    /**
     * The application's AM (launched and registered on the first node at its first ask) asks
     * for one container of {@code mb} and {@code vcores}; writes the RM's refusal, or the
     * container the AM got within a few heartbeats.
     */
    void askFromAm(String app, int mb, int vcores) throws Exception {
      MockAM am = ams.get(app);
      if (am == null) {
        am = LocusRmFixture.launchAndRegisterAM(rm.getRMContext().getRMApps().get(ids.get(app)),
            rm, nms.get(0));
        ams.put(app, am);
      }
      Resource asked = Resource.newInstance(mb, vcores);
      String head = "ask of " + app + " for " + asked + ": ";
      try {
        am.allocate(Collections.singletonList(ResourceRequest.newInstance(
            Priority.newInstance(1), ResourceRequest.ANY, asked, 1)),
            Collections.<ContainerId>emptyList());
      } catch (Exception e) {
        transcript.add(head + "REFUSED " + reason(e));
        return;
      }
      List<String> got = new ArrayList<>();
      for (Container c : LocusRmFixture.heartbeatUntil(rm, nms.get(0), am, 1)) {
        got.add(c.getResource().toString());
      }
      transcript.add(head + "got " + got);
    }

    /** The size of the AM's container the RM asks the scheduler for. */
    void showAmContainer(String app) {
      RMApp rmApp = rm.getRMContext().getRMApps().get(ids.get(app));
      transcript.add("AM of " + app + ": "
          + rmApp.getAMResourceRequests().get(0).getCapability());
    }

    /** {@code yarn application -movetoqueue} as {@code caller}. */
    void move(String caller, String app, String target) throws Exception {
      ApplicationId id = ids.get(app);
      String head = "move " + app + " by " + caller + " to " + target + ": ";
      try {
        as(caller, () -> rm.getClientRMService().moveApplicationAcrossQueues(
            MoveApplicationAcrossQueuesRequest.newInstance(id, target)));
      } catch (Exception e) {
        transcript.add(head + "REFUSED " + reason(e) + "; stays in " + queueOf(id));
        return;
      }
      transcript.add(head + "MOVED to " + queueOf(id));
    }

    /** {@code yarn application -updatePriority} as {@code caller}. */
    void updatePriority(String caller, String app, int priority) throws Exception {
      ApplicationId id = ids.get(app);
      String head = "priority of " + app + " by " + caller + " to " + priority + ": ";
      try {
        as(caller, () -> rm.getClientRMService().updateApplicationPriority(
            UpdateApplicationPriorityRequest.newInstance(id, Priority.newInstance(priority))));
      } catch (Exception e) {
        transcript.add(head + "REFUSED " + reason(e));
        return;
      }
      transcript.add(head + "now " + rm.getRMContext().getRMApps().get(id)
          .getApplicationPriority().getPriority());
    }

    /** {@code mapred queue -showacls} as {@code user}. */
    void showAcls(String user) throws Exception {
      List<QueueUserACLInfo> infos = as(user, () -> rm.getClientRMService()
          .getQueueUserAcls(GetQueueUserAclsInfoRequest.newInstance()).getUserAclsInfoList());
      List<String> lines = new ArrayList<>();
      for (QueueUserACLInfo info : infos) {
        List<String> acls = new ArrayList<>();
        info.getUserAcls().forEach(a -> acls.add(a.name()));
        Collections.sort(acls);
        lines.add(info.getQueueName() + "=" + acls);
      }
      transcript.add("showacls by " + user + ": " + lines);
    }

    /**
     * {@code yarn queue -status}: the queue's capacity and maximum capacity as the scheduler
     * reports them (percent of its parent), or that the queue is unknown.
     */
    void showQueue(String queue) throws Exception {
      transcript.add(queueStatus(queue, true));
    }

    /** As {@link #showQueue}, the maximum capacity only. */
    void showMaximum(String queue) throws Exception {
      transcript.add(queueStatus(queue, false));
    }

    /**
     * Polls the queue's status (heartbeating every node) until its capacity is {@code percent}
     * or {@code seconds} pass, then writes it: for what a scheduling monitor changes in rounds.
     */
    void awaitCapacity(String queue, float percent, int seconds) throws Exception {
      String want = String.format("queue %s: capacity %.1f", queue, percent);
      String seen = queueStatus(queue, true);
      for (int i = 0; i < seconds * 10 && !seen.startsWith(want + " "); i++) {
        Thread.sleep(100);
        for (MockNM nm : nms) {
          nm.nodeHeartbeat(true);
        }
        seen = queueStatus(queue, true);
      }
      transcript.add(seen);
    }

    /** The queue's {@code max-parallel-apps} as its QueueInfo reports it. */
    void showParallelLimit(String queue) throws Exception {
      org.apache.hadoop.yarn.api.records.QueueInfo info =
          rm.getResourceScheduler().getQueueInfo(queue, false, false);
      transcript.add("queue " + queue + ": max-parallel-apps " + info.getMaxParallelApps());
    }

    private String queueStatus(String queue, boolean withCapacity) {
      org.apache.hadoop.yarn.api.records.QueueInfo info;
      try {
        info = rm.getResourceScheduler().getQueueInfo(queue, false, false);
      } catch (java.io.IOException e) {
        info = null;
      }
      if (info == null) {
        return "queue " + queue + ": unknown";
      }
      return String.format("queue %s: ", queue)
          + (withCapacity ? String.format("capacity %.1f ", info.getCapacity() * 100) : "")
          + String.format("maximum %.1f", info.getMaximumCapacity() * 100);
    }

    /**
     * The lifetime the RM registered for the application with its lifetime monitor, in
     * seconds from its submission, or none.
     */
    void showLifetime(String app) throws Exception {
      RMApp rmApp = rm.getRMContext().getRMApps().get(ids.get(app));
      Long expiry = rmApp.getApplicationTimeouts().get(
          org.apache.hadoop.yarn.api.records.ApplicationTimeoutType.LIFETIME);
      transcript.add("lifetime of " + app + ": "
          + (expiry == null ? "none" : (expiry - rmApp.getSubmitTime()) / 1000 + " s"));
    }

    /**
     * Waits up to {@code seconds} (heartbeating every node) for the application to end, then
     * writes its state and, ended, its diagnostics' first line.
     */
    void awaitEnd(String app, int seconds) throws Exception {
      RMApp rmApp = rm.getRMContext().getRMApps().get(ids.get(app));
      EnumSet<RMAppState> ended =
          EnumSet.of(RMAppState.KILLED, RMAppState.FAILED, RMAppState.FINISHED);
      for (int i = 0; i < seconds * 10 && !ended.contains(rmApp.getState()); i++) {
        Thread.sleep(100);
        for (MockNM nm : nms) {
          nm.nodeHeartbeat(true);
        }
      }
      String diagnostics = rmApp.getDiagnostics().toString().split("\n")[0];
      transcript.add(app + " " + rmApp.getState()
          + (ended.contains(rmApp.getState()) ? ": " + diagnostics : ""));
    }

    /** {@code yarn application -kill}, waiting until the RM has removed the application. */
    void kill(String app) throws Exception {
      ApplicationId id = ids.get(app);
      rm.killApp(id);
      rm.waitForState(id, RMAppState.KILLED);
      for (int i = 0; i < 100
          && rm.getResourceScheduler().getSchedulerAppInfo(
              rm.getRMContext().getRMApps().get(id).getCurrentAppAttempt().getAppAttemptId())
              != null; i++) {
        Thread.sleep(100);
      }
      transcript.add("kill " + app + ": KILLED");
    }

    /** {@code -refreshQueues} with {@code keyValues} set over the settings in force. */
    void refresh(String... keyValues) throws Exception {
      YarnConfiguration next = new YarnConfiguration(conf);
      for (int i = 0; i < keyValues.length; i += 2) {
        next.set(keyValues[i], keyValues[i + 1]);
      }
      String head = "refresh " + String.join(" ", keyValues) + ": ";
      try {
        rm.getResourceScheduler().reinitialize(next, rm.getRMContext());
      } catch (Exception e) {
        transcript.add(head + "REFUSED");
        return;
      }
      conf = next;
      transcript.add(head + "OK");
    }

    /**
     * Heartbeats every node a few times, then writes which applications' AMs hold a
     * container: the applications that run.
     */
    void running() throws Exception {
      for (int round = 0; round < 3; round++) {
        for (MockNM nm : nms) {
          nm.nodeHeartbeat(true);
          LocusRmFixture.settle(rm);
        }
      }
      List<String> out = new ArrayList<>();
      for (Map.Entry<ApplicationId, String> e : labels.entrySet()) {
        RMApp app = rm.getRMContext().getRMApps().get(e.getKey());
        if (app != null && app.getCurrentAppAttempt() != null
            && app.getCurrentAppAttempt().getMasterContainer() != null) {
          out.add(e.getValue());
        }
      }
      transcript.add("running: " + out);
    }

    /**
     * As {@link #running}, without the applications that ended (a killed one's AM container
     * stays on its attempt): the applications that run now.
     */
    void runningNow() throws Exception {
      for (int round = 0; round < 3; round++) {
        for (MockNM nm : nms) {
          nm.nodeHeartbeat(true);
          LocusRmFixture.settle(rm);
        }
      }
      List<String> out = new ArrayList<>();
      for (Map.Entry<ApplicationId, String> e : labels.entrySet()) {
        RMApp app = rm.getRMContext().getRMApps().get(e.getKey());
        if (app != null && !EnumSet.of(RMAppState.KILLED, RMAppState.FINISHED,
                RMAppState.FAILED).contains(app.getState())
            && app.getCurrentAppAttempt() != null
            && app.getCurrentAppAttempt().getMasterContainer() != null) {
          out.add(e.getValue());
        }
      }
      transcript.add("running now: " + out);
    }

    /** A line of the scenario's own (a figure read the same way under both). */
    void note(String line) {
      transcript.add(line);
    }

    private String queueOf(ApplicationId id) {
      return path(rm.getRMContext().getRMApps().get(id).getQueue());
    }

    /**
     * The queue by path. Outside {@code capacity} Locus files every application under
     * {@code default}, FifoScheduler's name for what CapacityScheduler calls root.default.
     */
    private String path(String queue) {
      return under == Under.LOCUS_DEFAULT_POLICY && "default".equals(queue)
          ? "root.default" : queue;
    }

    private <T> T as(String user, PrivilegedExceptionAction<T> action) throws Exception {
      return UserGroupInformation.createRemoteUser(user).doAs(action);
    }

    /** The application once the scheduler has accepted or refused it. */
    private RMApp settled(ApplicationId id) throws Exception {
      EnumSet<RMAppState> waiting =
          EnumSet.of(RMAppState.NEW, RMAppState.NEW_SAVING, RMAppState.SUBMITTED);
      // Events, not time: each round hands the RM's dispatchers everything queued.
      for (int i = 0; i < 200; i++) {
        LocusRmFixture.settle(rm);
        RMApp app = rm.getRMContext().getRMApps().get(id);
        if (app != null && !waiting.contains(app.getState())) {
          return app;
        }
        Thread.sleep(10);
      }
      throw new AssertionError(labels.get(id) + " was neither accepted nor refused");
    }

    private String reason(Throwable e) {
      Throwable t = e;
      while (t.getCause() != null && t.getMessage() == null) {
        t = t.getCause();
      }
      return reason(t.getMessage());
    }

    /** The reason without either scheduler's wrapper, application ids as labels. */
    private String reason(String message) {
      String m = message;
      for (Map.Entry<ApplicationId, String> e : labels.entrySet()) {
        m = m.replace(e.getKey().toString(), e.getValue());
      }
      m = m.replaceFirst("^Locus refused application \\S+ of user \\S+ in queue \\S+: ", "");
      m = m.replaceFirst("^Locus refused to move \\S+ to queue \\S+: ", "");
      m = m.replaceFirst("^event \\d+ \\(\\w+\\) rejected: ", "");
      m = m.replace("org.apache.hadoop.security.AccessControlException: ", "");
      return m.trim();
    }
  }
}
