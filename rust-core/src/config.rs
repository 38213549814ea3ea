//! Locus settings: every `locus.*` property of the RM's Configuration, as strings.
//!
//! | key | default | allowed values |
//! | --- | --- | --- |
//! | `locus.policy` | `fifo` | job-level policy, which job gets freed capacity: `fifo` (planned: `fair`, `joss-t`, `joss-j`, `td`, `fresh`, `mrosa`) |
//! | `locus.locality` | `hadoop` | locality technique for map tasks: `hadoop` = node-local, then rack-local, then off-switch, no waiting (planned: `delay`, `matchmaking`) |
//! | `locus.hotspot` | `off` | hotspot guard: `off` (planned: `hot-queue`) |
//! | `locus.slots` | `static` | slot configurator, the share of capacity map vs reduce containers may hold: `static` (planned: `fresh-static`, `fresh-dynamic`) |
//! | `locus.slots.map-share` | empty = no limit | for `static`: a number strictly between 0 and 1; map containers may hold at most that share of the cluster's memory and vcores, reduce containers at most the rest |
//! | `locus.off-switch-per-heartbeat` | `1` | integer 1..=10000: off-switch containers per node heartbeat, over all apps; containers of asks that name no host or rack do not count |
//! | `locus.assign-multiple` | `true` | `true`: fill a node with as many containers as fit per heartbeat; `false`: one container per heartbeat |
//! | `locus.datacenter.mapping.file` | empty = none | path of a `host datacenter` file (`#` comments) for nodes whose network location has one component (`/rack1`) |
//!
//! Keys not starting with `locus.` are ignored. An empty value means the default, because
//! Hadoop's sample yarn-site.xml lists optional keys with empty values. An unknown `locus.*`
//! key or a bad value is a [`CoreError::Config`] naming the key and what is allowed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::error::CoreError;
use crate::topology::{DatacenterMapping, MAPPING_KEY};

pub const POLICY: &str = "locus.policy";
pub const LOCALITY: &str = "locus.locality";
pub const HOTSPOT: &str = "locus.hotspot";
pub const SLOTS: &str = "locus.slots";
pub const SLOTS_MAP_SHARE: &str = "locus.slots.map-share";
pub const OFF_SWITCH_PER_HEARTBEAT: &str = "locus.off-switch-per-heartbeat";
pub const ASSIGN_MULTIPLE: &str = "locus.assign-multiple";
pub const DATACENTER_MAPPING_FILE: &str = MAPPING_KEY;

/// Every key the core understands, for the "unknown key" message.
pub const KNOWN_KEYS: &[&str] = &[
    POLICY,
    LOCALITY,
    HOTSPOT,
    SLOTS,
    SLOTS_MAP_SHARE,
    OFF_SWITCH_PER_HEARTBEAT,
    ASSIGN_MULTIPLE,
    DATACENTER_MAPPING_FILE,
];

const OFF_SWITCH_MAX: u32 = 10_000;

/// A layer choice: the implemented values and those the issue plans, so an operator asking for
/// a planned one learns it is not there yet rather than that it never will be.
macro_rules! choice {
    ($(#[$doc:meta])* $name:ident, $key:expr, { $($variant:ident = $text:literal),+ $(,)? }, planned: [$($planned:literal),*]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALLOWED: &'static [&'static str] = &[$($text),+];
            pub const PLANNED: &'static [&'static str] = &[$($planned),*];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            fn parse(value: &str) -> Result<Self, CoreError> {
                match value {
                    $($text => Ok($name::$variant),)+
                    other => Err(bad_choice($key, other, Self::ALLOWED, Self::PLANNED)),
                }
            }
        }
    };
}

choice!(
    /// Which job gets freed capacity.
    JobPolicyKind, POLICY, { Fifo = "fifo" },
    planned: ["fair", "joss-t", "joss-j", "td", "fresh", "mrosa"]
);
choice!(
    /// How map tasks trade waiting for locality.
    LocalityKind, LOCALITY, { Hadoop = "hadoop" },
    planned: ["delay", "matchmaking"]
);
choice!(
    /// Whether hot nodes are protected from too many non-local readers.
    HotspotKind, HOTSPOT, { Off = "off" },
    planned: ["hot-queue"]
);
choice!(
    /// How capacity is split between map and reduce containers.
    SlotsKind, SLOTS, { Static = "static" },
    planned: ["fresh-static", "fresh-dynamic"]
);

