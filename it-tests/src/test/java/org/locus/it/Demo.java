package org.locus.it;

import java.io.File;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

/**
 * The demo: one batch of real MapReduce jobs (the project's WordCount and Hadoop's own examples 3.4.2:
 * wordcount, teragen, terasort) run twice on one embedded 4-host, 2-rack cluster, under Locus's default
 * configuration and under Hadoop's CapacityScheduler with Hadoop 3.5.0's defaults, then one table with both.
 *
 * <p>Both runs see the same conditions: one MiniDFSCluster holds the input for both (written once, each file's
 * blocks on a chosen host), and YARN (RM, history server, NodeManagers on the same host names and racks) is
 * started afresh for each scheduler with the same settings apart from the scheduler. Regenerating the input
 * per run would not do: TeraGen's blocks land on random DataNodes. Locus runs first (unless {@value #FIRST} is
 * capacity), so whatever the second run gains from a warm NameNode/DataNode JVM goes to CapacityScheduler.
 *
 * <p>{@value #BATCH_CHOICE} picks the batch: {@code default} (the one above) or {@code heavy} (a few big
 * TeraSorts and many small WordCounts submitted together, where the order jobs are served in matters); the
 * table is the same for both.
 *
 * <p>Exits non-zero when a job fails or produces a wrong output under either scheduler.
 */
public final class Demo {
  static final String CAPACITY_SCHEDULER =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";
  private static final String EXAMPLES = "examples";
  private static final String PROJECT = "locus-it";
  private static final long TERAGEN_ROWS = 30_000;
  /** The embedded cluster: hosts and racks (EmbeddedCluster deals hosts to racks in contiguous groups). */
  static final int HOSTS = 4;
  static final int RACKS = 2;
  /** TeraSort's input: GenSort rows per file (TeraInput.RECORD bytes each). */
  static final long TERA_ROWS_PER_FILE = 10_000;

  /**
   * One input directory: {@code files} files of about {@code bytesPerFile} bytes (Corpus writes whole lines until
   * it reaches it), file i on host {@code (i + firstHost) % HOSTS}; {@code seed} draws a corpus's words.
   */
  static final class InputSpec {
    final String name;
    final int files;
    final long bytesPerFile;
    final int firstHost;
    final long seed;

    InputSpec(String name, int files, long bytesPerFile, int firstHost, long seed) {
      this.name = name;
      this.files = files;
      this.bytesPerFile = bytesPerFile;
      this.firstHost = firstHost;
      this.seed = seed;
    }
  }

  /** Which program a job of the batch runs. */
  enum Kind {
    /** The project's WordCount. */
    PROJECT_WORDCOUNT,
    /** hadoop-mapreduce-examples' wordcount. */
    EXAMPLE_WORDCOUNT,
    /** hadoop-mapreduce-examples' terasort over a TeraSort input. */
    TERASORT,
    /** hadoop-mapreduce-examples' teragen (reads no input). */
    TERAGEN
  }

  /** A job of the batch: the input it reads (null: none, then {@code maps} maps) and its reduces. */
  static final class JobSpec {
    final String name;
    final Kind kind;
    final String input;
    final int maps;
    final int reduces;

    JobSpec(String name, Kind kind, String input, int maps, int reduces) {
      this.name = name;
      this.kind = kind;
      this.input = input;
      this.maps = maps;
      this.reduces = reduces;
    }
  }

  /** A batch the demo can run: its inputs (written once, before both runs) and its jobs in submission order. */
  static final class Batch {
    final String name;
    final List<InputSpec> inputs;
    final List<JobSpec> jobs;

    Batch(String name, List<InputSpec> inputs, List<JobSpec> jobs) {
      this.name = name;
      this.inputs = inputs;
      this.jobs = jobs;
    }
  }

