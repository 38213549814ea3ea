//! PLACEHOLDER API SKELETON — being replaced by the real implementation in this session.
use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::CoreError;
use crate::protocol::{Event, Heartbeat, HeartbeatResponse};

/// Counters a user or a test can read (over JNI: `LocusNative.stats`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub heartbeats: u64,
    pub decisions: u64,
    pub allocations: u64,
    pub node_local: u64,
    pub rack_local: u64,
    pub off_switch: u64,
    pub rejected: u64,
    pub nodes: u64,
    pub apps: u64,
}

pub struct Core {
    stats: Stats,
}

impl Core {
    /// `props`: every `locus.*` property, as strings, exactly as the operator wrote them.
    pub fn new(_props: &BTreeMap<String, String>) -> Result<Core, CoreError> {
        Ok(Core { stats: Stats::default() })
    }
    pub fn reconfigure(&mut self, _props: &BTreeMap<String, String>) -> Result<(), CoreError> {
        Ok(())
    }
    pub fn handle(&mut self, _event: Event) -> Result<(), CoreError> {
        Ok(())
    }
    pub fn heartbeat(&mut self, _hb: &Heartbeat) -> Result<HeartbeatResponse, CoreError> {
        Ok(HeartbeatResponse::default())
    }
    pub fn stats(&self) -> Stats {
        self.stats.clone()
    }
}
