//! locus-sim: a discrete-event simulator of YARN, HDFS and the MapReduce AM that drives the
//! unmodified Locus core through the messages the JNI bridge carries.

pub mod am;
pub mod cluster;
pub mod cs_default;
pub mod engine;
pub mod hdfs;
pub mod limits;
pub mod metrics;
mod prefetch;
pub mod queue;
pub mod report;
pub mod rng;
pub mod run;
pub mod suite;
pub mod workload;
