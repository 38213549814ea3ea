//! Metric definitions, kept apart from the engine so each is testable on known numbers.

use crate::cluster::Distance;

/// Bytes the network carried, by HDFS distance (node, rack, datacenter, other datacenter).
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// Map attempts that read input, by the distance of the replica each read.
    pub maps_by_distance: [u64; 4],
    /// Shuffle bytes by the distance from the map's output to the reduce.
    pub reduce_bytes_by_distance: [f64; 4],
    /// Inter-datacenter traffic: map input read from another datacenter plus shuffle bytes
    /// fetched from another datacenter.
    pub inter_dc_bytes: f64,
}

impl Traffic {
    /// A map attempt reads its `bytes` of input from a replica at distance `d`.
    pub fn map_read(&mut self, d: Distance, bytes: f64) {
        self.maps_by_distance[d.index()] += 1;
        if d == Distance::Remote {
            self.inter_dc_bytes += bytes;
        }
    }

    /// A reduce fetches `bytes` of one map node's output from distance `d`.
    pub fn shuffle(&mut self, d: Distance, bytes: f64) {
        self.reduce_bytes_by_distance[d.index()] += bytes;
        if d == Distance::Remote {
            self.inter_dc_bytes += bytes;
        }
    }

    /// Reduce-data locality: each distance's share of all shuffle bytes (all 0 when nothing
    /// was shuffled).
    pub fn reduce_shares(&self) -> [f64; 4] {
        let total: f64 = self.reduce_bytes_by_distance.iter().sum();
        self.reduce_bytes_by_distance
            .map(|b| if total > 0.0 { b / total } else { 0.0 })
    }
}

/// TD's actual hotspot at one node: more than θ concurrent non-local reads served by it. Each
/// time its count goes from θ to θ + 1 is one occurrence; staying above θ is the same one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NonLocalReaders(u32);

impl NonLocalReaders {
    /// A non-local read of this node starts; true when that makes a new hotspot occurrence.
    pub fn start(&mut self, theta: u32) -> bool {
        self.0 += 1;
        self.0 == theta + 1
    }

    pub fn end(&mut self) {
        self.0 = self.0.saturating_sub(1);
    }

    /// The node is gone, and its readers with it.
    pub fn clear(&mut self) {
        self.0 = 0;
    }
}

/// Jain's fairness index, (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one holds all.
/// `None` for no values; 1 when every value is 0 (nobody got more than anyone else).
pub fn jain(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        return Some(1.0);
    }
    Some(sum * sum / (xs.len() as f64 * sq))
}

/// FRESH eq. 1: job i's effective resource use by time T, (Σ task run time up to T) / (T − T_i).
pub fn fresh_usage(task_ms_until_t: f64, t_ms: f64, start_ms: f64) -> f64 {
    if t_ms <= start_ms {
        0.0
    } else {
        task_ms_until_t / (t_ms - start_ms)
    }
}

/// QoS satisfaction (MROSA): of the jobs that have a deadline, the share that finished within
/// it, i.e. `finish − submit ≤ deadline`. A job that never finished missed its deadline. `None`
/// when no job has a deadline.
pub fn qos_satisfaction(jobs: &[(u64, Option<u64>, Option<f64>)]) -> Option<f64> {
    let mut with = 0usize;
    let mut met = 0usize;
    for &(submit, finish, deadline) in jobs {
        let Some(d) = deadline else { continue };
        with += 1;
        if let Some(f) = finish {
            if (f.saturating_sub(submit) as f64) <= d * 1000.0 {
                met += 1;
            }
        }
    }
    (with > 0).then(|| met as f64 / with as f64)
}

/// Public cost of one task attempt (MROSA, dollars): its run time in seconds (start to end, or
/// to its kill) times the price in $/s of the public node it ran on (`locus.mrosa.public.file`);
/// 0 on a private node (`None`), whose cost the paper ignores. A run's public cost is the sum
/// over its attempts.
pub fn attempt_cost(run_secs: f64, price_per_sec: Option<f64>) -> f64 {
    price_per_sec.map_or(0.0, |p| run_secs * p)
}

/// Nearest-rank percentile of sorted values: the smallest value with at least p% of values at
/// or below it. `None` for no values.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// Population standard deviation.
pub fn stddev(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    Some((xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64).sqrt())
}

/// Durations in a log-scaled histogram (about 9% wide buckets), so ten million heartbeats cost
/// a few kilobytes rather than a vector of samples.
#[derive(Debug, Clone)]
pub struct LogHistogram {
    buckets: Vec<u64>,
    count: u64,
    sum: f64,
    max: f64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram {
            buckets: vec![0; 8 * 64],
            count: 0,
            sum: 0.0,
            max: 0.0,
        }
    }
}

impl LogHistogram {
    fn bucket(v: f64) -> usize {
        if v < 1.0 {
            0
        } else {
            ((v.log2() * 8.0) as usize + 1).min(8 * 64 - 1)
        }
    }

