package org.locus.sls;

import java.lang.reflect.Field;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;

/**
 * SLS's SLSRunner (same arguments, same exit at the end) without the race that killed a
 * 1,000-node run after 34 s: "Didn't find any AMSimulator for applicationId=...", thrown by
 * SLS 3.4.3's MockAMLauncher on the RM's dispatcher, which takes the RM down.
 *
 * <p>Where: AMSimulator.firstStep submits the application (submitApp) and only afterwards puts
 * the AM into AMRunner's application-id map. Submission hands the application to the RM's
 * dispatcher, so the RM can accept it, its scheduler can place the AM container and the
 * dispatcher can run MockAMLauncher's LAUNCH before the submitting SLS thread reaches the put:
 * MockAMLauncher looks the AM up through {@link #getAMSimulatorByAppId} and finds nothing. A
 * scheduler's speed moves the window (any scheduler can hit it: it was CapacityScheduler's run
 * that died). SLS before 3.4 scanned every AM for the one whose application id matched, and
 * submitApp sets that id before it submits.
 *
 * <p>So when the map has no entry yet, this asks the AMs themselves (ArrivingMRAMSimulator keeps
 * them): the AM that has submitted that application. Only a miss scans, and a miss is the race.
 * An application no AM submitted still gets null, and MockAMLauncher's error.
 */
public class LocusSlsRunner extends SLSRunner {
  public LocusSlsRunner() throws ClassNotFoundException, YarnException {
    super();
  }

  @Override
  public AMSimulator getAMSimulatorByAppId(ApplicationId appId) {
    AMSimulator am = super.getAMSimulatorByAppId(appId);
    return am != null ? am : ArrivingMRAMSimulator.submitted(appId);
  }

  public static void main(String[] args) throws Exception {
    // What SLSRunner.main does, with this runner: exit when the last application has finished
    // (SLS's own flag, private; without it the RM's threads keep the JVM up after the run).
    Field exit = SLSRunner.class.getDeclaredField("exitAtTheFinish");
    exit.setAccessible(true);
    exit.setBoolean(null, true);
    ToolRunner.run(new Configuration(), new LocusSlsRunner(), args);
  }
}
