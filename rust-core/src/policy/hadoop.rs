//! `hadoop`: what YARN's FIFO scheduler does without delay scheduling. Every level is allowed
//! at once; the procedure's node-local → rack-local → off-switch order supplies the preference.

use super::LocalityTechnique;
use crate::protocol::Locality;
use crate::state::app::App;
use crate::state::ask::{AskTable, SchedulerKey};
use crate::state::node::Node;

pub struct HadoopLocality;

impl LocalityTechnique for HadoopLocality {
    fn name(&self) -> &'static str {
        "hadoop"
    }

    fn allowed(&mut self, _: &App, _: SchedulerKey, _: &AskTable, _: &Node, _: u64) -> Locality {
        Locality::OffSwitch
    }
}