    pub fn record(&mut self, v: f64) {
        self.buckets[Self::bucket(v)] += 1;
        self.count += 1;
        self.sum += v;
        if v > self.max {
            self.max = v;
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    pub fn max(&self) -> f64 {
        self.max
    }

    /// Upper edge of the bucket holding the p-th percentile.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let edge = if i == 0 {
                    1.0
                } else {
                    2f64.powf(i as f64 / 8.0)
                };
                return edge.min(self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_counts_only_deadline_jobs_and_an_unfinished_job_misses() {
        let jobs = [
            (0, Some(90_000), Some(90.0)),     // exactly on time: met
            (1_000, Some(92_000), Some(90.0)), // 91 s: missed
            (0, None, Some(500.0)),            // never finished: missed
            (0, Some(999_000), None),          // no deadline: not counted
        ];
        assert_eq!(qos_satisfaction(&jobs), Some(1.0 / 3.0));
        assert_eq!(qos_satisfaction(&[(0, Some(1), None)]), None);
    }

    #[test]
    fn inter_dc_traffic_is_remote_map_input_plus_remote_shuffle() {
        let mut t = Traffic::default();
        t.map_read(Distance::Node, 128.0);
        t.map_read(Distance::Rack, 128.0);
        t.map_read(Distance::Datacenter, 128.0);
        t.map_read(Distance::Remote, 128.0);
        t.map_read(Distance::Remote, 64.0);
        t.shuffle(Distance::Node, 10.0);
        t.shuffle(Distance::Rack, 30.0);
        t.shuffle(Distance::Remote, 60.0);
        assert_eq!(t.maps_by_distance, [1, 1, 1, 2]);
        // 128 + 64 of map input and 60 of shuffle crossed datacenters; the rest stayed inside.
        assert_eq!(t.inter_dc_bytes, 252.0);
        assert_eq!(t.reduce_shares(), [0.1, 0.3, 0.0, 0.6]);
        assert_eq!(Traffic::default().reduce_shares(), [0.0; 4]);
    }

    #[test]
    fn a_hotspot_counts_once_per_crossing_of_theta() {
        let theta = 3;
        let mut n = NonLocalReaders::default();
        let starts: Vec<bool> = (0..5).map(|_| n.start(theta)).collect();
        // The 4th concurrent reader crosses θ = 3; the 5th keeps the same hotspot.
        assert_eq!(starts, [false, false, false, true, false]);
        n.end();
        n.end(); // back to 3: no longer a hotspot
        assert!(n.start(theta), "crossing again is a new occurrence");
        assert!(!n.start(theta));
        n.clear();
        let again: Vec<bool> = (0..4).map(|_| n.start(theta)).collect();
        assert_eq!(again, [false, false, false, true]);
        let mut zero = NonLocalReaders::default();
        assert!(
            zero.start(0),
            "with θ = 0 one non-local reader is a hotspot"
        );
    }

    #[test]
    fn public_cost_is_run_seconds_times_the_public_nodes_price() {
        // TABLE IV: ec2-2c 27e-6 $/s, ali-8c 235e-6 $/s.
        let (ec2, ali) = (Some(27e-6), Some(235e-6));
        let attempts = [
            (10.0, ec2),   // 270e-6
            (4.5, ali),    // 1057.5e-6
            (100.0, None), // private: free
            (0.0, ali),    // killed at once: nothing
            (2.0, ec2),    // 54e-6
        ];
        let total: f64 = attempts.iter().map(|&(s, p)| attempt_cost(s, p)).sum();
        assert!((total - 1381.5e-6).abs() < 1e-12, "{total}");
        assert_eq!(attempt_cost(50.0, None), 0.0);
        assert!((attempt_cost(3600.0, Some(248e-6)) - 0.8928).abs() < 1e-12);
    }

    #[test]
    fn jain_on_known_numbers() {
        assert_eq!(jain(&[1.0, 1.0, 1.0, 1.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        let j = jain(&[1.0, 2.0, 3.0]).unwrap_or(0.0);
        assert!((j - 36.0 / 42.0).abs() < 1e-12, "{j}");
        assert_eq!(jain(&[]), None);
        assert_eq!(jain(&[0.0, 0.0]), Some(1.0));
    }

    #[test]
    fn fresh_example_usage_over_five_units() {
        // FRESH's example: J1, J2, J3 occupy 11, 7 and 10 slot-units over 5 units
        let r: Vec<f64> = [11.0, 7.0, 10.0]
            .iter()
            .map(|&u| fresh_usage(u, 5.0, 0.0))
            .collect();
        assert_eq!(r, vec![2.2, 1.4, 2.0]);
        let f = jain(&r).unwrap_or(0.0);
        assert!(
            (f - (28.0f64 * 28.0) / (3.0 * (121.0 + 49.0 + 100.0))).abs() < 1e-12,
            "{f}"
        );
        assert_eq!(fresh_usage(3.0, 2.0, 2.0), 0.0);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 95.0), Some(95.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&[3.0, 7.0], 50.0), Some(3.0));
        assert_eq!(percentile(&[3.0, 7.0], 51.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[5.0], 0.0), Some(5.0));
    }

    #[test]
    fn stddev_and_histogram() {
        assert_eq!(stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), Some(2.0));
        let mut h = LogHistogram::default();
        for v in 1..=1000 {
            h.record(v as f64);
        }
        assert_eq!(h.count(), 1000);
        assert!((h.mean() - 500.5).abs() < 1e-9);
        let p50 = h.percentile(50.0);
        assert!((500.0..=560.0).contains(&p50), "p50 {p50}");
        assert_eq!(h.max(), 1000.0);
    }
}
