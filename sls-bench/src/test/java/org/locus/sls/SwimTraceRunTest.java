package org.locus.sls;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.tools.rumen.JobTraceReader;
import org.apache.hadoop.tools.rumen.LoggedJob;
import org.apache.hadoop.tools.rumen.LoggedLocation;
import org.apache.hadoop.tools.rumen.LoggedTask;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * What a SWIM trace's SLS run needs from the harness (bench/swim_to_sls.py writes the trace):
 * Rumen reads a converted job with its split's three replicas, reduces ask for no host (as
 * MapReduce's AM asks), and each application is named with the trace job it runs, since SLS's
 * jobruntime.csv names only the application.
 */
public class SwimTraceRunTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  /** A job in the form bench/swim_to_sls.py writes: one map with three replicas, one reduce. */
  private static final String JOB = "{\"jobID\":\"job_1700000000000_0001\",\"user\":\"swim\","
      + "\"queue\":\"default\",\"outcome\":\"SUCCESS\",\"jobtype\":\"JAVA\","
      + "\"submitTime\":1700000000000,\"launchTime\":1700000000000,"
      + "\"finishTime\":1700000000500,\"totalMaps\":1,\"totalReduces\":1,\"mapTasks\":["
      + "{\"taskID\":\"task_1700000000000_0001_m_000000\",\"taskType\":\"MAP\","
      + "\"taskStatus\":\"SUCCESS\",\"startTime\":1700000000000,\"finishTime\":1700000000300,"
      + "\"attempts\":[{\"attemptID\":\"attempt_1700000000000_0001_m_000000_0\","
      + "\"result\":\"SUCCESS\",\"hostName\":\"/rack-000/host-00004\","
      + "\"startTime\":1700000000000,\"finishTime\":1700000000300}],"
      + "\"preferredLocations\":[{\"layers\":[\"rack-000\",\"host-00004\"]},"
      + "{\"layers\":[\"rack-001\",\"host-00041\"]},{\"layers\":[\"rack-001\",\"host-00047\"]}]}"
      + "],\"reduceTasks\":[{\"taskID\":\"task_1700000000000_0001_r_000000\","
      + "\"taskType\":\"REDUCE\",\"taskStatus\":\"SUCCESS\",\"startTime\":1700000000300,"
      + "\"finishTime\":1700000000500,\"attempts\":[{\"attemptID\":"
      + "\"attempt_1700000000000_0001_r_000000_0\",\"result\":\"SUCCESS\","
      + "\"hostName\":\"/rack-001/host-00050\",\"startTime\":1700000000300,"
      + "\"finishTime\":1700000000500}]}],\"otherTasks\":[]}\n";

  @Test
  public void rumenReadsTheSplitsReplicasAndTheHostSlsAsksFor() throws Exception {
    Path trace = tmp.newFile("rumen.json").toPath();
    Files.write(trace, JOB.getBytes(StandardCharsets.UTF_8));
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    try (JobTraceReader r = new JobTraceReader(new org.apache.hadoop.fs.Path(trace.toString()),
        conf)) {
      LoggedJob job = r.getNext();
      LoggedTask map = job.getMapTasks().get(0);
      assertEquals("/rack-000/host-00004",
          map.getAttempts().get(0).getHostName().getValue());
      List<String> replicas = new ArrayList<>();
      for (LoggedLocation l : map.getPreferredLocations()) {
        replicas.add(l.getLayers().get(0).getValue() + "/" + l.getLayers().get(1).getValue());
      }
      assertEquals(Arrays.asList("rack-000/host-00004", "rack-001/host-00041",
          "rack-001/host-00047"), replicas);
      assertEquals(300, map.getAttempts().get(0).getFinishTime()
          - map.getAttempts().get(0).getStartTime());
      assertEquals(1, job.getReduceTasks().size());
    }
  }

  @Test
  public void reducesAskAnywhereWhileMapsKeepTheirHostAndRack() {
    Resource one = Resource.newInstance(1024, 1);
    List<ResourceRequest> rows = Arrays.asList(
        ResourceRequest.newInstance(Priority.newInstance(10), "host-00050", one, 1),
        ResourceRequest.newInstance(Priority.newInstance(10), "/rack-001", one, 1),
        ResourceRequest.newInstance(Priority.newInstance(10), ResourceRequest.ANY, one, 1));
    List<ResourceRequest> reduces =
        ArrivingMRAMSimulator.locality(rows, ArrivingMRAMSimulator.REDUCE_PRIORITY, true);
    assertEquals(1, reduces.size());
    assertEquals(ResourceRequest.ANY, reduces.get(0).getResourceName());
    assertEquals(1, reduces.get(0).getNumContainers());
    assertEquals(rows, ArrivingMRAMSimulator.locality(rows, 20, true));
    assertEquals("off by default (the synthetic trace keeps its reduces' hosts)", rows,
        ArrivingMRAMSimulator.locality(rows, ArrivingMRAMSimulator.REDUCE_PRIORITY, false));
  }

  @Test
  public void eachApplicationIsRecordedWithItsTraceJob() throws Exception {
    Path map = tmp.getRoot().toPath().resolve("job-map.csv");
    ArrivingMRAMSimulator.recordJob(map.toString(), ApplicationId.newInstance(42L, 7),
        "job_1700000000000_0003");
    ArrivingMRAMSimulator.recordJob(map.toString(), ApplicationId.newInstance(42L, 8),
        "job_1700000000000_0001");
    assertEquals(Arrays.asList("application_42_0007,job_1700000000000_0003",
        "application_42_0008,job_1700000000000_0001"),
        Files.readAllLines(map, StandardCharsets.UTF_8));
  }
}
