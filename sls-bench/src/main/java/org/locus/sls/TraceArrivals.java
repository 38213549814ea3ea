package org.locus.sls;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.tools.rumen.JobTraceReader;
import org.apache.hadoop.tools.rumen.LoggedJob;

/**
 * When each job of a Rumen trace arrives, in ms after the trace's first submission: what SLS
 * 3.4.3 loses. Its AMRunner passes a baseline of 0 for Rumen traces and
 * AMDefinitionRumen.Builder then takes each job's own submit time as its baseline, so every job
 * gets start time 0 and all AMs start in the first second whatever the trace says.
 */
final class TraceArrivals {
  /** Per job id: submit and finish time, ms after the first job's submission. */
  private final Map<String, long[]> offsetMs;

  private TraceArrivals(Map<String, long[]> offsetMs) {
    this.offsetMs = offsetMs;
  }

  /** Reads every job's id and submit time (one job in memory at a time). */
  static TraceArrivals read(String rumenTrace) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    Map<String, long[]> times = new HashMap<>();
    long first = Long.MAX_VALUE;
    try (JobTraceReader r = new JobTraceReader(new Path(rumenTrace), conf)) {
      LoggedJob job;
      while ((job = r.getNext()) != null) {
        String id = String.valueOf(job.getJobID());
        if (times.put(id, new long[] {job.getSubmitTime(), job.getFinishTime()}) != null) {
          throw new IOException(rumenTrace + ": job " + id + " appears twice");
        }
        first = Math.min(first, job.getSubmitTime());
      }
    }
    if (times.isEmpty()) {
      throw new IOException(rumenTrace + ": no job");
    }
    for (long[] t : times.values()) {
      t[0] -= first;
      t[1] -= first;
    }
    return new TraceArrivals(times);
  }

  /** The job's arrival, ms after the first job's; a job the trace does not name is an error. */
  long offsetMs(String jobId) {
    return times(jobId)[0];
  }

  /** When the trace says the job finished, ms after the first job's submission. */
  long finishOffsetMs(String jobId) {
    return times(jobId)[1];
  }

  private long[] times(String jobId) {
    long[] t = offsetMs.get(jobId);
    if (t == null) {
      throw new IllegalStateException("job " + jobId + " is not in the Rumen trace");
    }
    return t;
  }

  int jobs() {
    return offsetMs.size();
  }
}
