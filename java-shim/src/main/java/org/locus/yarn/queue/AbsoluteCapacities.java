package org.locus.yarn.queue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The figures CapacityScheduler reports for a file in absolute mode
 * ({@code capacity=[memory=...,vcores=...]}) on a cluster of a given size: each queue's
 * effective minimum and maximum resource, and the percentages derived from them. The core
 * derives the same shares to enforce them (rust-core's {@code capacity_tree}); this copy
 * serves the RM's queue reports and REST, which must follow the cluster as nodes join and
 * leave without a round trip to the core.
 *
 * <p>CapacityScheduler's legacy queue mode with its default resource calculator (memory
 * compared): root's effective minimum and maximum are the cluster; a parent whose effective
 * minimum (root: the cluster, unless empty) has less memory than its children's minimums
 * together scales each child's minimum by the ratio of the two, per resource type; a queue's
 * effective maximum is its configured maximum, or the parent's configured (else effective)
 * maximum when that has less memory; capacity is the effective minimum's memory over the
 * parent's, maximum-capacity likewise, and the absolute figures are products down from root.
 * Floats as CS keeps them, so its truncations are reproduced.
 *
 * <p>Immutable; {@link #at} caches the last cluster it computed for.
 */
public final class AbsoluteCapacities {
  /** One queue's figures on one cluster. */
  public static final class Figures {
    public final float capacity;
    public final float maximumCapacity;
    public final float absoluteCapacity;
    public final float absoluteMaximumCapacity;
    public final Resource effectiveMinimum;
    public final Resource effectiveMaximum;
    public final Resource configuredMinimum;
    public final Resource configuredMaximum;

    Figures(float capacity, float maximumCapacity, float absoluteCapacity,
        float absoluteMaximumCapacity, Resource effectiveMinimum, Resource effectiveMaximum,
        Resource configuredMinimum, Resource configuredMaximum) {
      this.capacity = capacity;
      this.maximumCapacity = maximumCapacity;
      this.absoluteCapacity = absoluteCapacity;
      this.absoluteMaximumCapacity = absoluteMaximumCapacity;
      this.effectiveMinimum = effectiveMinimum;
      this.effectiveMaximum = effectiveMaximum;
      this.configuredMinimum = configuredMinimum;
      this.configuredMaximum = configuredMaximum;
    }
  }

  /** Paths, root first, parents before children. */
  private final List<String> paths;
  private final Map<String, Resource> minimum;
  /** Configured maxima after CS's inheritance of the parent's; absent: none. */
  private final Map<String, Resource> maximum;
  private volatile Cached cached;

  private static final class Cached {
    final Resource cluster;
    final Map<String, Figures> figures;

    Cached(Resource cluster, Map<String, Figures> figures) {
      this.cluster = cluster;
      this.figures = figures;
    }
  }

  AbsoluteCapacities(List<String> paths, Map<String, Resource> minimum,
      Map<String, Resource> maximum) {
    this.paths = Collections.unmodifiableList(new ArrayList<>(paths));
    this.minimum = Collections.unmodifiableMap(new HashMap<>(minimum));
    this.maximum = Collections.unmodifiableMap(new HashMap<>(maximum));
  }

  private static String parentOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? null : path.substring(0, dot);
  }

  /** CS's divideSafelyAsFloat of the memory, an infinite result taken as 0. */
  private static float ratio(long a, long b) {
    if (a == 0 && b == 0) {
      return 0f;
    }
    float r = (float) a / (float) b;
    return Float.isInfinite(r) ? 0f : r;
  }

  /** Every queue's figures on {@code cluster}, by path. */
  public Map<String, Figures> at(Resource cluster) {
    Cached c = cached;
    if (c != null && c.cluster.equals(cluster)) {
      return c.figures;
    }
    Map<String, Figures> out = compute(Resources.clone(cluster));
    cached = new Cached(Resources.clone(cluster), out);
    return out;
  }

  private Map<String, Figures> compute(Resource cluster) {
    Map<String, List<String>> kids = new HashMap<>();
    for (String p : paths) {
      String parent = parentOf(p);
      if (parent != null) {
        kids.computeIfAbsent(parent, k -> new ArrayList<>()).add(p);
      }
    }
    Map<String, Figures> out = new HashMap<>();
    // Per parent: the ratios its children's minimums are scaled by ({memory, vcores}).
    Map<String, float[]> scale = new HashMap<>();
    for (String path : paths) {
      String parent = parentOf(path);
      Figures f;
      if (parent == null) {
        f = new Figures(1f, 1f, 1f, 1f, cluster, cluster, Resources.none(), Resources.none());
      } else {
        Figures p = out.get(parent);
        Resource conf = minimum.getOrDefault(path, Resources.none());
        float[] s = scale.get(parent);
        long mem = conf.getMemorySize();
        long vcores = conf.getVirtualCores();
        if (s != null) {
          mem = Float.isNaN(s[0]) ? mem : (long) (mem * s[0]);
          vcores = Float.isNaN(s[1]) ? vcores : (long) (vcores * s[1]);
        }
        Resource min = Resource.newInstance(mem, (int) vcores);
        Resource parentMax = maximum.containsKey(parent) ? maximum.get(parent)
            : p.effectiveMaximum;
        Resource own = maximum.get(path);
        Resource max = own == null || own.getMemorySize() > parentMax.getMemorySize()
            ? parentMax : own;
        float capacity = ratio(min.getMemorySize(), p.effectiveMinimum.getMemorySize());
        float maxCapacity = ratio(max.getMemorySize(), p.effectiveMaximum.getMemorySize());
        f = new Figures(capacity, maxCapacity, capacity * p.absoluteCapacity,
            maxCapacity * p.absoluteMaximumCapacity, min, max, conf,
            own == null ? Resources.none() : own);
      }
      out.put(path, f);
      List<String> children = kids.get(path);
      if (children == null) {
        continue;
      }
      long sumMem = 0;
      long sumVcores = 0;
      for (String child : children) {
        Resource m = minimum.getOrDefault(child, Resources.none());
        sumMem += m.getMemorySize();
        sumVcores += m.getVirtualCores();
      }
      Resource own = f.effectiveMinimum;
      boolean short_ = parent == null
          ? !own.equals(Resources.none()) && own.getMemorySize() < sumMem
          : own.getMemorySize() < sumMem;
      if (short_) {
        scale.put(path, new float[] {
            sumMem == 0 ? Float.NaN : (float) own.getMemorySize() / sumMem,
            sumVcores == 0 ? Float.NaN : (float) own.getVirtualCores() / sumVcores});
      }
    }
    return Collections.unmodifiableMap(out);
  }
}