  /**
   * The inputs and the batch in submission order. sim/workloads/demo.json is the simulator's copy
   * (docs/results/sim-validation.md); DemoWorkloadFileTest keeps the two equal.
   */
  static final List<InputSpec> INPUTS = List.of(
      new InputSpec("small", 2, 600_000, 0, 101),
      new InputSpec("medium", 4, 900_000, 1, 102),
      new InputSpec("wide", 4, 500_000, 3, 104),
      new InputSpec("tera", 4, TERA_ROWS_PER_FILE * TeraInput.RECORD, 2, 0));
  static final List<JobSpec> BATCH = List.of(
      new JobSpec("wc-small", Kind.PROJECT_WORDCOUNT, "small", 0, 1),
      new JobSpec("wc-medium", Kind.PROJECT_WORDCOUNT, "medium", 0, 1),
      new JobSpec("wc-wide", Kind.PROJECT_WORDCOUNT, "wide", 0, 2),
      new JobSpec("ex-wordcount", Kind.EXAMPLE_WORDCOUNT, "medium", 0, 1),
      new JobSpec("ex-terasort", Kind.TERASORT, "tera", 0, 1),
      new JobSpec("ex-teragen", Kind.TERAGEN, null, 2, 0));

  /** Files of each big TeraSort input in the heavy batch: one block, so one map, per file. */
  static final int HEAVY_TERA_FILES = 16;
  /** Big TeraSorts and small WordCounts in the heavy batch. */
  static final int HEAVY_TERASORTS = 3;
  static final int HEAVY_WORDCOUNTS = 10;

  /**
   * The heavy batch: {@value #HEAVY_TERASORTS} big TeraSorts ({@value #HEAVY_TERA_FILES} one-block files each, so
   * {@value #HEAVY_TERA_FILES} maps), then {@value #HEAVY_WORDCOUNTS} small WordCounts (1 or 2 files each), all
   * submitted back to back. Together they ask for more memory than the cluster has, so the order in which the
   * scheduler serves them decides how long the small jobs wait; the big ones go first because that is the order in
   * which a first-come queue holds the small ones longest. Inputs are placed as the default batch's are (file i on
   * host (i + firstHost) mod hosts), each TeraSort input starting on another host.
   */
  static final List<InputSpec> HEAVY_INPUTS;
  static final List<JobSpec> HEAVY_BATCH;

  static {
    List<InputSpec> inputs = new ArrayList<>();
    List<JobSpec> jobs = new ArrayList<>();
    for (int i = 1; i <= HEAVY_TERASORTS; i++) {
      inputs.add(new InputSpec("tera-" + i, HEAVY_TERA_FILES, TERA_ROWS_PER_FILE * TeraInput.RECORD, i - 1, 0));
      jobs.add(new JobSpec("ts-big-" + i, Kind.TERASORT, "tera-" + i, 0, 1));
    }
    for (int i = 1; i <= HEAVY_WORDCOUNTS; i++) {
      String name = String.format("wc-%02d", i);
      inputs.add(new InputSpec(name, 1 + (i + 1) % 2, 300_000, i % HOSTS, 200 + i));
      jobs.add(new JobSpec(name, Kind.PROJECT_WORDCOUNT, name, 0, 1));
    }
    HEAVY_INPUTS = List.copyOf(inputs);
    HEAVY_BATCH = List.copyOf(jobs);
  }

  /** The batches by name; the first is the default. */
  static final Map<String, Batch> BATCHES;

  static {
    Map<String, Batch> b = new LinkedHashMap<>();
    b.put("default", new Batch("default", INPUTS, BATCH));
    b.put("heavy", new Batch("heavy", HEAVY_INPUTS, HEAVY_BATCH));
    BATCHES = java.util.Collections.unmodifiableMap(b);
  }

  /** System property: which batch to run, default or heavy (Gradle: -Plocus.demo.batch=...). */
  static final String BATCH_CHOICE = "locus.demo.batch";
  /** System property: CapacityScheduler settings over the defaults (Gradle: -Plocus.demo.capacity=...). */
  static final String CAPACITY_OVERRIDES = "locus.demo.capacity";
  /** System property: Locus settings for the Locus run, {@code locus.key=value[,...]} (Gradle: -Plocus.demo.locus=...). */
  static final String LOCUS_OVERRIDES = "locus.demo.locus";
  /** System property: which scheduler runs the batch first, locus (default) or capacity (-Plocus.demo.first=...). */
  static final String FIRST = "locus.demo.first";

