package org.locus.it;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.Arrays;

import org.apache.hadoop.examples.terasort.GenSort;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * TeraSort input written to HDFS with placed blocks, and the checks a TeraGen / TeraSort output must pass.
 *
 * <p>The records come from GenSort, the generator in hadoop-mapreduce-examples that TeraGen's records match
 * byte for byte. TeraGen itself writes wherever the NameNode puts a task's blocks, which in the embedded
 * cluster (every client is 127.0.0.1) is a random DataNode per block; GenSort's file is copied in with a
 * favoured DataNode per file instead, rotating over the hosts as {@link Corpus} does, so the input is the same
 * bytes on the same hosts every time.
 */
public final class TeraInput {
  /** TeraGen / TeraSort record: a 10-byte key, then 90 bytes of value. */
  public static final int RECORD = 100;
  private static final int KEY = 10;

  private final Path dir;
  private final long rows;

  private TeraInput(Path dir, long rows) {
    this.dir = dir;
    this.rows = rows;
  }

  public Path dir() { return dir; }
  public long rows() { return rows; }

  /** Writes {@code files} files of {@code rowsPerFile} rows; file i favours {@code favoured[(i + offset) % n]}. */
  public static TeraInput write(DistributedFileSystem fs, Path dir, int files, long rowsPerFile,
      InetSocketAddress[] favoured, int offset, long blockSize, File scratch) throws IOException {
    if (!scratch.isDirectory() && !scratch.mkdirs()) {
      throw new IOException("cannot create " + scratch);
    }
    fs.mkdirs(dir);
    for (int i = 0; i < files; i++) {
      File local = new File(scratch, String.format("gensort-%03d", i));
      try {
        GenSort.main(new String[] {"-b" + (i * rowsPerFile), String.valueOf(rowsPerFile), local.getPath()});
      } catch (Exception e) {
        throw new IOException("GenSort could not write " + local, e);
      }
      if (local.length() != rowsPerFile * RECORD) {
        throw new IOException("GenSort wrote " + local.length() + " bytes to " + local + ", expected "
            + rowsPerFile * RECORD);
      }
      InetSocketAddress[] target = {favoured[(i + offset) % favoured.length]};
      try (FSDataOutputStream out = fs.create(new Path(dir, String.format("part-m-%05d", i)),
          FsPermission.getFileDefault(), true, 64 * 1024, (short) EmbeddedCluster.REPLICATION, blockSize, null, target)) {
        Files.copy(local.toPath(), out);
      }
      Files.delete(local.toPath());
    }
    return new TeraInput(dir, files * rowsPerFile);
  }

  /** Why a TeraGen output is wrong, or null: its part files must hold exactly {@code rows} records. */
  public static String checkGenerated(FileSystem fs, Path output, long rows) throws IOException {
    long bytes = 0;
    for (FileStatus part : fs.listStatus(output, p -> p.getName().startsWith("part-"))) {
      bytes += part.getLen();
    }
    return bytes == rows * RECORD ? null
        : output + " holds " + bytes + " bytes, expected " + rows + " records of " + RECORD;
  }

  /**
   * Why a TeraSort output is wrong, or null: its part files, read in name order (TeraSort's partitions are
   * ordered by name), must hold exactly {@code rows} records with non-decreasing keys (unsigned bytes).
   */
  public static String checkSorted(FileSystem fs, Path output, long rows) throws IOException {
    FileStatus[] parts = fs.listStatus(output, p -> p.getName().startsWith("part-"));
    Arrays.sort(parts, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    byte[] record = new byte[RECORD];
    byte[] previous = null;
    long seen = 0;
    for (FileStatus part : parts) {
      try (InputStream in = fs.open(part.getPath())) {
        while (readRecord(in, record, part.getPath())) {
          if (previous != null && Arrays.compareUnsigned(previous, 0, KEY, record, 0, KEY) > 0) {
            return "record " + seen + " (in " + part.getPath().getName() + ") sorts before the one above it";
          }
          previous = Arrays.copyOf(record, KEY);
          seen++;
        }
      }
    }
    return seen == rows ? null : output + " holds " + seen + " records, expected " + rows;
  }

  private static boolean readRecord(InputStream in, byte[] record, Path file) throws IOException {
    int filled = 0;
    while (filled < record.length) {
      int n = in.read(record, filled, record.length - filled);
      if (n < 0) {
        if (filled == 0) {
          return false;
        }
        throw new IOException(file + " ends inside a record (" + filled + " of " + RECORD + " bytes)");
      }
      filled += n;
    }
    return true;
  }
}
