package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.locus.yarn.LocusRmFixture.GB;
import static org.locus.yarn.LocusRmFixture.heartbeatUntil;
import static org.locus.yarn.LocusRmFixture.scheduler;

import java.util.ArrayList;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.junit.Rule;
import org.junit.Test;

/**
 * A node's resource changing ({@code yarn rmadmin -updateNodeResource}, or an NM re-registering
 * with more memory) leaves applications' usage reports readable: the RM reads them on its main
 * dispatcher when it stores a new attempt, where a throwable exits the RM.
 */
public class NodeResourceUpdateTest {
  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  @Test
  public void usageReportsAndNewAttemptsWorkAfterANodesResourceChanged() throws Exception {
    MockRM rm = cluster.start();
    MockNM nm1 = rm.registerNode("h1:1234", 2 * GB, 2);
    RMApp first = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM firstAm = LocusRmFixture.launchAndRegisterAM(first, rm, nm1);
    LocusScheduler scheduler = scheduler(rm);
    RMNode h1 = rm.getRMContext().getRMNodes().get(nm1.getNodeId());
    // 20 GB: the default AM share (CapacityScheduler's 10 %, 2 GB) starts the second 1 GB AM
    // beside the first; of 8 GB it would be one AM's worth, in CapacityScheduler as in Locus.
    scheduler.handle(new NodeResourceUpdateSchedulerEvent(h1,
        ResourceOption.newInstance(Resource.newInstance(20 * GB, 8), -1)));

    ApplicationResourceUsageReport report =
        scheduler.getAppResourceUsageReport(firstAm.getApplicationAttemptId());
    assertNotNull(report);
    assertEquals(1, report.getNumUsedContainers());
    // A new application's attempt is stored (that reads its usage report) and launched.
    RMApp second = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM secondAm = LocusRmFixture.launchAndRegisterAM(second, rm, nm1);
    secondAm.allocate(ResourceRequest.ANY, 4 * GB, 1, new ArrayList<>());
    assertEquals("the 20 GB node takes a 4 GB container beside the two AMs", 1,
        heartbeatUntil(rm, nm1, secondAm, 1).size());
  }

  /**
   * The node label manager holding a node's resource is the state Hadoop's own
   * updateNodeResource leaves for a moment (and any other path that tells it of a node would
   * leave for good): a usage report read then must still come back, with the figures the RM
   * shows for the application.
   */
  @Test
  public void usageReportsWorkWhileTheNodeLabelManagerHoldsANode() throws Exception {
    MockRM rm = cluster.start();
    // 20 GB: the default AM share (CapacityScheduler's 10 %, 2 GB) starts the second 1 GB AM
    // below; of 4 GB it would be one AM's worth, in CapacityScheduler as in Locus.
    MockNM nm1 = rm.registerNode("h1:1234", 20 * GB, 4);
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm1);
    rm.getRMContext().getNodeLabelManager().activateNode(nm1.getNodeId(),
        Resource.newInstance(20 * GB, 4));

    ApplicationResourceUsageReport report =
        scheduler(rm).getAppResourceUsageReport(am.getApplicationAttemptId());
    assertNotNull(report);
    assertEquals(1, report.getNumUsedContainers());
    assertEquals(GB, report.getUsedResources().getMemorySize());
    assertEquals("1 GB of the 20 GB cluster", 5f, report.getClusterUsagePercentage(), 0.01f);
    assertEquals("default holds the whole cluster", 5f, report.getQueueUsagePercentage(),
        0.01f);
    // The RM reads the report on its main dispatcher when it stores an attempt.
    MockAM second = LocusRmFixture.launchAndRegisterAM(
        MockRMAppSubmitter.submitWithMemory(GB, rm), rm, nm1);
    assertNotNull(second);
  }
}
