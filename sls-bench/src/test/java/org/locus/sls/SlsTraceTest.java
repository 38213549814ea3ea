package org.locus.sls;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.tools.rumen.JobTraceReader;
import org.apache.hadoop.tools.rumen.LoggedJob;
import org.apache.hadoop.tools.rumen.LoggedTask;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The synthetic trace is what `./locus bench sls` says it is, and SLS's reader accepts it. */
public class SlsTraceTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void sameSeedWritesTheSameTraceAndAnotherSeedDoesNot() throws Exception {
    Path a = tmp.newFolder("a").toPath();
    Path b = tmp.newFolder("b").toPath();
    Path c = tmp.newFolder("c").toPath();
    SlsTrace.main(new String[] {"200", "20", "30", "7", a.toString()});
    SlsTrace.main(new String[] {"200", "20", "30", "7", b.toString()});
    SlsTrace.main(new String[] {"200", "20", "30", "8", c.toString()});
    assertArrayEquals(Files.readAllBytes(a.resolve("rumen.json")),
        Files.readAllBytes(b.resolve("rumen.json")));
    assertTrue(!java.util.Arrays.equals(Files.readAllBytes(a.resolve("rumen.json")),
        Files.readAllBytes(c.resolve("rumen.json"))));
  }

  @Test
  public void rumenReadsEveryJobWithMapsOnManyHostsOfTheNodeFile() throws Exception {
    Path dir = tmp.newFolder("t").toPath();
    SlsTrace.main(new String[] {"400", "60", "30", "9", dir.toString()});
    String nodes = new String(Files.readAllBytes(dir.resolve("nodes.json")), "UTF-8");
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    int jobs = 0;
    int largest = 0;
    try (JobTraceReader r = new JobTraceReader(
        new org.apache.hadoop.fs.Path(dir.resolve("rumen.json").toUri()), conf)) {
      LoggedJob job;
      while ((job = r.getNext()) != null) {
        jobs++;
        assertTrue(job.getReduceTasks().size() >= 1);
        Set<String> hosts = new HashSet<>();
        for (LoggedTask t : job.getMapTasks()) {
          String host = t.getAttempts().get(0).getHostName().getValue();
          assertTrue(host, host.matches("/rack-\\d{3}/host-\\d{5}"));
          assertTrue(host + " not in the node file",
              nodes.contains("\"node\":\"" + host.substring(host.lastIndexOf('/') + 1) + "\""));
          hosts.add(host);
        }
        largest = Math.max(largest, hosts.size());
      }
    }
    assertEquals(60, jobs);
    // A large job's map asks name most of the cluster's hosts (one ask row each).
    assertTrue("largest job's distinct map hosts: " + largest, largest > 200);
  }

  @Test
  public void arrivalsAreEachJobsSubmitTimeAfterTheFirstSpreadOverTheWindow() throws Exception {
    Path dir = tmp.newFolder("w").toPath();
    SlsTrace.main(new String[] {"80", "50", "600", "9", dir.toString()});
    TraceArrivals a = TraceArrivals.read(dir.resolve("rumen.json").toString());
    assertEquals(50, a.jobs());
    assertEquals(0, a.offsetMs("job_1700000000000_0001"));
    long last = a.offsetMs("job_1700000000000_0050");
    // Exponential gaps averaging 12 s: the 50th job arrives minutes after the first.
    assertTrue("50th job at " + last + " ms", last > 300_000 && last < 1_200_000);
    // Its maps (5-20 s), then its reduces (10-30 s), at least 20 s after it arrived.
    long finish = a.finishOffsetMs("job_1700000000000_0050");
    assertTrue("50th job finishes at " + finish + " ms", finish >= last + 20_000);
    try {
      a.offsetMs("job_1700000000000_0051");
      org.junit.Assert.fail("a job the trace does not name has no arrival");
    } catch (IllegalStateException expected) {
      assertTrue(expected.getMessage().contains("job_1700000000000_0051"));
    }
  }

  @Test
  public void offeredLoadIsTaskSecondsPerWindowSecondOverTheClustersSlots() {
    // 848,013 task container-seconds arriving over 60 s on 1,000 nodes of 8 slots.
    String line = SlsTrace.offeredLoad(1000, 60, 64118, 848_013_000L);
    assertTrue(line, line.contains("= 14134 slots busy on average against 8000 slots"));
    assertTrue(line, line.contains("offered load 1.77"));
    assertTrue(line, line.contains("at least 106 s"));
  }
}
