package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.junit.rules.ExternalResource;

/**
 * The MockRM running LocusScheduler that the shim's tests share: {@code @Rule public final
 * LocusRmFixture cluster = new LocusRmFixture();}, then {@code cluster.start()}. Every RM it
 * started is stopped after the test.
 */
public final class LocusRmFixture extends ExternalResource {
  static final int GB = 1024;
  /** Heartbeat rounds before giving up on an allocation; no wall-clock assertions. */
  static final int ROUNDS = 40;

  /** The RM's node-attribute store, private to this JVM ({@link #privateState}). */
  private static final File STATE_DIR;

  static {
    // Container tokens name the NM by address; these made-up hosts must resolve.
    for (String host : new String[] {"h1", "h2", "h3", "h9"}) {
      NetUtils.addStaticResolution(host, "127.0.0.1");
    }
    try {
      STATE_DIR = Files.createTempDirectory("locus-mockrm-").toFile();
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a directory for the MockRM's state", e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> FileUtil.fullyDelete(STATE_DIR)));
  }

  private final List<MockRM> rms = new ArrayList<>();

  /** The messages of {@code e} and its causes, one per line: what a refused start says. */
  static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  /** LocusScheduler with a 1 GB minimum allocation, everything else default. */
  static YarnConfiguration locusConf() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class,
        ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    // These tests step NMs by hand and were written for decisions at heartbeats; MockRM's own
    // helpers need that too (submitApp waits for the attempt to be SCHEDULED, which async mode
    // passes at once by placing the AM). heartbeat is also auto's choice for the default fsp +
    // delay; SchedulingLoopTest and SchedulingModeTest cover async and auto.
    conf.set(SchedulingMode.KEY, "heartbeat");
    // The same for the eager offers heartbeat mode makes when asks arrive: they would place an
    // AM before MockRM's launchAM sees its attempt SCHEDULED. EagerOffersTest covers them.
    conf.set("locus.scheduling.eager", "false");
    return privateState(conf);
  }

  /**
   * {@code conf} with the RM's node-attribute store in this JVM's own directory: the store's
   * default under /tmp is shared by every RM on the machine, and a test JVM starting one while
   * another does (the suites run side by side) fails at start on the other's files.
   */
  public static YarnConfiguration privateState(YarnConfiguration conf) {
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        new File(STATE_DIR, "node-attribute").toURI().toString());
    return conf;
  }

  MockRM start() {
    return start(locusConf());
  }

  MockRM start(YarnConfiguration conf) {
    // One authorizer per JVM, made by the first RM with that RM's yarn.authorization-provider
    // and admin ACL: each RM a test starts gets its own, as each real RM process does.
    YarnAuthorizationProvider.destroy();
    MockRM rm = new MockRM(conf);
    quietLogs();
    track(rm);
    rm.start();
    return rm;
  }

  /** An RM the test built itself (e.g. a restarted one), stopped with the others. */
  void track(MockRM rm) {
    rms.add(rm);
  }

  /**
   * MockRM turns the root logger to DEBUG; megabytes of RM debug output per test break
   * Gradle's XML test report, and INFO still shows every Locus decision.
   */
  public static void quietLogs() {
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.INFO);
  }

  static LocusScheduler scheduler(MockRM rm) {
    return (LocusScheduler) rm.getResourceScheduler();
  }

  /** The core's counters (as {@code getCoreStatsJson}): what the core itself believes. */
  static JsonNode stats(MockRM rm) throws Exception {
    return CoreMessages.JSON.readTree(scheduler(rm).getCoreStatsJson());
  }

  /**
   * Until the RM's dispatcher has handed every event over and Locus's scheduling thread has
   * booked every heartbeat, sent every noted ask change and offered every node that
   * heartbeated, and a core rebuild under way has ended. Heartbeats are offered on that thread
   * after nodeHeartbeat and drainEvents return, so asks made or containers counted before this
   * race a heartbeat still queued there (a CI run of AskDeltaTest counted 19 maps pending of 20
   * asked, a6dcf35).
   */
  public static void settle(MockRM rm) throws Exception {
    rm.drainEvents();
    if (!(rm.getResourceScheduler() instanceof LocusScheduler)) {
      return;
    }
    LocusScheduler scheduler = scheduler(rm);
    scheduler.awaitSchedulingIdle();
    // A pass that found the core poisoned started a rebuild; offers wait for the new core.
    CompletableFuture<Void> rebuild = scheduler.lastCoreRebuild();
    if (rebuild != null) {
      try {
        rebuild.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException failed) {
        // A rebuild that failed is the test's to see (the core stays out of service).
      }
      scheduler.awaitSchedulingIdle();
    }
    // What the commits sent the RM's dispatcher (the AM container's attempt events).
    rm.drainEvents();
  }

  /**
   * MockRM.launchAndRegisterAM, then {@link #settle}: the launch heartbeats {@code nm} twice,
   * and the second, when the scheduling thread offers it after the AM's first asks, places one
   * of them on {@code nm} before the test looks.
   */
  public static MockAM launchAndRegisterAM(RMApp app, MockRM rm, MockNM nm) throws Exception {
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    settle(rm);
    return am;
  }

  /**
   * Heartbeats {@code nm} until the AM holds {@code n} new containers, at most {@link #ROUNDS}
   * times, each heartbeat offered before the AM polls: what it returns is what the rounds
   * placed, and no heartbeat of them is still queued to place more after it returned.
   */
  public static List<Container> heartbeatUntil(MockRM rm, MockNM nm, MockAM am, int n)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < ROUNDS && got.size() < n; i++) {
      nm.nodeHeartbeat(true);
      settle(rm);
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
    }
    return got;
  }

  @Override
  protected void after() {
    for (MockRM rm : rms) {
      rm.stop();
    }
    rms.clear();
    YarnAuthorizationProvider.destroy();
  }
}
