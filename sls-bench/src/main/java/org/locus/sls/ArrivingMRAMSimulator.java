package org.locus.sls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.AMDefinition;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator;
import org.apache.hadoop.yarn.sls.scheduler.ContainerSimulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SLS's MapReduce AM, started when the Rumen trace submitted its job (relative to the trace's
 * first job) rather than at 0: SLS 3.4.3 drops every Rumen job's submit time (TraceArrivals says
 * where). Set as `yarn.sls.am.type.mapreduce`; `sls-bench.rumen.trace` in sls-runner.xml names
 * the trace SLS replays. It also unregisters before its container ends ({@link #lastStep}).
 * Everything else is MRAMSimulator's.
 */
public class ArrivingMRAMSimulator extends MRAMSimulator {
  private static final Logger LOG = LoggerFactory.getLogger(ArrivingMRAMSimulator.class);
  static final String TRACE_KEY = "sls-bench.rumen.trace";
  /**
   * true: reduces ask for no host or rack, as MapReduce's AM asks for them (Rumen gives every
   * task a host, and SLS asks for it). Set for SWIM traces, whose reduces have no input host;
   * off for the synthetic trace, whose published figures were measured with host asks.
   */
  static final String REDUCES_ANYWHERE_KEY = "sls-bench.reduces.anywhere";
  /** A file to which each AM appends "application id,trace job id" once it has submitted. */
  static final String JOB_MAP_KEY = "sls-bench.job-map";
  /** MRAMSimulator's PRIORITY_REDUCE (private there; 20 is its maps'). */
  static final int REDUCE_PRIORITY = 10;
  /** How often and how long lastStep asks the RM whether the unregistration is through. */
  private static final long UNREGISTER_POLL_MS = 10;
  private static final long UNREGISTER_WAIT_MS = 10_000;
  private static TraceArrivals arrivals;
  /** Every AM of this run, for LocusSlsRunner: SLS maps an AM by application id too late. */
  private static final Set<ArrivingMRAMSimulator> AMS = ConcurrentHashMap.newKeySet();
  /** lastStep has unregistered this AM (or tried to): SLS calls lastStep more than once. */
  private volatile boolean unregistered;
  private boolean reducesAnywhere;
  private String traceJobId;
  private String jobMap;

  @Override
  public void init(AMDefinition def, ResourceManager rm, SLSRunner se, boolean tracked,
      long baselineTimeMs, long heartbeatIntervalMs, Map<ApplicationId, AMSimulator> appIdToAm) {
    super.init(def, rm, se, tracked, baselineTimeMs, heartbeatIntervalMs, appIdToAm);
    TraceArrivals trace = arrivals(se);
    long offset = trace.offsetMs(def.getOldAppId());
    // The same life span AMSimulator.init gives the task, moved to the job's arrival; the
    // TaskRunner adds its own start when the AM is scheduled, right after init.
    init(offset, offset + 1_000_000L * heartbeatIntervalMs, heartbeatIntervalMs);
    traceStartTimeMS = offset;
    // jobruntime.csv's real_* columns: the trace's times, on the same baseline.
    traceFinishTimeMS = trace.finishOffsetMs(def.getOldAppId());
    reducesAnywhere = se.getConf().getBoolean(REDUCES_ANYWHERE_KEY, false);
    traceJobId = def.getOldAppId();
    jobMap = se.getConf().get(JOB_MAP_KEY);
    track(this);
  }

  @Override
  public void firstStep() throws Exception {
    super.firstStep();
    if (jobMap != null && appId != null) {
      recordJob(jobMap, appId, traceJobId);
    }
  }

  static synchronized void recordJob(String file, ApplicationId app, String traceJob)
      throws IOException {
    Files.write(Paths.get(file), (app + "," + traceJob + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Override
  protected List<ResourceRequest> packageRequests(List<ContainerSimulator> containers,
      int priority) {
    return locality(super.packageRequests(containers, priority), priority, reducesAnywhere);
  }

  /** The ask rows sent: a reduce's only its `*` row when reduces ask anywhere. */
  static List<ResourceRequest> locality(List<ResourceRequest> rows, int priority,
      boolean reducesAnywhere) {
    if (!reducesAnywhere || priority != REDUCE_PRIORITY) {
      return rows;
    }
    List<ResourceRequest> any = new ArrayList<>();
    for (ResourceRequest r : rows) {
      if (ResourceRequest.isAnyLocation(r.getResourceName())) {
        any.add(r);
      }
    }
    return any;
  }

  /**
   * Unregisters the AM, as a real MapReduce AM does before it exits, then SLS's own last step.
   *
   * <p>SLS 3.4.3's AMSimulator.lastStep first tells the AM container's simulated NM that the
   * container has ended (NMSimulator.cleanupContainer: COMPLETE, exit 0 on the NM's next
   * heartbeat) and only then calls finishApplicationMaster. When that heartbeat falls in between
   * and the RM acts on it first, the attempt is still RUNNING, so its AM container "exited":
   * the RM fails the attempt ("AM Container for appattempt_... exited with exitCode: 0"; SLS
   * allows one attempt), the job fails, and SLS's finishApplicationMaster either throws
   * "Application doesn't exist in cache" or returns on the stored FAILED state; either way
   * jobruntime.csv lacks or misreports the job (docs/results/sls.md, "An AM's end"). Any scheduler can
   * lose that race; a faster NODE_UPDATE path loses it more often.
   *
   * <p>So the first call asks finishApplicationMaster until the RM says the application is
   * unregistered (a MapReduce AM's own loop), then lets SLS report the container's end; SLS's
   * second finishApplicationMaster returns at once on the stored final state. Later calls
   * (MRAMSimulator calls lastStep once per completed container after the last) go straight to
   * SLS's, which skips them.
   */
  @Override
  public void lastStep() throws Exception {
    if (!unregistered && appAttemptId != null) {
      unregistered = true;
      try {
        unregister();
      } catch (Exception e) {
        // The attempt ended another way (killed, failed): SLS's own step then reports it as before.
        LOG.warn("{}: unregistering before the AM container's end failed", appAttemptId, e);
      }
    }
    super.lastStep();
  }

  private void unregister() throws Exception {
    FinishApplicationMasterRequest finish =
        FinishApplicationMasterRequest.newInstance(FinalApplicationStatus.SUCCEEDED, "", "");
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(appAttemptId.toString());
    Token<AMRMTokenIdentifier> token = rm.getRMContext().getRMApps().get(appId)
        .getRMAppAttempt(appAttemptId).getAMRMToken();
    ugi.addTokenIdentifier(token.decodeIdentifier());
    PrivilegedExceptionAction<Boolean> ask = () ->
        rm.getApplicationMasterService().finishApplicationMaster(finish).getIsUnregistered();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNREGISTER_WAIT_MS);
    while (!ugi.doAs(ask)) {
      if (System.nanoTime() - deadline > 0) {
        // Never hold SLS's thread for good: SLS's own step then runs as it would have.
        LOG.warn("{}: the RM has not confirmed the unregistration after {} ms", appAttemptId,
            UNREGISTER_WAIT_MS);
        return;
      }
      Thread.sleep(UNREGISTER_POLL_MS);
    }
  }

  static void track(ArrivingMRAMSimulator am) {
    AMS.add(am);
  }

  /**
   * The AM that submitted {@code appId}, or null. AMSimulator.submitApp sets its application id
   * before it submits, so this finds the AM from the moment the RM knows the application, which
   * SLS's own map does only after submitApp returned (LocusSlsRunner says why that matters).
   */
  static AMSimulator submitted(ApplicationId appId) {
    for (ArrivingMRAMSimulator am : AMS) {
      if (appId.equals(am.getApplicationId())) {
        return am;
      }
    }
    return null;
  }

  private static synchronized TraceArrivals arrivals(SLSRunner se) {
    if (arrivals == null) {
      String trace = se.getConf().get(TRACE_KEY);
      if (trace == null || trace.isEmpty()) {
        throw new IllegalStateException(TRACE_KEY + " is not set in sls-runner.xml: "
            + ArrivingMRAMSimulator.class.getName() + " needs the Rumen trace SLS replays");
      }
      try {
        arrivals = TraceArrivals.read(trace);
      } catch (IOException e) {
        throw new UncheckedIOException(TRACE_KEY + "=" + trace, e);
      }
    }
    return arrivals;
  }
}
