package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.locus.yarn.LocusScheduler;

/**
 * Integration: a WordCount job completes on the embedded cluster under each job-level policy.
 *
 * <p>One cluster for the class. Each test switches the running RM to a policy the way an operator does:
 * it rewrites the RM's yarn-site.xml and sends {@code refreshQueues} over the admin protocol, the RPC
 * {@code yarn rmadmin -refreshQueues} sends. The RM's AdminService then re-reads yarn-site.xml through its
 * configuration provider and hands it to {@code LocusScheduler.reinitialize}. Then one small WordCount runs.
 *
 * <p>Every job has the same name, as a recurring job does: the core's profile store (JoSS's job signature)
 * learns it from the first run, so the policies that use profiles (JoSS, TD, FRESH, MROSA) schedule a known
 * job, not only the paper's "no profile yet" path. Name order runs the refused-refresh test (a job under
 * {@code fair}) first. JoSS also needs the job's filtering percentage, which YARN cannot measure (map output
 * bytes never reach the RM): every run carries it as the hint tag {@value #FP_TAG}.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class EveryPolicyTest {
  /** JoSS's signature is application name + type: one name for every run makes it a recurring job. */
  private static final String JOB_NAME = "wordcount";
  /** WordCount with its combiner: a few hundred bytes of counts out of each ~400 KB split. */
  private static final String FP_TAG = "locus.fp=0.01";

  /** Only a hang guard: a healthy small job takes well under a minute even on a loaded 2-core box. */
  private static final long JOB_LIVENESS_MS = 300_000;

  private static EmbeddedCluster cluster;
  private static Corpus corpus;
  private static File datacenterMapping;

  @BeforeClass
  public static void startCluster() throws Exception {
    assumeTrue("job-level policies are Locus settings; scheduler under test is "
        + EmbeddedCluster.configuredScheduler(),
        EmbeddedCluster.LOCUS_SCHEDULER.equals(EmbeddedCluster.configuredScheduler()));
    cluster = EmbeddedCluster.start("every-policy", 4, 2, false, true);
    // 3 files of ~400 KB at 1 MB blocks: 3 maps, one per host of three different hosts.
    corpus = Corpus.write(cluster.fileSystem(), new Path("/in/every-policy"), 3, 400_000, 23,
        cluster.dataNodes(), 0, EmbeddedCluster.BLOCK_SIZE);
    // JoSS spans datacenters; the table's racks are one level deep, so each rack is named a datacenter.
    datacenterMapping = new File(cluster.rmSiteDir().getParentFile(), "datacenters.txt");
    try (PrintWriter out = new PrintWriter(datacenterMapping, StandardCharsets.UTF_8.name())) {
      for (String host : cluster.hosts()) {
        out.println(host + " dc" + cluster.rackOf(host).replace("/rack-", "-"));
      }
    }
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void fifo() throws Exception {
    runUnder(settings("locus.policy", "fifo"), "fifo");
  }

  /** JoSS classifies a job from its profile; with none it only runs the FIFO queues (its Fig. 4, lines 4-6). */
  @Test
  public void jossT() throws Exception {
    ensureProfile();
    runUnder(settings("locus.policy", "joss-t", "locus.datacenter.mapping.file", datacenterMapping.getPath()),
        "joss-t");
  }

  @Test
  public void jossJ() throws Exception {
    ensureProfile();
    runUnder(settings("locus.policy", "joss-j", "locus.datacenter.mapping.file", datacenterMapping.getPath()),
        "joss-j");
  }

  @Test
  public void td() throws Exception {
    runUnder(settings("locus.policy", "td"), "td");
  }

  /** FRESH as the paper runs it: its job order with its dynamic slot configuration (Algorithms 2-4). */
  @Test
  public void fresh() throws Exception {
    Map<String, String> s = settings("locus.policy", "fresh", "locus.slots", "fresh-dynamic");
    Map<String, String> stats = runUnder(s, "fresh");
    assertEquals("slot configurator after the refresh", "fresh-dynamic", stats.get("slots"));
  }

  /** MROSA with no public pool: every task is placed on the private cloud (the ordinary nodes). */
  @Test
  public void mrosa() throws Exception {
    runUnder(settings("locus.policy", "mrosa"), "mrosa");
  }

  /**
   * CapacityScheduler's queues: the job names queue b (mapreduce.job.queuename) and runs there; a job naming
   * a queue that is not configured is refused at submission, naming it.
   */
  @Test
  public void capacity() throws Exception {
    refreshTo(settings("locus.policy", "capacity", "locus.capacity.queues", "a:50:90,b:50:90"));
    assertEquals("capacity", coreStats().get("policy").asText());

    Job refused = WordCount.newJob(cluster.clientConf(), JOB_NAME, corpus.dir(), new Path("/out/capacity-nope"), 1);
    refused.getConfiguration().set(MRJobConfig.QUEUE_NAME, "nope");
    try {
      refused.submit();
      fail("a job naming queue nope was accepted");
    } catch (IOException e) {
      String message = String.valueOf(e.getMessage());
      assertTrue("refusal should name the queue and the configured ones: " + message,
          message.contains("unknown queue: nope") && message.contains("a, b"));
    }

    long before = coreStats().get("allocations").asLong();
    JobOutcome outcome = runWordCount("wordcount-capacity", "b");
    assertCorrect(outcome, "wordcount-capacity", before);
    // The latest application is the WordCount that just ran.
    String queue = cluster.resourceManager().getRMContext().getRMApps().values().stream()
        .max((x, y) -> x.getApplicationId().compareTo(y.getApplicationId()))
        .map(app -> app.getQueue()).orElse("no application");
    assertEquals("the RM filed the job under its queue", "root.b", queue);
  }

  /** Also fair's run: the job after the refused refresh is scheduled by fair, and checked as every policy's is. */
  @Test
  public void aBadPolicyIsRefusedAndThePreviousOneKeepsScheduling() throws Exception {
    refreshTo(settings("locus.policy", "fair"));
    assertEquals("fair", coreStats().get("policy").asText());

    writeYarnSite(settings("locus.policy", "nope"));
    try {
      refreshQueues();
      fail("refreshQueues accepted locus.policy=nope");
    } catch (Exception e) {
      String message = String.valueOf(e.getMessage());
      assertTrue("refusal should name the setting and the value: " + message,
          message.contains("locus.policy") && message.contains("nope"));
    }
    assertEquals("policy after a refused refresh", "fair", coreStats().get("policy").asText());

    long before = coreStats().get("allocations").asLong();
    JobOutcome outcome = runWordCount("after-refused-refresh");
    assertCorrect(outcome, "after-refused-refresh", before);
    // The run is recorded when the RM removes the application, a moment after the client saw it finish.
    awaitNoApps();
    assertTrue("a finished job leaves a profile; stats " + coreStats(), coreStats().get("profiles").asLong() >= 1);
    assertEquals("policy after the job", "fair", coreStats().get("policy").asText());
  }

  // ------------------------------------------------------------------ helpers

  private static Map<String, String> settings(String... keyValues) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      out.put(keyValues[i], keyValues[i + 1]);
    }
    return out;
  }

  /** Switches to {@code settings}, checks the core took them, runs one WordCount; returns the core's layer names. */
  private Map<String, String> runUnder(Map<String, String> settings, String policy) throws Exception {
    refreshTo(settings);
    JsonNode switched = coreStats();
    assertEquals("core policy after refreshQueues with " + settings + "; stats " + switched,
        policy, switched.get("policy").asText());

    long before = switched.get("allocations").asLong();
    String name = "wordcount-" + policy;
    JobOutcome outcome = runWordCount(name);
    assertCorrect(outcome, name, before);

    JsonNode after = coreStats();
    assertEquals("core policy after the job (nothing else may switch it)", policy, after.get("policy").asText());
    Map<String, String> layers = new LinkedHashMap<>();
    for (String layer : new String[] {"policy", "locality", "hotspot", "slots"}) {
      layers.put(layer, after.get(layer).asText());
    }
    return layers;
  }

  /** When this test runs alone, one run under fifo teaches the core the job's profile. */
  private void ensureProfile() throws Exception {
    awaitNoApps();
    if (coreStats().get("profiles").asLong() == 0) {
      refreshTo(settings("locus.policy", "fifo"));
      long before = coreStats().get("allocations").asLong();
      assertCorrect(runWordCount("teach-profile"), "teach-profile", before);
    }
  }

  private void refreshTo(Map<String, String> settings) throws Exception {
    awaitNoApps();
    writeYarnSite(settings);
    refreshQueues();
  }

  /**
   * Each policy starts from no jobs: its allocations are then its own, and a job the previous policy
   * admitted is not handed over mid-run (a separate concern, covered by the core's own tests).
   */
  private void awaitNoApps() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    JsonNode stats = coreStats();
    while (stats.get("apps").asLong() != 0) {
      if (System.currentTimeMillis() > deadline) {
        fail("the previous job's application never left the core; stats " + stats);
      }
      Thread.sleep(250);
      stats = coreStats();
    }
  }

  /** The operator's edit: the RM's yarn-site.xml now holds {@code settings}. */
  private static void writeYarnSite(Map<String, String> settings) throws IOException {
    Configuration site = new Configuration(false);
    settings.forEach(site::set);
    File dir = cluster.rmSiteDir();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    File tmp = new File(dir, "yarn-site.xml.tmp");
    try (OutputStream out = new FileOutputStream(tmp)) {
      site.writeXml(out);
    }
    Files.move(tmp.toPath(), new File(dir, "yarn-site.xml").toPath(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** What {@code yarn rmadmin -refreshQueues} does: one refreshQueues RPC to the RM's admin address. */
  private static void refreshQueues() throws Exception {
    ResourceManagerAdministrationProtocol admin =
        ClientRMProxy.createRMProxy(cluster.clientConf(), ResourceManagerAdministrationProtocol.class);
    try {
      admin.refreshQueues(RefreshQueuesRequest.newInstance());
    } finally {
      RPC.stopProxy(admin);
    }
  }

  private static JsonNode coreStats() {
    String json = ((LocusScheduler) cluster.resourceManager().getResourceScheduler()).getCoreStatsJson();
    try {
      return new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("getCoreStatsJson() returned malformed JSON: " + json, e);
    }
  }

  private JobOutcome runWordCount(String name) throws Exception {
    return runWordCount(name, null);
  }

  private JobOutcome runWordCount(String name, String queue) throws Exception {
    Path out = new Path("/out/" + name);
    Job job = WordCount.newJob(cluster.clientConf(), JOB_NAME, corpus.dir(), out, 1);
    job.getConfiguration().set(MRJobConfig.JOB_TAGS, FP_TAG);
    if (queue != null) {
      job.getConfiguration().set(MRJobConfig.QUEUE_NAME, queue);
    }
    long submitted = System.nanoTime();
    job.submit();
    long deadline = System.currentTimeMillis() + JOB_LIVENESS_MS;
    while (!job.isComplete()) {
      if (System.currentTimeMillis() > deadline) {
        String stats = coreStats().toString();
        String state = job.getStatus().toString();
        job.killJob();
        fail(name + " did not finish within " + JOB_LIVENESS_MS / 1000 + " s; job " + state + "; core " + stats);
      }
      Thread.sleep(500);
    }
    return JobOutcome.await(job, submitted);
  }

  private void assertCorrect(JobOutcome outcome, String name, long allocationsBefore) throws IOException {
    assertTrue(name + " failed: " + outcome, outcome.succeeded);
    assertEquals(name + " word counts", corpus.expectedCounts(),
        WordCount.readOutput(cluster.fileSystem(), new Path("/out/" + name)));
    assertTrue(name + ": a map per input file, launched " + outcome.maps, outcome.maps >= corpus.files());
    JsonNode stats = coreStats();
    long allocations = stats.get("allocations").asLong() - allocationsBefore;
    // For the test report: which placements each policy made.
    System.out.println(name + ": " + outcome + "; core allocations +" + allocations + "; core " + stats);
    // The AM, every launched map and the reduce each ran in a container the core chose.
    long containers = outcome.maps + outcome.reduces + 1;
    assertTrue(name + ": core allocations grew by " + allocations + " < " + containers
        + " containers the job ran; " + outcome + "; stats " + stats, allocations >= containers);
  }
}
