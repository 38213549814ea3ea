package org.locus.it;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * WordCount input written to HDFS, with the word counts it must produce.
 *
 * <p>Each file is written with replication 1 and a favoured DataNode, rotating over the hosts, so the
 * blocks of one file live on one host and the files together cover every host: a map is node-local on
 * exactly one host, which is what makes locality measurable.
 */
public final class Corpus {
  private static final String[] WORDS = {
    "hadoop", "yarn", "locus", "node", "rack", "block", "split", "map", "reduce", "shuffle",
    "container", "queue", "heartbeat", "locality", "scheduler", "manager", "resource", "vcore",
    "memory", "replica", "datanode", "namenode", "job", "task", "attempt", "priority", "ask",
  };

  private final Path dir;
  private final Map<String, Long> expected;
  private final int files;
  private final long bytes;

  private Corpus(Path dir, Map<String, Long> expected, int files, long bytes) {
    this.dir = dir;
    this.expected = Collections.unmodifiableMap(expected);
    this.files = files;
    this.bytes = bytes;
  }

  public Path dir() { return dir; }
  public Map<String, Long> expectedCounts() { return expected; }
  public int files() { return files; }
  public long bytes() { return bytes; }

  /**
   * Writes {@code files} files of about {@code bytesPerFile} bytes each under {@code dir}; file i favours
   * the DataNode at {@code favoured[(i + offset) % favoured.length]}.
   */
  public static Corpus write(DistributedFileSystem fs, Path dir, int files, long bytesPerFile, long seed,
      InetSocketAddress[] favoured, int offset, long blockSize) throws IOException {
    Random random = new Random(seed);
    Map<String, Long> counts = new TreeMap<>();
    long total = 0;
    fs.mkdirs(dir);
    for (int i = 0; i < files; i++) {
      Path file = new Path(dir, String.format("part-%03d.txt", i));
      InetSocketAddress[] target = {favoured[(i + offset) % favoured.length]};
      try (FSDataOutputStream raw = fs.create(file, FsPermission.getFileDefault(), true, 64 * 1024,
              (short) EmbeddedCluster.REPLICATION, blockSize, null, target);
           Writer out = new OutputStreamWriter(raw, StandardCharsets.UTF_8)) {
        long written = 0;
        StringBuilder line = new StringBuilder();
        while (written < bytesPerFile) {
          line.setLength(0);
          int wordsOnLine = 4 + random.nextInt(12);
          for (int w = 0; w < wordsOnLine; w++) {
            // Skewed choice: a realistic mix of frequent and rare words.
            String word = WORDS[Math.min(WORDS.length - 1, (int) Math.abs(random.nextGaussian() * 8))];
            if (w > 0) {
              line.append(' ');
            }
            line.append(word);
            counts.merge(word, 1L, Long::sum);
          }
          line.append('\n');
          out.write(line.toString());
          written += line.length();
        }
        total += written;
      }
    }
    return new Corpus(dir, counts, files, total);
  }
}