fn bad_choice(key: &str, value: &str, allowed: &[&str], planned: &[&str]) -> CoreError {
    let mut message = format!("unknown value {value:?}; allowed: {}", allowed.join(", "));
    if planned.contains(&value) {
        message.push_str(&format!(" ({value} is planned but not implemented yet)"));
    }
    CoreError::Config {
        key: key.to_string(),
        message,
    }
}

/// Validated settings; built only by [`Config::from_properties`].
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub policy: JobPolicyKind,
    pub locality: LocalityKind,
    pub hotspot: HotspotKind,
    pub slots: SlotsKind,
    /// `None`: no cap on either pool.
    pub map_share: Option<f64>,
    pub off_switch_per_heartbeat: u32,
    pub assign_multiple: bool,
    pub datacenter_mapping_file: Option<PathBuf>,
    /// The file's content, read once when the settings are (re)loaded.
    pub datacenter_mapping: DatacenterMapping,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            policy: JobPolicyKind::Fifo,
            locality: LocalityKind::Hadoop,
            hotspot: HotspotKind::Off,
            slots: SlotsKind::Static,
            map_share: None,
            off_switch_per_heartbeat: 1,
            assign_multiple: true,
            datacenter_mapping_file: None,
            datacenter_mapping: DatacenterMapping::default(),
        }
    }
}

impl Config {
    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Config, CoreError> {
        let mut cfg = Config::default();
        for (key, raw) in props {
            if !key.starts_with("locus.") {
                continue;
            }
            let value = raw.trim();
            if !KNOWN_KEYS.contains(&key.as_str()) {
                return Err(CoreError::Config {
                    key: key.clone(),
                    message: format!(
                        "unknown Locus setting; known settings: {}",
                        KNOWN_KEYS.join(", ")
                    ),
                });
            }
            if value.is_empty() {
                continue;
            }
            match key.as_str() {
                POLICY => cfg.policy = JobPolicyKind::parse(value)?,
                LOCALITY => cfg.locality = LocalityKind::parse(value)?,
                HOTSPOT => cfg.hotspot = HotspotKind::parse(value)?,
                SLOTS => cfg.slots = SlotsKind::parse(value)?,
                SLOTS_MAP_SHARE => cfg.map_share = Some(parse_share(key, value)?),
                OFF_SWITCH_PER_HEARTBEAT => {
                    cfg.off_switch_per_heartbeat = parse_int(key, value, 1, OFF_SWITCH_MAX)?
                }
                ASSIGN_MULTIPLE => cfg.assign_multiple = parse_bool(key, value)?,
                DATACENTER_MAPPING_FILE => {
                    let path = PathBuf::from(value);
                    cfg.datacenter_mapping = DatacenterMapping::load(&path)?;
                    cfg.datacenter_mapping_file = Some(path);
                }
                _ => {
                    // KNOWN_KEYS and this match are kept in step by the tests below; an entry in
                    // one but not the other is reported rather than silently ignored.
                    return Err(CoreError::Config {
                        key: key.clone(),
                        message: "known but not handled; this is a Locus bug".into(),
                    });
                }
            }
        }
        Ok(cfg)
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, CoreError> {
    if value.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(CoreError::Config {
            key: key.to_string(),
            message: format!("invalid value {value:?}; allowed: true, false"),
        })
    }
}

fn parse_int(key: &str, value: &str, min: u32, max: u32) -> Result<u32, CoreError> {
    match value.parse::<u32>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!("invalid value {value:?}; allowed: an integer from {min} to {max}"),
        }),
    }
}