  /** What one job of the batch is and how it is submitted and checked; one instance per run. */
  private abstract static class DemoJob {
    final String name;
    final String source;
    final boolean readsInput;
    Job job;
    ApplicationId app;

    DemoJob(String name, String source, boolean readsInput) {
      this.name = name;
      this.source = source;
      this.readsInput = readsInput;
    }

    /** Returns once the RM has accepted the job, so the batch's submission order is the same every run. */
    abstract void submit(EmbeddedCluster cluster, Path out) throws Exception;

    /** Null when the finished job's output is right, else what is wrong. */
    abstract String check(FileSystem fs, Path out) throws Exception;

    /** Waits for a Tool-submitted job's tool to return; nothing for a job submitted directly. */
    void join() throws Exception {}
  }

  /** The project's WordCount over a {@link Corpus}. */
  private static final class ProjectWordCount extends DemoJob {
    final Corpus corpus;
    final int reduces;

    ProjectWordCount(String name, Corpus corpus, int reduces) {
      super(name, PROJECT, true);
      this.corpus = corpus;
      this.reduces = reduces;
    }

    @Override
    void submit(EmbeddedCluster cluster, Path out) throws Exception {
      job = WordCount.newJob(cluster.clientConf(), name, corpus.dir(), out, reduces);
      job.submit();
      app = TypeConverter.toYarn(job.getJobID()).getAppId();
    }

    @Override
    String check(FileSystem fs, Path out) throws Exception {
      return corpus.expectedCounts().equals(WordCount.readOutput(fs, out)) ? null : "WRONG counts in " + out;
    }
  }

  /**
   * hadoop-mapreduce-examples' wordcount: its own mapper and reducer classes in the job its {@code main} builds
   * ({@code main} itself ends in System.exit, so the demo cannot call it).
   */
  private static final class ExampleWordCount extends DemoJob {
    final Corpus corpus;

    final int reduces;

    ExampleWordCount(String name, Corpus corpus, int reduces) {
      super(name, EXAMPLES, true);
      this.corpus = corpus;
      this.reduces = reduces;
    }

    @Override
    void submit(EmbeddedCluster cluster, Path out) throws Exception {
      job = Job.getInstance(cluster.clientConf(), "word count");
      job.setJarByClass(org.apache.hadoop.examples.WordCount.class);
      job.setMapperClass(org.apache.hadoop.examples.WordCount.TokenizerMapper.class);
      job.setCombinerClass(org.apache.hadoop.examples.WordCount.IntSumReducer.class);
      job.setReducerClass(org.apache.hadoop.examples.WordCount.IntSumReducer.class);
      job.setOutputKeyClass(Text.class);
      job.setOutputValueClass(IntWritable.class);
      FileInputFormat.addInputPath(job, corpus.dir());
      FileOutputFormat.setOutputPath(job, out);
      // main leaves mapreduce.job.reduces at its default, 1; set from the batch so the simulator's copy holds.
      job.setNumReduceTasks(reduces);
      job.submit();
      app = TypeConverter.toYarn(job.getJobID()).getAppId();
    }

    @Override
    String check(FileSystem fs, Path out) throws Exception {
      return corpus.expectedCounts().equals(WordCount.readOutput(fs, out)) ? null : "WRONG counts in " + out;
    }
  }

  /** An examples Tool (teragen, terasort) run as {@code yarn jar hadoop-mapreduce-examples-3.4.2.jar} would. */
  private static final class ExampleTool extends DemoJob {
    final String jobName;
    final java.util.function.Supplier<Tool> tool;
    final java.util.function.Function<Path, String[]> args;
    final java.util.function.BiFunction<FileSystem, Path, String> checker;
    final ExecutorService threads;
    Future<Integer> exit;

