package org.locus.sls;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.junit.Test;

/**
 * MockAMLauncher finds the AM of an application as soon as the RM can launch its container: in
 * the window between AMSimulator.submitApp (application id set, application submitted) and
 * firstStep's put into SLS's own map, where SLS 3.4.3 answered null and the RM went down.
 */
public class LocusSlsRunnerTest {
  /** An AM in that window: submitApp has set its application id; SLS's map has no entry yet. */
  private static final class Submitted extends ArrivingMRAMSimulator {
    Submitted(ApplicationId id) {
      appId = id;
    }
  }

  @Test
  public void anAmThatHasSubmittedIsFoundBeforeSlsMapsIt() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1_795_467_726_058L, 43);
    Submitted am = new Submitted(id);
    ArrivingMRAMSimulator.track(am);
    ArrivingMRAMSimulator.track(new Submitted(ApplicationId.newInstance(1_795_467_726_058L, 44)));
    SLSRunner runner = new LocusSlsRunner();
    assertSame(am, runner.getAMSimulatorByAppId(id));
  }

  @Test
  public void anApplicationNoAmSubmittedIsStillNotFound() throws Exception {
    ArrivingMRAMSimulator.track(new Submitted(ApplicationId.newInstance(7L, 1)));
    assertNull(new LocusSlsRunner().getAMSimulatorByAppId(ApplicationId.newInstance(7L, 2)));
  }
}
