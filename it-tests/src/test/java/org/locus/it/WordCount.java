package org.locus.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.StringTokenizer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/** Our own WordCount: whitespace-separated tokens, summed per word (the examples jar is not published for 3.5.0). */
public final class WordCount {
  /**
   * Milliseconds each map task idles before reading its split. Lets a test act (stop a NodeManager, restart
   * the RM) while maps are demonstrably running, instead of racing a job that finishes in seconds.
   */
  public static final String MAP_PAUSE_MS = "locus.it.wordcount.map.pause.ms";

  private WordCount() {}

  public static class TokenMapper extends Mapper<LongWritable, Text, Text, LongWritable> {
    private static final LongWritable ONE = new LongWritable(1);
    private final Text word = new Text();

    @Override
    protected void setup(Context context) throws IOException, InterruptedException {
      long pause = context.getConfiguration().getLong(MAP_PAUSE_MS, 0);
      if (pause > 0) {
        Thread.sleep(pause);
      }
    }

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      StringTokenizer tokens = new StringTokenizer(line.toString());
      while (tokens.hasMoreTokens()) {
        word.set(tokens.nextToken());
        context.write(word, ONE);
      }
    }
  }

  public static class SumReducer extends Reducer<Text, LongWritable, Text, LongWritable> {
    private final LongWritable total = new LongWritable();

    @Override
    protected void reduce(Text word, Iterable<LongWritable> counts, Context context)
        throws IOException, InterruptedException {
      long sum = 0;
      for (LongWritable c : counts) {
        sum += c.get();
      }
      total.set(sum);
      context.write(word, total);
    }
  }

  /** A configured (not yet submitted) WordCount job over every file under {@code input}. */
  public static Job newJob(Configuration conf, String name, Path input, Path output, int reduces)
      throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(WordCount.class);
    job.setMapperClass(TokenMapper.class);
    job.setCombinerClass(SumReducer.class);
    job.setReducerClass(SumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(LongWritable.class);
    job.setInputFormatClass(TextInputFormat.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    job.setNumReduceTasks(reduces);
    FileInputFormat.addInputPath(job, input);
    FileOutputFormat.setOutputPath(job, output);
    return job;
  }

  /** Reads every part file of a finished job's output back into word → count. */
  public static Map<String, Long> readOutput(FileSystem fs, Path output) throws IOException {
    Map<String, Long> counts = new HashMap<>();
    for (FileStatus part : fs.listStatus(output, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(fs.open(part.getPath()), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          int tab = line.lastIndexOf('\t');
          if (tab < 0) {
            throw new IOException("malformed WordCount output line in " + part.getPath() + ": " + line);
          }
          Long previous = counts.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
          if (previous != null) {
            throw new IOException("word emitted twice in " + output + ": " + line.substring(0, tab));
          }
        }
      }
    }
    return counts;
  }
}
