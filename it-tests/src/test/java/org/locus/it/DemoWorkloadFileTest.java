package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

/**
 * sim/workloads/demo.json is the simulator's copy of the demo's batch (docs/results/sim-validation.md compares the two
 * runs); this keeps it equal to what {@link Demo} and {@link EmbeddedCluster} actually run, so a change to the
 * demo that is not made in the simulator's copy fails here, naming the field. No cluster is started.
 */
public class DemoWorkloadFileTest {
  private static JsonNode file() throws Exception {
    // Gradle runs the tests in it-tests/; the file is in the repository's sim/ beside it.
    File f = new File("../sim/workloads/demo.json");
    assertTrue("missing " + f.getAbsolutePath(), f.isFile());
    return new ObjectMapper().readTree(f);
  }

  @Test
  public void clusterAndSettingsMatchTheEmbeddedCluster() throws Exception {
    JsonNode c = file().get("cluster");
    Map<String, String> hosts = new LinkedHashMap<>();
    for (JsonNode h : c.get("hosts")) {
      hosts.put(h.get("host").asText(), h.get("rack").asText());
    }
    assertEquals("hosts and racks", EmbeddedCluster.topology(Demo.HOSTS, Demo.RACKS), hosts);
    assertEquals("node_memory_mb", EmbeddedCluster.NODE_MEMORY_MB, c.get("node_memory_mb").asInt());
    assertEquals("node_vcores", EmbeddedCluster.NODE_VCORES, c.get("node_vcores").asInt());
    assertEquals("block_bytes", EmbeddedCluster.BLOCK_SIZE, c.get("block_bytes").asLong());
    assertEquals("replication", EmbeddedCluster.REPLICATION, c.get("replication").asInt());
    JsonNode y = file().get("yarn");
    assertEquals("node_heartbeat_ms", EmbeddedCluster.NM_HEARTBEAT_MS, y.get("node_heartbeat_ms").asInt());
    assertEquals("am_heartbeat_ms", EmbeddedCluster.AM_HEARTBEAT_MS, y.get("am_heartbeat_ms").asInt());
    assertEquals("reduce_slowstart", EmbeddedCluster.REDUCE_SLOWSTART, (float) y.get("reduce_slowstart").asDouble(),
        0.0f);
    assertEquals("am_memory_mb", EmbeddedCluster.AM_MEMORY_MB, y.get("am_memory_mb").asInt());
    assertEquals("task_memory_mb", EmbeddedCluster.TASK_MEMORY_MB, y.get("task_memory_mb").asInt());
  }

  @Test
  public void inputsAndBatchMatchTheDemo() throws Exception {
    JsonNode doc = file();
    List<String> want = new ArrayList<>();
    for (Demo.InputSpec in : Demo.INPUTS) {
      want.add(in.name + " files=" + in.files + " bytes=" + in.bytesPerFile + " first_host=" + in.firstHost);
    }
    List<String> got = new ArrayList<>();
    for (JsonNode in : doc.get("inputs")) {
      got.add(in.get("name").asText() + " files=" + in.get("files").asInt() + " bytes="
          + in.get("bytes_per_file").asLong() + " first_host=" + in.get("first_host").asInt());
    }
    assertEquals("inputs", want, got);
    want.clear();
    for (Demo.JobSpec j : Demo.BATCH) {
      want.add(j.name + " input=" + j.input + " maps=" + (j.input == null ? j.maps : "-") + " reduces=" + j.reduces);
    }
    got.clear();
    for (JsonNode j : doc.get("jobs")) {
      String input = j.hasNonNull("input") ? j.get("input").asText() : null;
      got.add(j.get("name").asText() + " input=" + input + " maps="
          + (input == null ? String.valueOf(j.get("maps").asInt()) : "-") + " reduces=" + j.get("reduces").asInt());
    }
    assertEquals("jobs, in submission order", want, got);
  }
}
