package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Map;

import org.junit.Test;

/** The demo's CapacityScheduler overrides (-Plocus.demo.capacity=...), without a cluster. */
public class DemoOptionsTest {
  @Test
  public void overridesNameKeysAfterTheCapacityPrefixAndWinOverTheDefaults() {
    Map<String, String> o = Demo.capacityOverrides("maximum-am-resource-percent=0.2, node-locality-delay=-1");
    assertEquals("0.2", o.get("yarn.scheduler.capacity.maximum-am-resource-percent"));
    assertEquals("-1", o.get("yarn.scheduler.capacity.node-locality-delay"));
    Map<String, String> cs = Demo.capacitySchedulerDefaults();
    assertEquals("0.1", cs.get("yarn.scheduler.capacity.maximum-am-resource-percent"));
    cs.putAll(o);
    assertEquals("0.2", cs.get("yarn.scheduler.capacity.maximum-am-resource-percent"));
    assertTrue(Demo.capacityOverrides("  ").isEmpty());
  }

  @Test
  public void aMalformedEntryIsRefusedNamingIt() {
    for (String bad : new String[] {"maximum-am-resource-percent", "=0.2", "node-locality-delay=",
        "yarn.scheduler.capacity.node-locality-delay=1"}) {
      try {
        Demo.capacityOverrides("root.default.capacity=100," + bad);
        fail("accepted " + bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("'" + bad + "'")
            && e.getMessage().contains(Demo.CAPACITY_OVERRIDES));
      }
    }
  }

  @Test
  public void locusOverridesTakeLocusKeysAndRefuseOthersNamingTheEntry() {
    Map<String, String> o = Demo.locusOverrides("locus.scheduling.mode=heartbeat, locus.policy=fifo");
    assertEquals("heartbeat", o.get("locus.scheduling.mode"));
    assertEquals("fifo", o.get("locus.policy"));
    assertTrue(Demo.locusOverrides("").isEmpty());
    for (String bad : new String[] {"scheduling.mode=heartbeat", "locus.=x", "locus.policy=", "locus.policy"}) {
      try {
        Demo.locusOverrides("locus.policy=fsp," + bad);
        fail("accepted " + bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("'" + bad + "'")
            && e.getMessage().contains(Demo.LOCUS_OVERRIDES));
      }
    }
  }

  @Test
  public void theBatchChoiceDefaultsToTheDefaultBatchAndRefusesUnknownNamesNamingThem() {
    assertEquals(Demo.BATCH, Demo.batch("").jobs);
    assertEquals(Demo.INPUTS, Demo.batch("  ").inputs);
    assertEquals(Demo.BATCH, Demo.batch("default").jobs);
    assertEquals(Demo.HEAVY_BATCH, Demo.batch(" heavy ").jobs);
    assertEquals(Demo.HEAVY_INPUTS, Demo.batch("heavy").inputs);
    for (String bad : new String[] {"Heavy", "big", "default,heavy"}) {
      try {
        Demo.batch(bad);
        fail("accepted " + bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("'" + bad + "'")
            && e.getMessage().contains(Demo.BATCH_CHOICE) && e.getMessage().contains("heavy"));
      }
    }
  }

  @Test
  public void theHeavyBatchPutsBigTeraSortsBeforeSmallWordCountsOverInputsItWrites() {
    java.util.Set<String> inputs = new java.util.HashSet<>();
    for (Demo.InputSpec in : Demo.HEAVY_INPUTS) {
      assertTrue("duplicate input " + in.name, inputs.add(in.name));
    }
    int teraSorts = 0;
    int wordCounts = 0;
    for (Demo.JobSpec j : Demo.HEAVY_BATCH) {
      assertTrue(j.name + " reads " + j.input, inputs.contains(j.input));
      Demo.InputSpec in = Demo.HEAVY_INPUTS.stream().filter(i -> i.name.equals(j.input)).findFirst().get();
      if (j.kind == Demo.Kind.TERASORT) {
        assertEquals(j.name + " comes before every WordCount", 0, wordCounts);
        assertTrue(j.input + " is a TeraSort input", in.name.startsWith("tera"));
        assertTrue(j.name + " has more maps than a WordCount could", in.files > 2);
        teraSorts++;
      } else {
        assertEquals(Demo.Kind.PROJECT_WORDCOUNT, j.kind);
        assertTrue(j.name + " reads 1 or 2 files", in.files >= 1 && in.files <= 2);
        wordCounts++;
      }
    }
    assertTrue("a few big, many small: " + teraSorts + " vs " + wordCounts, teraSorts >= 2 && wordCounts > teraSorts);
    // Together the batch asks for more than the cluster holds, so who is served first shows.
    long askMb = 0;
    for (Demo.JobSpec j : Demo.HEAVY_BATCH) {
      int files = Demo.HEAVY_INPUTS.stream().filter(i -> i.name.equals(j.input)).findFirst().get().files;
      askMb += EmbeddedCluster.AM_MEMORY_MB + (long) (files + j.reduces) * EmbeddedCluster.TASK_MEMORY_MB;
    }
    assertTrue(askMb + " MB asked", askMb > (long) Demo.HOSTS * EmbeddedCluster.NODE_MEMORY_MB);
  }
}
