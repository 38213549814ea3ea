package org.locus.it;

import java.io.IOException;

import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;

/** What one finished MapReduce job did, read from its own counters. */
public final class JobOutcome {
  public final String jobId;
  public final String name;
  public final boolean succeeded;
  public final long maps;
  public final long reduces;
  public final long nodeLocalMaps;
  public final long rackLocalMaps;
  public final long offSwitchMaps;
  public final long failedMaps;
  public final long killedMaps;
  public final double turnaroundSeconds;
  /** The RM's submit and finish times of the job's application (ms since the epoch); 0 when timed by the client. */
  public final long submitMillis;
  public final long finishMillis;

  private JobOutcome(Job job, boolean succeeded, Counters c, double turnaroundSeconds) {
    this(job, succeeded, c, turnaroundSeconds, 0, 0);
  }

  private JobOutcome(Job job, boolean succeeded, Counters c, double turnaroundSeconds, long submitMillis,
      long finishMillis) {
    this.jobId = String.valueOf(job.getJobID());
    this.name = job.getJobName();
    this.succeeded = succeeded;
    this.maps = value(c, JobCounter.TOTAL_LAUNCHED_MAPS);
    this.reduces = value(c, JobCounter.TOTAL_LAUNCHED_REDUCES);
    this.nodeLocalMaps = value(c, JobCounter.DATA_LOCAL_MAPS);
    this.rackLocalMaps = value(c, JobCounter.RACK_LOCAL_MAPS);
    this.offSwitchMaps = value(c, JobCounter.OTHER_LOCAL_MAPS);
    this.failedMaps = value(c, JobCounter.NUM_FAILED_MAPS);
    this.killedMaps = value(c, JobCounter.NUM_KILLED_MAPS);
    this.turnaroundSeconds = turnaroundSeconds;
    this.submitMillis = submitMillis;
    this.finishMillis = finishMillis;
  }

  private static long value(Counters c, JobCounter which) {
    return c == null ? 0 : c.findCounter(which).getValue();
  }

  /** Submits the job, waits for it, and reads its counters (from the history server once the AM is gone). */
  public static JobOutcome run(Job job) throws IOException, InterruptedException {
    long start = System.nanoTime();
    boolean ok = waitFor(job);
    double seconds = (System.nanoTime() - start) / 1e9;
    return new JobOutcome(job, ok, job.getCounters(), seconds);
  }

  private static boolean waitFor(Job job) throws IOException, InterruptedException {
    try {
      return job.waitForCompletion(false);
    } catch (ClassNotFoundException e) {
      throw new IOException("job " + job.getJobName() + " names a class missing from the classpath", e);
    }
  }

  /** For a job submitted earlier with {@link Job#submit()}; turnaround counts from {@code submittedNanos}. */
  public static JobOutcome await(Job job, long submittedNanos) throws IOException, InterruptedException {
    boolean ok = waitFor(job);
    double seconds = (System.nanoTime() - submittedNanos) / 1e9;
    return new JobOutcome(job, ok, job.getCounters(), seconds);
  }

  /**
   * A finished job timed by the RM: turnaround from its application's submit time to its finish time, the
   * same clock for every scheduler and every way of submitting (a Tool that computes first, or {@code submit()}).
   */
  public static JobOutcome finished(Job job, long submitMillis, long finishMillis) throws IOException,
      InterruptedException {
    if (!job.isComplete()) {
      throw new IllegalStateException("job " + job.getJobID() + " (" + job.getJobName() + ") has not finished");
    }
    if (finishMillis < submitMillis || submitMillis <= 0) {
      throw new IllegalStateException("job " + job.getJobID() + ": RM times submit=" + submitMillis + " finish="
          + finishMillis);
    }
    return new JobOutcome(job, job.isSuccessful(), job.getCounters(), (finishMillis - submitMillis) / 1e3,
        submitMillis, finishMillis);
  }

  @Override
  public String toString() {
    return String.format("%s %s %s maps=%d reduces=%d local=%d/%d/%d %.1fs", jobId, name,
        succeeded ? "SUCCEEDED" : "FAILED", maps, reduces, nodeLocalMaps, rackLocalMaps, offSwitchMaps,
        turnaroundSeconds);
  }
}
