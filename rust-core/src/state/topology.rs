//! Where a node sits: rack and datacenter.
//!
//! The RM resolves every node to a network location (`/rack1`, `/dc1/rack1`, `/default-rack`).
//! YARN's rack name is that whole location string, and asks name racks the same way, so the
//! rack is kept verbatim. A datacenter is only visible in a location with two or more
//! components; single-level sites (virtual clusters whose tenant cannot see the provider's
//! racks) can name each host's datacenter in a mapping file instead.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::CoreError;

/// Datacenter of nodes whose location and mapping say nothing.
pub const DEFAULT_DATACENTER: &str = "default";

/// The config key whose file this module parses; errors name it so the operator knows which
/// setting pointed at the broken file.
pub const MAPPING_KEY: &str = "locus.datacenter.mapping.file";

/// Host → datacenter, from `locus.datacenter.mapping.file`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DatacenterMapping {
    by_host: BTreeMap<String, String>,
}

impl DatacenterMapping {
    /// Parses `host datacenter` lines; `#` starts a comment, blank lines are skipped.
    /// `source` names the file in errors.
    pub fn parse(text: &str, source: &str) -> Result<DatacenterMapping, CoreError> {
        let mut by_host = BTreeMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let bad = |why: String| CoreError::Config {
                key: MAPPING_KEY.to_string(),
                message: format!(
                    "{source} line {line_no}: {why} (expected \"host datacenter\"): {raw:?}"
                ),
            };
            if fields.len() != 2 {
                return Err(bad(format!("{} fields", fields.len())));
            }
            let (host, dc) = (fields[0], fields[1]);
            if let Some(previous) = by_host.get(host) {
                if previous != dc {
                    return Err(bad(format!("host {host} already mapped to {previous}")));
                }
            }
            by_host.insert(host.to_string(), dc.to_string());
        }
        Ok(DatacenterMapping { by_host })
    }

    /// Reads and parses the file (bounded: [`crate::side_files`]); an unreadable or missing
    /// file is a config error naming the path.
    pub fn load(path: &Path) -> Result<DatacenterMapping, CoreError> {
        let shown = path.display().to_string();
        let text = read_list_file(MAPPING_KEY, path)?;
        Self::parse(&text, &shown)
    }

    pub fn get(&self, host: &str) -> Option<&str> {
        self.by_host.get(host).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.by_host.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_host.is_empty()
    }
}

/// The text of a host-list side file (the mapping file, MROSA's public file); a missing file is
/// an error naming `key`, as an unreadable one is.
pub(crate) fn read_list_file(key: &str, path: &Path) -> Result<String, CoreError> {
    use crate::side_files::{read_text, Links, MAX_LIST_FILE_BYTES};
    read_text(key, path, MAX_LIST_FILE_BYTES, Links::Follow)?.ok_or_else(|| CoreError::Config {
        key: key.to_string(),
        message: format!("cannot read {}: no such file", path.display()),
    })
}

/// A node's place in the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The RM's network location, verbatim: this is the resource name rack asks use.
    pub rack: String,
    pub datacenter: String,
}

/// Resolves `host` at network location `rack`: the first path component is the datacenter
/// when there are two or more; otherwise the mapping decides; otherwise `default`.
pub fn locate(host: &str, rack: &str, mapping: &DatacenterMapping) -> Location {
    let components: Vec<&str> = rack.split('/').filter(|c| !c.is_empty()).collect();
    let datacenter = if components.len() >= 2 {
        components[0].to_string()
    } else if let Some(dc) = mapping.get(host) {
        dc.to_string()
    } else {
        DEFAULT_DATACENTER.to_string()
    };
    Location {
        rack: rack.to_string(),
        datacenter,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_level_location_names_the_datacenter() {
        let m = DatacenterMapping::default();
        let loc = locate("h1", "/dc1/rack2", &m);
        assert_eq!(loc.datacenter, "dc1");
        assert_eq!(loc.rack, "/dc1/rack2");
    }

    #[test]
    fn single_level_location_uses_mapping_then_default() {
        let m =
            DatacenterMapping::parse("# comment\nh1 east\n\n  h2\twest  # trailing\n", "dc.txt")
                .unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(locate("h1", "/rack1", &m).datacenter, "east");
        assert_eq!(locate("h2", "/rack1", &m).datacenter, "west");
        assert_eq!(locate("h3", "/rack1", &m).datacenter, DEFAULT_DATACENTER);
        assert_eq!(
            locate("h3", "/default-rack", &m).datacenter,
            DEFAULT_DATACENTER
        );
        // A two-level location wins over the mapping.
        assert_eq!(locate("h1", "/dc9/r1", &m).datacenter, "dc9");
    }

    #[test]
    fn bad_line_names_file_and_line() {
        let err = DatacenterMapping::parse("h1 east\nh2 west extra\n", "/etc/dc.txt").unwrap_err();
        let CoreError::Config { key, message } = err else {
            panic!("not a config error")
        };
        assert_eq!(key, MAPPING_KEY);
        assert!(message.contains("/etc/dc.txt line 2"), "{message}");
        let err = DatacenterMapping::parse("h1\n", "m")
            .unwrap_err()
            .to_string();
        assert!(err.contains("m line 1"), "{err}");
    }

    #[test]
    fn conflicting_host_is_an_error() {
        let err = DatacenterMapping::parse("h1 east\nh1 west\n", "m")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2") && err.contains("h1 already mapped to east"),
            "{err}"
        );
    }

    #[test]
    fn missing_file_is_a_config_error() {
        let err = DatacenterMapping::load(Path::new("/nonexistent/locus-dc.txt")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/locus-dc.txt"));
    }
}
