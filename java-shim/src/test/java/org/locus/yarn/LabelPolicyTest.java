package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.junit.Rule;
import org.junit.Test;

/**
 * Which labels a queue may ask for and which it gets by default, read as CapacityScheduler
 * reads them, and the RM's own check of a submission against them.
 */
public class LabelPolicyTest {
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Test
  public void labelsAndDefaultsAreInheritedAsCapacitySchedulerInheritsThem() {
    CapacitySchedulerConfiguration cs = new CapacitySchedulerConfiguration(
        new YarnConfiguration(), false);
    cs.set(CS + "root.queues", "a,b");
    cs.set(CS + "root.a.queues", "a1");
    cs.set(CS + "root.a.accessible-node-labels", "CORE,GPU");
    cs.set(CS + "root.a.default-node-label-expression", "CORE");
    cs.set(CS + "root.b.accessible-node-labels", " ");
    LabelPolicy labels = LabelPolicy.of(cs);
    assertEquals(Collections.singleton("*"), labels.accessible("root"));
    assertEquals(new HashSet<>(Arrays.asList("CORE", "GPU")), labels.accessible("root.a.a1"));
    assertEquals("CORE", labels.defaultExpression("root.a.a1"));
    assertEquals(Collections.emptySet(), labels.accessible("root.b"));
    assertNull(labels.defaultExpression("root.b"));
    assertEquals(Collections.singleton("*"), LabelPolicy.NONE.accessible("root.default"));
  }

  private String submitCoreAmTo(Class<? extends ResourceScheduler> scheduler) throws Exception {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.accessible-node-labels", "GPU");
    MockRM rm = cluster.start(conf);
    rm.getRMContext().getNodeLabelManager().addToCluserNodeLabels(Arrays.asList(
        NodeLabel.newInstance("CORE", false), NodeLabel.newInstance("GPU", true)));
    try {
      MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(LocusRmFixture.GB, rm).withAmLabel("CORE").build());
      return "accepted";
    } catch (Exception refused) {
      Throwable cause = refused;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      return cause.getMessage();
    }
  }

  /** A label the queue may not use: the RM refuses the submission with the queue's labels. */
  @Test
  public void aLabelTheQueueMayNotUseIsRefusedAsUnderCapacityScheduler() throws Exception {
    String cs = submitCoreAmTo(CapacityScheduler.class);
    assertTrue(cs, cs.contains("labelExpression of resource request=CORE. Queue labels=GPU"));
    assertEquals(cs, submitCoreAmTo(LocusScheduler.class));
  }
}