fn parse_share(key: &str, value: &str) -> Result<f64, CoreError> {
    match value.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!(
                "invalid value {value:?}; allowed: a number strictly between 0 and 1 (empty: no limit)"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn config_err(pairs: &[(&str, &str)]) -> (String, String) {
        match Config::from_properties(&props(pairs)) {
            Err(CoreError::Config { key, message }) => (key, message),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let c = Config::from_properties(&BTreeMap::new()).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.off_switch_per_heartbeat, 1);
        assert!(c.assign_multiple);
        assert_eq!(c.map_share, None);
    }

    #[test]
    fn every_known_key_is_handled() {
        for key in KNOWN_KEYS {
            // An empty value means the default, so this only proves the key is accepted.
            assert!(
                Config::from_properties(&props(&[(key, "")])).is_ok(),
                "{key}"
            );
        }
        let c = Config::from_properties(&props(&[
            (POLICY, "fifo"),
            (LOCALITY, " hadoop "),
            (HOTSPOT, "off"),
            (SLOTS, "static"),
            (SLOTS_MAP_SHARE, "0.75"),
            (OFF_SWITCH_PER_HEARTBEAT, "3"),
            (ASSIGN_MULTIPLE, "FALSE"),
            ("yarn.scheduler.minimum-allocation-mb", "whatever"),
        ]))
        .unwrap();
        assert_eq!(c.map_share, Some(0.75));
        assert_eq!(c.off_switch_per_heartbeat, 3);
        assert!(!c.assign_multiple);
    }

    #[test]
    fn unknown_key_is_named_with_the_known_keys() {
        let (key, message) = config_err(&[("locus.polcy", "fifo")]);
        assert_eq!(key, "locus.polcy");
        assert!(
            message.contains("locus.policy") && message.contains("locus.assign-multiple"),
            "{message}"
        );
    }

    #[test]
    fn bad_values_name_key_value_and_allowed() {
        let (key, message) = config_err(&[(POLICY, "lottery")]);
        assert_eq!(key, POLICY);
        assert!(
            message.contains("\"lottery\"") && message.contains("allowed: fifo"),
            "{message}"
        );

        let (_, message) = config_err(&[(POLICY, "fair")]);
        assert!(message.contains("planned but not implemented"), "{message}");

        let (key, message) = config_err(&[(LOCALITY, "delay")]);
        assert_eq!(key, LOCALITY);
        assert!(message.contains("allowed: hadoop"), "{message}");

        let (key, _) = config_err(&[(HOTSPOT, "hot-queue")]);
        assert_eq!(key, HOTSPOT);
        let (key, _) = config_err(&[(SLOTS, "fresh-dynamic")]);
        assert_eq!(key, SLOTS);

        let (key, message) = config_err(&[(OFF_SWITCH_PER_HEARTBEAT, "0")]);
        assert_eq!(key, OFF_SWITCH_PER_HEARTBEAT);
        assert!(
            message.contains("\"0\"") && message.contains("1 to 10000"),
            "{message}"
        );
        let (_, message) = config_err(&[(OFF_SWITCH_PER_HEARTBEAT, "many")]);
        assert!(message.contains("\"many\""), "{message}");

        let (key, message) = config_err(&[(ASSIGN_MULTIPLE, "yes")]);
        assert_eq!(key, ASSIGN_MULTIPLE);
        assert!(message.contains("true, false"), "{message}");

        let (key, message) = config_err(&[(SLOTS_MAP_SHARE, "1.5")]);
        assert_eq!(key, SLOTS_MAP_SHARE);
        assert!(message.contains("between 0 and 1"), "{message}");
    }

    #[test]
    fn mapping_file_is_read_and_its_errors_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("locus-config-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.txt");
        std::fs::write(&good, "# hosts\nvps1 east\n").unwrap();
        let c =
            Config::from_properties(&props(&[(DATACENTER_MAPPING_FILE, good.to_str().unwrap())]))
                .unwrap();
        assert_eq!(c.datacenter_mapping.get("vps1"), Some("east"));

        let bad = dir.join("bad.txt");
        std::fs::write(&bad, "vps1 east\n\nvps2\n").unwrap();
        let (key, message) = config_err(&[(DATACENTER_MAPPING_FILE, bad.to_str().unwrap())]);
        assert_eq!(key, DATACENTER_MAPPING_FILE);
        assert!(message.contains("bad.txt line 3"), "{message}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
