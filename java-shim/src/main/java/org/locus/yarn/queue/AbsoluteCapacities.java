package org.locus.yarn.queue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueCapacityVector.ResourceUnitCapacityType;
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
 * <p>With the legacy queue mode off ({@link Vectors}), the figures of CapacityScheduler's
 * universal capacity vector instead: each resource type of a queue is a percentage, a weight
 * or an absolute amount of its parent's effective minimum, resolved per parent in CS's order
 * (ResourceCalculationDriver: per resource type, first the absolute entries, scaled down when
 * they exceed the parent, then the percentages of what is left, then the weights sharing the
 * rest); capacity and maximum-capacity are then the effective resources' memory over the
 * parent's.
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
  /** Null in the legacy queue mode. */
  private final Vectors vectors;
  private volatile Cached cached;

  /**
   * The capacity and maximum-capacity vectors of every queue (legacy queue mode off), as
   * CapacityScheduler's QueueCapacityConfigParser read them, for memory and vcores: per
   * resource type its kind (null: the vector does not name it, an unset capacity) and value.
   */
  static final class Vectors {
    /** The resource types in CapacityScheduler's order of calculation. */
    static final int MEMORY = 0;
    static final int VCORES = 1;
    final Map<String, ResourceUnitCapacityType[]> kind = new HashMap<>();
    final Map<String, double[]> value = new HashMap<>();
    final Map<String, ResourceUnitCapacityType[]> maxKind = new HashMap<>();
    final Map<String, double[]> maxValue = new HashMap<>();
    /** Absolute maximum capacity from the configured percentages, kept while no cluster. */
    final Map<String, Float> configuredAbsoluteMaximum = new HashMap<>();
  }

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
    this.vectors = null;
  }

  AbsoluteCapacities(List<String> paths, Vectors vectors) {
    this.paths = Collections.unmodifiableList(new ArrayList<>(paths));
    this.minimum = Collections.emptyMap();
    this.maximum = Collections.emptyMap();
    this.vectors = vectors;
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
    Map<String, Figures> out = vectors != null ? computeVectors(Resources.clone(cluster))
        : compute(Resources.clone(cluster));
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

  private static final ResourceUnitCapacityType[] PRECEDENCE = {
      ResourceUnitCapacityType.ABSOLUTE, ResourceUnitCapacityType.PERCENTAGE,
      ResourceUnitCapacityType.WEIGHT};

  /**
   * CapacityScheduler's CapacitySchedulerQueueCapacityHandler over the whole tree, in its
   * doubles and roundings (floor, weights rounded), so its effective resources are reproduced
   * to the unit.
   */
  private Map<String, Figures> computeVectors(Resource cluster) {
    Map<String, List<String>> kids = new HashMap<>();
    for (String p : paths) {
      String parent = parentOf(p);
      if (parent != null) {
        kids.computeIfAbsent(parent, k -> new ArrayList<>()).add(p);
      }
    }
    long[] c = {cluster.getMemorySize(), cluster.getVirtualCores()};
    Map<String, long[]> effMin = new HashMap<>();
    Map<String, long[]> effMax = new HashMap<>();
    Map<String, Figures> out = new HashMap<>();
    for (String path : paths) {
      String parent = parentOf(path);
      if (parent == null) {
        effMin.put(path, c.clone());
        effMax.put(path, c.clone());
        out.put(path, new Figures(1f, 1f, 1f, 1f, cluster, cluster, Resources.none(),
            Resources.none()));
      } else {
        Figures p = out.get(parent);
        long[] min = effMin.get(path);
        long[] max = effMax.get(path);
        float capacity = ratio(min[0], effMin.get(parent)[0]);
        float maxCapacity = ratio(max[0], effMax.get(parent)[0]);
        float absoluteMax = maxCapacity > 0f ? maxCapacity * p.absoluteMaximumCapacity
            : vectors.configuredAbsoluteMaximum.getOrDefault(path, 1f);
        out.put(path, new Figures(capacity, maxCapacity, capacity * p.absoluteCapacity,
            absoluteMax, Resource.newInstance(min[0], (int) min[1]),
            Resource.newInstance(max[0], (int) max[1]), Resources.none(), Resources.none()));
      }
      List<String> children = kids.get(path);
      if (children != null) {
        resolveChildren(path, parent == null, children, c, effMin, effMax);
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** CapacityScheduler's ResourceCalculationDriver#calculateResources for one parent. */
  private void resolveChildren(String parent, boolean root, List<String> children, long[] c,
      Map<String, long[]> effMin, Map<String, long[]> effMax) {
    long[] pmin = effMin.get(parent);
    long[] pmax = effMax.get(parent);
    double[] overall = {pmin[0], pmin[1]};
    double[] batch = {pmin[0], pmin[1]};
    for (String child : children) {
      effMin.put(child, new long[2]);
      effMax.put(child, new long[2]);
    }
    // AbsoluteResourceCapacityCalculator#setNormalizedResourceRatio: absolute children scaled
    // down together when they ask more than the parent has. Null: none scaled (a ratio of 1).
    double[] normalized = null;
    ResourceUnitCapacityType[] parentKind = vectors.kind.get(parent);
    for (int r = 0; r < 2; r++) {
      if (!root && (parentKind == null || parentKind[r] == null)) {
        continue;
      }
      long sum = 0;
      for (String child : children) {
        if (vectors.kind.get(child)[r] == ResourceUnitCapacityType.ABSOLUTE) {
          sum += vectors.value.get(child)[r];
        }
      }
      if (sum == 0) {
        continue;
      }
      float numerator = sum;
      if (pmin[r] < sum) {
        numerator = pmin[r];
      }
      if (normalized == null) {
        normalized = new double[2];
      }
      normalized[r] = numerator / sum;
    }
    double[] weights = new double[2];
    for (String child : children) {
      for (int r = 0; r < 2; r++) {
        if (vectors.kind.get(child)[r] == ResourceUnitCapacityType.WEIGHT) {
          weights[r] += vectors.value.get(child)[r];
        }
      }
    }
    for (int r = 0; r < 2; r++) {
      for (ResourceUnitCapacityType type : PRECEDENCE) {
        double used = 0;
        for (String child : children) {
          if (vectors.kind.get(child)[r] != type) {
            continue;
          }
          double value = vectors.value.get(child)[r];
          double remainingRatio = batch[r] / pmin[r];
          double min;
          if (type == ResourceUnitCapacityType.ABSOLUTE) {
            min = (normalized == null ? 1 : normalized[r]) * remainingRatio * value;
          } else if (type == ResourceUnitCapacityType.PERCENTAGE) {
            double parentAbsolute = (double) pmin[r] / c[r];
            double absolute = parentAbsolute * remainingRatio * value / 100;
            min = c[r] * absolute;
          } else {
            double normalizedWeight = value / weights[r];
            if (normalizedWeight == 1) {
              min = batch[r];
            } else {
              double parentAbsolute = (double) pmin[r] / c[r];
              double absolute = parentAbsolute * remainingRatio * normalizedWeight;
              min = c[r] * absolute;
            }
          }
          ResourceUnitCapacityType maxType = vectors.maxKind.get(child)[r];
          double maxValue = vectors.maxValue.get(child)[r];
          double max;
          if (maxType == ResourceUnitCapacityType.PERCENTAGE) {
            double parentAbsoluteMax = (double) pmax[r] / c[r];
            double absoluteMax = parentAbsoluteMax * maxValue / 100;
            max = c[r] * absoluteMax;
          } else {
            // A weight maximum is refused when the file is read.
            max = maxValue;
          }
          min = type == ResourceUnitCapacityType.WEIGHT ? Math.round(min) : Math.floor(min);
          max = maxType == ResourceUnitCapacityType.WEIGHT ? Math.round(max) : Math.floor(max);
          // ResourceCalculationDriver#validateCalculatedResources.
          long[] childMin = effMin.get(child);
          long[] childMax = effMax.get(child);
          if (r != Vectors.MEMORY && childMin[Vectors.MEMORY] == 0) {
            min = 0;
          }
          max = max == 0 ? pmax[r] : Math.min(max, pmax[r]);
          if (max < min) {
            min = max;
          }
          if (min > overall[r]) {
            min = overall[r];
          }
          childMin[r] = (long) min;
          childMax[r] = (long) max;
          overall[r] -= min;
          used += min;
        }
        batch[r] -= used;
      }
    }
  }
}
