package org.locus.yarn.web;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.util.Records;
import org.junit.Test;

/**
 * The web model follows whatever tree the scheduler describes through the public API, not only
 * Locus's flat list: a three-level tree as capacity-scheduler.xml gives comes out with CS's
 * absolute capacities (products down the path) and CS's nesting in the REST record.
 */
public class QueueViewTest {

  private static QueueInfo queue(String name, String path, float capacity, float max,
      QueueInfo... children) {
    QueueInfo q = Records.newRecord(QueueInfo.class);
    q.setQueueName(name);
    q.setQueuePath(path);
    q.setCapacity(capacity);
    q.setMaximumCapacity(max);
    q.setCurrentCapacity(0f);
    q.setQueueState(QueueState.RUNNING);
    q.setChildQueues(new ArrayList<>(Arrays.asList(children)));
    q.setApplications(new ArrayList<>());
    return q;
  }

  private static ResourceScheduler schedulerDescribing(QueueInfo root) throws Exception {
    ResourceScheduler s = mock(ResourceScheduler.class);
    when(s.getQueueInfo("root", true, true)).thenReturn(root);
    when(s.getClusterResource()).thenReturn(Resource.newInstance(100 * 1024, 100));
    when(s.getAppsInQueue(anyString())).thenReturn(Collections.emptyList());
    return s;
  }

  @Test
  public void threeLevelTreeKeepsCapacitySchedulersAbsolutesAndNesting() throws Exception {
    QueueInfo root = queue("root", "root", 1f, 1f,
        queue("eng", "root.eng", 0.6f, 0.8f,
            queue("batch", "root.eng.batch", 0.5f, 0.5f),
            queue("adhoc", "root.eng.adhoc", 0.5f, 1f)),
        queue("ops", "root.ops", 0.4f, 1f));
    root.getChildQueues().get(0).getChildQueues().get(1).setMaxParallelApps(3);
    RMContext ctx = mock(RMContext.class);
    when(ctx.getRMApps()).thenReturn(new java.util.concurrent.ConcurrentHashMap<>());
    QueueView view = QueueView.root(schedulerDescribing(root), ctx);

    assertEquals(Arrays.asList("root", "root.eng", "root.eng.batch", "root.eng.adhoc", "root.ops"),
        view.flatten().stream().map(q -> q.path).collect(java.util.stream.Collectors.toList()));
    QueueView batch = view.children.get(0).children.get(0);
    assertEquals(50f, batch.capacity, 1e-3);
    // 60% of the cluster for eng, half of it for batch; its maximum is half of eng's 80%.
    assertEquals(30f, batch.absoluteCapacity, 1e-3);
    assertEquals(40f, batch.absoluteMaxCapacity, 1e-3);
    assertEquals(80f, view.children.get(0).children.get(1).absoluteMaxCapacity, 1e-3);
    assertFalse(view.children.get(0).isLeaf());

    JsonNode info = SchedulerInfoJson.render(view, null).path("scheduler").path("schedulerInfo");
    JsonNode eng = info.path("queues").path("queue").get(0);
    assertEquals("root.eng", eng.path("queuePath").asText());
    assertFalse("a parent has no leaf type", eng.has("type"));
    JsonNode adhoc = eng.path("queues").path("queue").get(1);
    assertEquals("root.eng.adhoc", adhoc.path("queuePath").asText());
    assertEquals("capacitySchedulerLeafQueueInfo", adhoc.path("type").asText());
    assertEquals(30.0, adhoc.path("absoluteCapacity").asDouble(), 1e-3);
    assertEquals(80.0, adhoc.path("absoluteMaxCapacity").asDouble(), 1e-3);
    assertEquals(3, adhoc.path("maxParallelApps").asInt());
    assertFalse("no Locus block for a scheduler that is not Locus", info.has("locus"));
  }

  @Test
  public void leavesWithoutAPathGetCapacitySchedulersPath() throws Exception {
    // Outside capacity mode Locus names its leaf without a path, as FifoScheduler does.
    QueueInfo root = queue("root", "root", 1f, 1f, queue("default", null, 1f, 1f));
    RMContext ctx = mock(RMContext.class);
    when(ctx.getRMApps()).thenReturn(new java.util.concurrent.ConcurrentHashMap<>());
    QueueView view = QueueView.root(schedulerDescribing(root), ctx);
    assertEquals("root.default", view.children.get(0).path);
    assertEquals(100f, view.children.get(0).absoluteCapacity, 1e-3);
  }
}