    ExampleTool(String name, String jobName, boolean readsInput, java.util.function.Supplier<Tool> tool,
        java.util.function.Function<Path, String[]> args, java.util.function.BiFunction<FileSystem, Path, String> checker,
        ExecutorService threads) {
      super(name, EXAMPLES, readsInput);
      this.jobName = jobName;
      this.tool = tool;
      this.args = args;
      this.checker = checker;
      this.threads = threads;
    }

    @Override
    void submit(EmbeddedCluster cluster, Path out) throws Exception {
      Configuration conf = cluster.clientConf();
      ResourceManager rm = cluster.resourceManager();
      Set<ApplicationId> before = new HashSet<>(rm.getRMContext().getRMApps().keySet());
      exit = threads.submit(() -> ToolRunner.run(conf, tool.get(), args.apply(out)));
      // The tool submits after its own client-side work (TeraSort samples its input for the partitions).
      long deadline = System.currentTimeMillis() + 180_000;
      while (app == null) {
        for (RMApp a : rm.getRMContext().getRMApps().values()) {
          if (!before.contains(a.getApplicationId()) && jobName.equals(a.getName())) {
            app = a.getApplicationId();
          }
        }
        if (app == null) {
          if (exit.isDone()) {
            throw new IllegalStateException(name + " ended (exit " + exit.get() + ") without submitting a job");
          }
          if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException(name + " did not submit a job named " + jobName + " within 180 s");
          }
          Thread.sleep(100);
        }
      }
      job = new Cluster(conf).getJob(TypeConverter.fromYarn(app));
      if (job == null) {
        throw new IllegalStateException("the job of " + app + " (" + name + ") is unknown to the client");
      }
    }

    @Override
    void join() throws Exception {
      int code = exit.get();
      if (code != 0) {
        throw new IllegalStateException(name + " exited " + code);
      }
    }

