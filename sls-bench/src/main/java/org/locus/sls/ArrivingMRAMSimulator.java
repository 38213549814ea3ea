package org.locus.sls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.AMDefinition;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator;

/**
 * SLS's MapReduce AM, started when the Rumen trace submitted its job (relative to the trace's
 * first job) rather than at 0: SLS 3.4.3 drops every Rumen job's submit time (TraceArrivals says
 * where). Set as `yarn.sls.am.type.mapreduce`; `sls-bench.rumen.trace` in sls-runner.xml names
 * the trace SLS replays. Everything else is MRAMSimulator's.
 */
public class ArrivingMRAMSimulator extends MRAMSimulator {
  static final String TRACE_KEY = "sls-bench.rumen.trace";
  private static TraceArrivals arrivals;
  /** Every AM of this run, for LocusSlsRunner: SLS maps an AM by application id too late. */
  private static final Set<ArrivingMRAMSimulator> AMS = ConcurrentHashMap.newKeySet();

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
    track(this);
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
