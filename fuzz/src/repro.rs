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

/// A hostile case's reproducer: the case is code (hostile.rs), so its name replays it.
pub fn write_hostile(dir: &Path, name: &str, failure: &Failure) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("hostile-{name}.json"));
    let v = serde_json::json!({ "hostile": name, "failure": failure });
    let text = serde_json::to_string_pretty(&v).map_err(std::io::Error::other)?;
    std::fs::write(&path, text)?;
    Ok(path)
}

/// The hostile case a reproducer names, if it is one.
pub fn read_hostile(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    v.get("hostile")
        .and_then(|n| n.as_str())
        .map(str::to_string)
        .ok_or_else(|| "not hostile".into())
}
