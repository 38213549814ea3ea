package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.junit.Test;

/** The shim writes the offers frame rust-core/src/offers.rs reads, and the core decides it. */
public class OffersFrameTest {
  private static final String SETUP = "[{\"type\":\"node_added\",\"node\":\"h1:8041\","
      + "\"host\":\"h1\",\"rack\":\"/r1\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"node_added\",\"node\":\"h2:8041\",\"host\":\"h2\",\"rack\":\"/r1\","
      + "\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
      + "{\"type\":\"app_added\",\"app\":\"application_1_0001\",\"queue\":\"default\","
      + "\"user\":\"u\"},{\"type\":\"attempt_added\",\"app\":\"application_1_0001\","
      + "\"attempt\":\"a1\"},{\"type\":\"asks_updated\",\"app\":\"application_1_0001\","
      + "\"asks\":[{\"priority\":20,\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1024,"
      + "\"vcores\":1},\"count\":3,\"relax_locality\":true}]}]";

  private static ByteBuffer frame(long nowMs, String... nodes) {
    NodeId[] ids = new NodeId[nodes.length];
    Resource[] free = new Resource[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      ids[i] = NodeId.fromString(nodes[i]);
      free[i] = Resource.newInstance(8192, 8);
    }
    return OffersFrame.encode(Arrays.asList(ids), Arrays.asList(free), nowMs);
  }

  @Test
  public void theCoreDecidesEveryNodeOfABatchAndNamesTheOnesItRefuses() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      JsonNode got = CoreMessages.JSON.readTree(
          core.offers(frame(1_000, "h1:8041", "ghost:1", "h2:8041")));
      int placed = 0;
      for (JsonNode d : got.get("decisions")) {
        placed += d.get("count").asInt();
      }
      assertEquals("the three asked containers, over the two known nodes", 3, placed);
      assertEquals(1, got.get("refused").size());
      assertEquals("ghost:1", got.get("refused").get(0).get("node").asText());
      assertEquals("the two known nodes were offered", 2,
          CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
      // Nothing left to decide: no answer at all, not an empty one.
      assertNull(core.offers(frame(2_000, "h1:8041", "h2:8041")));
    }
  }

  @Test
  public void aNodeWhoseIdDoesNotFitIsLeftOutAndTheOthersAreOffered() throws Exception {
    StringBuilder host = new StringBuilder();
    for (int i = 0; i <= OffersFrame.MAX_ID_BYTES; i++) {
      host.append('h');
    }
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      JsonNode got = CoreMessages.JSON.readTree(
          core.offers(frame(1_000, "h1:8041", host + ":1", "h2:8041")));
      int placed = 0;
      for (JsonNode d : got.get("decisions")) {
        placed += d.get("count").asInt();
      }
      assertEquals("the three asked containers, over the two nodes that fit", 3, placed);
      assertEquals(0, got.path("refused").size());
      assertEquals(2, CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
    }
  }

  @Test
  public void aBrokenFrameIsAnExceptionNamingTheByte() throws Exception {
    try (LocusCore core = LocusCore.open("{}")) {
      core.events(SETUP);
      ByteBuffer cut = frame(1_000, "h1:8041");
      cut.limit(cut.limit() - 1);
      LocusException e = assertThrows(LocusException.class, () -> core.offers(cut));
      assertTrue(e.getMessage(), e.getMessage().startsWith("malformed offers frame at byte"));
      assertEquals("nothing of it reached the core", 0,
          CoreMessages.JSON.readTree(core.stats()).get("heartbeats").asInt());
      assertThrows(LocusException.class, () -> LocusNative.offers(0, cut, cut.limit()));
    }
  }
}