    @Override
    String check(FileSystem fs, Path out) {
      return checker.apply(fs, out);
    }
  }

  /** One scheduler's run of the batch. */
  private static final class Run {
    final String key;
    final String label;
    final String scheduler;
    final Map<String, String> settings;
    final List<Comparison.Row> rows = new ArrayList<>();
    String coreStats = "";

    Run(String key, String label, String scheduler, Map<String, String> settings) {
      this.key = key;
      this.label = label;
      this.scheduler = scheduler;
      this.settings = settings;
    }
  }

  private Demo() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run();
    } catch (Throwable t) {
      System.err.println("demo failed: " + t);
      t.printStackTrace();
      status = 2;
    }
    // Hadoop leaves non-daemon threads behind; the verdict is already printed.
    System.exit(status);
  }

  /**
   * Hadoop 3.5.0's CapacityScheduler as installed: the capacity-scheduler.xml Hadoop ships (one queue, default,
   * at 100 %; maximum-am-resource-percent 0.1; DefaultResourceCalculator; node-locality-delay 40,
   * rack-locality-additional-delay -1; one off-switch container per heartbeat) and the code defaults it does not
   * override (asynchronous scheduling on, CapacitySchedulerConfiguration.DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE).
   * Set explicitly because Hadoop's test jars on this classpath carry their own capacity-scheduler.xml (one
   * with node-locality-delay -1, both with asynchronous scheduling off).
   */
  static Map<String, String> capacitySchedulerDefaults() {
    Map<String, String> cs = new LinkedHashMap<>();
    String p = "yarn.scheduler.capacity.";
    cs.put(p + "maximum-applications", "10000");
    cs.put(p + "maximum-am-resource-percent", "0.1");
    cs.put(p + "resource-calculator", "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator");
    cs.put(p + "root.queues", "default");
    cs.put(p + "root.default.capacity", "100");
    cs.put(p + "root.default.user-limit-factor", "1");
    cs.put(p + "root.default.maximum-capacity", "100");
    cs.put(p + "root.default.state", "RUNNING");
    cs.put(p + "node-locality-delay", "40");
    cs.put(p + "rack-locality-additional-delay", "-1");
    cs.put(p + "per-node-heartbeat.maximum-offswitch-assignments", "1");
    cs.put(p + "schedule-asynchronously.enable", "true");
    return cs;
  }

  /**
   * Parses {@value #CAPACITY_OVERRIDES}, {@code key=value[,key=value]} with keys after
   * {@code yarn.scheduler.capacity.}, into full keys; fails naming the bad entry.
   */
  static Map<String, String> capacityOverrides(String spec) {
    Map<String, String> out = new LinkedHashMap<>();
    keyValues(CAPACITY_OVERRIDES, spec, key -> !key.isEmpty() && !key.startsWith("yarn."),
        "key=value with a key after yarn.scheduler.capacity. (e.g. maximum-am-resource-percent=0.2)")
        .forEach((k, v) -> out.put("yarn.scheduler.capacity." + k, v));
    return out;
  }

  /** The batch {@value #BATCH_CHOICE} names (blank: the default); an unknown name fails naming it and the choices. */
  static Batch batch(String spec) {
    String name = spec.trim().isEmpty() ? "default" : spec.trim();
    Batch b = BATCHES.get(name);
    if (b == null) {
      throw new IllegalArgumentException(BATCH_CHOICE + ": '" + spec + "' is not one of " + BATCHES.keySet());
    }
    return b;
  }

  /**
   * Parses {@value #LOCUS_OVERRIDES}, {@code locus.key=value[,...]}, for the Locus run (e.g.
   * {@code locus.scheduling.mode=heartbeat}); fails naming the bad entry. The core checks the values themselves.
   */
  static Map<String, String> locusOverrides(String spec) {
    return keyValues(LOCUS_OVERRIDES, spec,
        key -> key.startsWith("locus.") && key.length() > "locus.".length(),
        "locus.key=value (e.g. locus.scheduling.mode=heartbeat)");
  }

  /** {@code key=value[,...]} of system property {@code property}; an entry that is not one fails naming it. */
  private static Map<String, String> keyValues(String property, String spec,
      java.util.function.Predicate<String> keyOk, String expected) {
    Map<String, String> out = new LinkedHashMap<>();
    if (spec.trim().isEmpty()) {
      return out;
    }
    for (String entry : spec.split(",")) {
      int eq = entry.indexOf('=');
      String key = eq < 0 ? "" : entry.substring(0, eq).trim();
      String value = eq < 0 ? "" : entry.substring(eq + 1).trim();
      if (!keyOk.test(key) || value.isEmpty()) {
        throw new IllegalArgumentException(property + ": '" + entry + "' is not " + expected);
      }
      out.put(key, value);
    }
    return out;
  }

  private static String shortKeys(Map<String, String> overrides) {
    List<String> parts = new ArrayList<>();
    overrides.forEach((k, v) -> parts.add(k.substring("yarn.scheduler.capacity.".length()) + "=" + v));
    return String.join(", ", parts);
  }

  private static int run() throws Exception {
    quietJavaUtilLogging();
    Batch batch = batch(System.getProperty(BATCH_CHOICE, ""));
    List<Run> runs = new ArrayList<>();
    // Locus first by default: any warm-up the second run enjoys goes to the baseline.
    Map<String, String> locusSettings = locusOverrides(System.getProperty(LOCUS_OVERRIDES, ""));
    runs.add(new Run("locus", locusSettings.isEmpty() ? "Locus default (fsp + delay)"
        : "Locus default (fsp + delay) but " + locusSettings.toString().replaceAll("[{}]", ""),
        EmbeddedCluster.LOCUS_SCHEDULER, locusSettings));
    Map<String, String> overrides = capacityOverrides(System.getProperty(CAPACITY_OVERRIDES, ""));
    Map<String, String> cs = capacitySchedulerDefaults();
    cs.putAll(overrides);
    String first = System.getProperty(FIRST, "locus");
    if (!first.equals("locus") && !first.equals("capacity")) {
      throw new IllegalArgumentException(FIRST + " must be locus or capacity, got '" + first + "'");
    }
    runs.add(new Run("capacity", overrides.isEmpty() ? "CapacityScheduler (3.5.0 defaults)"
        : "CapacityScheduler (3.5.0 defaults but " + shortKeys(overrides) + ")", CAPACITY_SCHEDULER, cs));
    Run locus = runs.get(0);
    Run capacity = runs.get(1);
    if (first.equals("capacity")) {
      java.util.Collections.reverse(runs);
    }
    System.out.println("Starting embedded HDFS (4 DataNodes on 2 racks); the batch then runs under "
        + runs.get(0).label + ", then " + runs.get(1).label + ", each on a fresh YARN over the same HDFS ...");
    ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "demo-tool");
      t.setDaemon(true);
      return t;
    });
    try (EmbeddedCluster cluster = EmbeddedCluster.startHdfs("demo", HOSTS, RACKS)) {
      DistributedFileSystem fs = cluster.fileSystem();
      long block = EmbeddedCluster.BLOCK_SIZE;
      Map<String, Corpus> corpora = new LinkedHashMap<>();
      Map<String, TeraInput> teraInputs = new LinkedHashMap<>();
      for (InputSpec in : batch.inputs) {
        Path dir = new Path("/demo/in/" + in.name);
        if (in.name.startsWith("tera")) {
          teraInputs.put(in.name, TeraInput.write(fs, dir, in.files, in.bytesPerFile / TeraInput.RECORD,
              cluster.dataNodes(), in.firstHost, block,
              new File(System.getProperty("locus.it.work.dir", "build/demo-cluster"), "gensort")));
        } else {
          corpora.put(in.name, Corpus.write(fs, dir, in.files, in.bytesPerFile, in.seed, cluster.dataNodes(),
              in.firstHost, block));
        }
      }
      List<Path> dirs = new ArrayList<>();
      corpora.values().forEach(c -> dirs.add(c.dir()));
      teraInputs.values().forEach(t -> dirs.add(t.dir()));
      System.out.println("Cluster: " + cluster.hosts().size() + " nodes " + racksLine(cluster)
          + "; HDFS block 1 MB, replication 1; containers 256 MB (maps, reduces), 512 MB (AMs), 4096 MB per node.");
      System.out.println(describeBlocks(cluster, dirs));
      System.out.println(describeBatch(batch, teraInputs));

      for (Run run : runs) {
        List<DemoJob> jobs = new ArrayList<>();
        for (JobSpec spec : batch.jobs) {
          jobs.add(demoJob(spec, corpora, teraInputs, threads));
        }
        runBatch(cluster, run, jobs);
      }

      Run a = capacity;
      Run b = locus;
      List<String> sources = new ArrayList<>();
      for (JobSpec spec : batch.jobs) {
        sources.add(spec.kind == Kind.PROJECT_WORDCOUNT ? PROJECT : EXAMPLES);
      }
      System.out.println();
      if (!overrides.isEmpty()) {
        System.out.println("CapacityScheduler run: Hadoop 3.5.0's defaults except " + shortKeys(overrides));
      }
      System.out.print(Comparison.table(a.label, a.rows, b.label, b.rows, sources));
      System.out.println();
      System.out.println("node/rack/off: the job's DATA_LOCAL_MAPS / RACK_LOCAL_MAPS / OTHER_LOCAL_MAPS counters;"
          + " turnaround: the RM's submit to finish time of the job's application.");
      System.out.println("Locus core counters (every container, AMs and reduces too): " + b.coreStats);
      List<String> failures = new ArrayList<>(Comparison.failures(a.label, a.rows));
      failures.addAll(Comparison.failures(b.label, b.rows));
      int jobs = a.rows.size() + b.rows.size();
      System.out.println(failures.isEmpty()
          ? "RESULT: all " + jobs + " jobs (" + a.rows.size() + " per scheduler) succeeded with correct output."
          : "RESULT: FAILED - " + String.join("; ", failures));
      return failures.isEmpty() ? 0 : 1;
    } finally {
      threads.shutdownNow();
    }
  }

  /** What the batch is, as the run prints it before the first job. */
  private static String describeBatch(Batch batch, Map<String, TeraInput> tera) {
    if (batch.name.equals("default")) {
      return "Batch, submitted back to back in this order: wc-small, wc-medium, wc-wide (the project's"
          + " WordCount), ex-wordcount (examples' wordcount over wc-medium's input), ex-terasort ("
          + tera.get("tera").rows() + " rows), ex-teragen (" + TERAGEN_ROWS + " rows, reads no input).";
    }
    List<String> parts = new ArrayList<>();
    for (JobSpec j : batch.jobs) {
      InputSpec in = batch.inputs.stream().filter(i -> i.name.equals(j.input)).findFirst().orElseThrow();
      parts.add(j.name + " (" + (j.kind == Kind.TERASORT ? "examples' terasort, " : "the project's WordCount, ")
          + in.files + (in.files == 1 ? " file" : " files") + ")");
    }
    return "Batch '" + batch.name + "', submitted back to back in this order: " + String.join(", ", parts) + ".";
  }

  /** The DemoJob that runs {@code spec} (a fresh one per run). */
  private static DemoJob demoJob(JobSpec spec, Map<String, Corpus> corpora, Map<String, TeraInput> teraInputs,
      ExecutorService threads) {
    switch (spec.kind) {
      case EXAMPLE_WORDCOUNT:
        return new ExampleWordCount(spec.name, corpus(spec, corpora), spec.reduces);
      case TERASORT:
        TeraInput tera = teraInputs.get(spec.input);
        if (tera == null) {
          throw new IllegalArgumentException(spec.name + " reads unknown TeraSort input " + spec.input);
        }
        return new ExampleTool(spec.name, "TeraSort", true, TeraSort::new,
            out -> new String[] {"-Dmapreduce.job.reduces=" + spec.reduces, tera.dir().toString(), out.toString()},
            (f, out) -> uncheck(() -> TeraInput.checkSorted(f, out, tera.rows())), threads);
      case TERAGEN:
        return new ExampleTool(spec.name, "TeraGen", false, TeraGen::new,
            out -> new String[] {"-Dmapreduce.job.maps=" + spec.maps, String.valueOf(TERAGEN_ROWS), out.toString()},
            (f, out) -> uncheck(() -> TeraInput.checkGenerated(f, out, TERAGEN_ROWS)), threads);
      default:
        return new ProjectWordCount(spec.name, corpus(spec, corpora), spec.reduces);
    }
  }

  private static Corpus corpus(JobSpec spec, Map<String, Corpus> corpora) {
    Corpus corpus = corpora.get(spec.input);
    if (corpus == null) {
      throw new IllegalArgumentException(spec.name + " reads unknown input " + spec.input);
    }
    return corpus;
  }

  private interface IoCall {
    String call() throws Exception;
  }

  private static String uncheck(IoCall c) {
    try {
      return c.call();
    } catch (Exception e) {
      return "cannot read output: " + e;
    }
  }

  private static void runBatch(EmbeddedCluster cluster, Run run, List<DemoJob> batch) throws Exception {
    System.out.println();
    System.out.println("[" + run.label + "] starting YARN with " + run.scheduler + " ...");
    long t0 = System.nanoTime();
    cluster.startYarn(run.scheduler, run.settings);
    try {
      System.out.println("[" + run.label + "] " + describeNodes(cluster) + "; running the batch ...");
      Path root = new Path("/demo/" + run.key + "/out");
      for (DemoJob j : batch) {
        try {
          j.submit(cluster, new Path(root, j.name));
        } catch (Exception e) {
          System.out.println("[" + run.label + "] " + j.name + " was not submitted: " + e);
        }
      }
      ResourceManager rm = cluster.resourceManager();
      for (DemoJob j : batch) {
        run.rows.add(finish(cluster.fileSystem(), rm, new Path(root, j.name), j));
      }
      if (cluster.runsLocus()) {
        run.coreStats = String.valueOf(cluster.coreStats());
      }
    } finally {
      cluster.stopYarn();
    }
    System.out.printf("[%s] done in %.0f s (wall clock, YARN start and stop included)%n", run.label,
        (System.nanoTime() - t0) / 1e9);
  }

  private static Comparison.Row finish(FileSystem fs, ResourceManager rm, Path out, DemoJob j) {
    if (j.job == null || j.app == null) {
      return Comparison.Row.failed(j.name, j.readsInput, "NOT SUBMITTED");
    }
    try {
      while (!j.job.isComplete()) {
        Thread.sleep(500);
      }
      j.join();
      RMApp app = rm.getRMContext().getRMApps().get(j.app);
      long deadline = System.currentTimeMillis() + 60_000;
      while (app.getFinishTime() <= 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      JobOutcome o = JobOutcome.finished(j.job, app.getSubmitTime(), app.getFinishTime());
      String wrong = o.succeeded ? j.check(fs, out) : "FAILED";
      return Comparison.Row.of(j.name, j.readsInput, o, wrong == null ? "ok" : wrong);
    } catch (Exception e) {
      return Comparison.Row.failed(j.name, j.readsInput, "ERROR " + e);
    }
  }

  /**
   * Jersey/Guice inside the RM and NM web apps log through java.util.logging, whose default handler writes
   * to stderr; send those records to a file next to Hadoop's log instead.
   */
  static void quietJavaUtilLogging() throws java.io.IOException {
    java.util.logging.LogManager.getLogManager().reset();
    java.io.File dir = new java.io.File(System.getProperty("locus.it.log.dir", "build/it-logs"));
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new java.io.IOException("cannot create log dir " + dir);
    }
    java.util.logging.FileHandler file =
        new java.util.logging.FileHandler(new java.io.File(dir, "demo-jul.log").getPath(), true);
    file.setFormatter(new java.util.logging.SimpleFormatter());
    java.util.logging.Logger.getLogger("").addHandler(file);
  }

  /** Which hosts hold the input's blocks, checked rather than assumed. */
  private static String describeBlocks(EmbeddedCluster cluster, List<Path> inputs) throws Exception {
    Map<String, Integer> blocksByHost = new java.util.TreeMap<>();
    for (Path dir : inputs) {
      for (FileStatus f : cluster.fileSystem().listStatus(dir)) {
        for (BlockLocation b : cluster.fileSystem().getFileBlockLocations(f, 0, f.getLen())) {
          for (String h : b.getHosts()) {
            blocksByHost.merge(h, 1, Integer::sum);
          }
        }
      }
    }
    boolean spread = blocksByHost.size() > 1 && cluster.hosts().containsAll(blocksByHost.keySet());
    return (spread ? "Input blocks per host (one replica each): "
        : "Input blocks do NOT spread over the node hosts - locality below means nothing: ") + blocksByHost;
  }

  /** Checks that the RM's nodes are the block hosts, so node-local means one host. */
  private static String describeNodes(EmbeddedCluster cluster) {
    Set<String> nodeHosts = new TreeSet<>();
    for (RMNode n : cluster.resourceManager().getRMContext().getRMNodes().values()) {
      nodeHosts.add(n.getHostName());
    }
    return nodeHosts.equals(new TreeSet<>(cluster.hosts()))
        ? "locality is REAL: " + nodeHosts.size() + " nodes, each its own host " + nodeHosts
        : "locality is TRIVIAL: RM nodes " + nodeHosts + " vs hosts " + cluster.hosts();
  }

  private static String racksLine(EmbeddedCluster cluster) {
    Map<String, List<String>> byRack = new java.util.TreeMap<>();
    for (String h : cluster.hosts()) {
      byRack.computeIfAbsent(cluster.rackOf(h), r -> new ArrayList<>()).add(h);
    }
    return "on " + byRack.size() + " racks " + byRack;
  }
}
