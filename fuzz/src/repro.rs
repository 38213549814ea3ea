//! Reproducers on disk: the minimised case, its layer configuration (for reading; the index
//! in the case is what replays), the seed and the failure it shows.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::action::Case;
use crate::combos::{self, Props};
use crate::failure::Failure;

#[derive(Debug, Serialize, Deserialize)]
pub struct Reproducer {
    pub seed: u64,
    pub config: Props,
    pub failure: Failure,
    pub case: Case,
}

pub fn write(dir: &Path, case: &Case, failure: &Failure) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let all = combos::valid();
    let r = Reproducer {
        seed: case.seed,
        config: all[case.combo % all.len()].clone(),
        failure: failure.clone(),
        case: case.clone(),
    };
    let path = dir.join(format!("{}-seed{}.json", failure.class, case.seed));
    let text = serde_json::to_string_pretty(&r).map_err(std::io::Error::other)?;
    std::fs::write(&path, text)?;
    Ok(path)
}

pub fn read(path: &Path) -> Result<Reproducer, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a reproducer: {e}", path.display()))
}
