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
}
