package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.After;
import org.junit.Test;
import org.slf4j.LoggerFactory;

/**
 * Resource types beyond memory and vcores ({@code yarn.resource-types}): CapacityScheduler
 * schedules them; Locus does not, so it must not start as if it did.
 */
public class ResourceTypesTest {
  private static final int GB = 1024;

  private final List<MockRM> rms = new ArrayList<>();

  /** ResourceUtils keeps the types JVM-wide: every later test must see memory and vcores only. */
  @After
  public void resetResourceTypes() {
    for (MockRM rm : rms) {
      rm.stop();
    }
    ResourceUtils.resetResourceTypes(new Configuration());
  }

  private static YarnConfiguration withGpus(Class<? extends ResourceScheduler> scheduler) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.set(YarnConfiguration.RESOURCE_TYPES, "yarn.io/gpu");
    // CapacityScheduler refuses extra types under its default calculator, which compares memory.
    conf.set(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS,
        DominantResourceCalculator.class.getName());
    // What the RM does with resource-types.xml: the types every Resource of this JVM carries.
    ResourceUtils.resetResourceTypes(conf);
    return conf;
  }

  private MockRM start(YarnConfiguration conf) {
    MockRM rm = new MockRM(LocusRmFixture.privateState(conf));
    rms.add(rm);
    rm.start();
    return rm;
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  @Test
  public void capacitySchedulerStartsWithGpus() throws Exception {
    MockRM rm = start(withGpus(CapacityScheduler.class));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    nm.nodeHeartbeat(true);
    rm.drainEvents();
    assertEquals(3, rm.getResourceScheduler().getClusterResource().getResources().length);
  }

  @Test
  public void locusRefusesToStartNamingTheKeyAndTheTypes() throws Exception {
    try {
      start(withGpus(LocusScheduler.class));
      fail("Locus started although it does not schedule yarn.io/gpu");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(YarnConfiguration.RESOURCE_TYPES));
      assertTrue(m, m.contains("yarn.io/gpu"));
      assertTrue(m, m.contains("locus.resource-types.ignore"));
    }
  }

  @Test
  public void locusStartsWithTheOptInAndWarns() throws Exception {
    YarnConfiguration conf = withGpus(LocusScheduler.class);
    conf.set("locus.resource-types.ignore", "true");
    LogCapturer logs = LogCapturer.captureLogs(LoggerFactory.getLogger(LocusScheduler.class));
    try {
      start(conf);
    } finally {
      logs.stopCapturing();
    }
    String out = logs.getOutput();
    assertTrue(out, out.contains("WARN"));
    assertTrue(out, out.contains("yarn.io/gpu"));
    assertTrue(out, out.contains(YarnConfiguration.RESOURCE_TYPES));
  }

  @Test
  public void anOptInThatIsNotTrueStillRefuses() throws Exception {
    YarnConfiguration conf = withGpus(LocusScheduler.class);
    conf.set("locus.resource-types.ignore", "false");
    try {
      start(conf);
      fail("Locus started with locus.resource-types.ignore=false");
    } catch (Exception e) {
      assertTrue(messages(e), messages(e).contains("yarn.io/gpu"));
    }
  }
}
