package org.locus.yarn;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.junit.Test;

/** The JSON the shim sends must match rust-core/src/protocol.rs field for field. */
public class CoreMessagesTest {
  private final ApplicationId app = ApplicationId.newInstance(1700000000000L, 7);
  private final ContainerId container =
      ContainerId.newContainerId(ApplicationAttemptId.newInstance(app, 1), 3);
  private final NodeId node = NodeId.newInstance("h1", 8041);

  @Test
  public void containerAllocatedCarriesProtocolFields() throws Exception {
    ObjectNode o = CoreMessages.containerAllocated(container, node, 20, 7L,
        Resource.newInstance(2048, 2), NodeType.RACK_LOCAL, false);
    JsonNode back = CoreMessages.JSON.readTree(CoreMessages.write(o));
    assertEquals("container_allocated", back.get("type").asText());
    assertEquals(container.toString(), back.get("container").asText());
    assertEquals(app.toString(), back.get("app").asText());
    assertEquals("h1:8041", back.get("node").asText());
    assertEquals(20, back.get("priority").asInt());
    assertEquals("the scheduler key's second half", 7L,
        back.get("allocation_request_id").asLong());
    assertEquals(2048, back.get("resource").get("memory_mb").asLong());
    assertEquals(2, back.get("resource").get("vcores").asInt());
    assertEquals("rack_local", back.get("locality").asText());
    assertFalse(back.get("recovered").asBoolean());
  }

  @Test
  public void snapshotRowsSkipSatisfiedRowsAndAreOrderIndependent() {
    ResourceRequest any = ResourceRequest.newInstance(Priority.newInstance(20), "*",
        Resource.newInstance(1024, 1), 2);
    ResourceRequest host = ResourceRequest.newInstance(Priority.newInstance(20), "h1",
        Resource.newInstance(1024, 1), 2, false);
    host.setAllocationRequestId(7L);
    ResourceRequest done = ResourceRequest.newInstance(Priority.newInstance(5), "*",
        Resource.newInstance(1024, 1), 0);
    List<ResourceRequest> a = CoreMessages.snapshotRows(Arrays.asList(any, host, done));
    List<ResourceRequest> b = CoreMessages.snapshotRows(Arrays.asList(done, host, any));
    assertEquals(Arrays.asList(any, host), a);
    assertEquals(a, b);
    // The same rows, so the same frame.
    ByteBuffer fa = AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, app, a, null);
    byte[] first = new byte[fa.remaining()];
    fa.get(first);
    ByteBuffer fb = AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, app, b, null);
    byte[] second = new byte[fb.remaining()];
    fb.get(second);
    assertArrayEquals(first, second);
  }

  @Test
  public void overcommittedNodeIsOfferedNothingFreeRatherThanNegative() throws Exception {
    ByteBuffer offer = OffersFrame.encode(Collections.singletonList(node),
        Collections.singletonList(Resource.newInstance(-512, -1)), 42L)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    assertEquals(42L, offer.getLong(8));
    assertEquals(0L, offer.getLong(OffersFrame.HEADER_BYTES));
    assertEquals(0, offer.getInt(OffersFrame.HEADER_BYTES + 8));
  }

  /** The frames' locality codes (0 node, 1 rack, 2 off-switch) and names agree both ways. */
  @Test
  public void localityCodesRoundTrip() {
    String[] names = {"node_local", "rack_local", "off_switch"};
    for (NodeType t : NodeType.values()) {
      byte code = EventsFrame.localityCode(t);
      DecisionsFrame.Decision d = new DecisionsFrame.Decision(NodeId.newInstance("h1", 1), code,
          1, 0L, 1, 1024, 1, "application_1_0001", "*");
      assertEquals(t, d.locality);
      assertEquals(names[code], d.localityName());
      assertEquals(names[code], CoreMessages.locality(t));
    }
  }

  @Test
  public void settingsCollectOnlyLocusKeysTrimmedAndSubstituted() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("locus.policy", "  fair ");
    conf.set("locus.slots", "${base.slots}");
    conf.set("base.slots", "dynamic");
    conf.set("yarn.resourcemanager.hostname", "rm");
    JsonNode json = CoreMessages.JSON.readTree(LocusSettings.toJson(conf));
    assertEquals(2, json.size());
    assertEquals("fair", json.get("locus.policy").asText());
    assertEquals("dynamic", json.get("locus.slots").asText());
  }
}
