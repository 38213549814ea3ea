//! Locus settings: every `locus.*` property of the RM's Configuration, as strings.
//!
//! The keys, their defaults and allowed values are in [`KEYS`]; docs/operator/configuration.md
//! is generated from it.
//!
//! Keys not starting with `locus.` are ignored. An empty value means the default, because
//! Hadoop's sample yarn-site.xml lists optional keys with empty values. An unknown `locus.*`
//! key or a bad value is a [`CoreError::Config`] naming the key and what is allowed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::CoreError;
use crate::papers::fresh::yarn::FreshSettings;
use crate::papers::mrosa::yarn::{MrosaSettings, PublicPool};
use crate::papers::td::{TdConfig, TdParam, TdParamError};
use crate::profile::parse_number;
use crate::profile::store::ProfileStore;
use crate::state::topology::{DatacenterMapping, MAPPING_KEY};

pub const POLICY: &str = "locus.policy";
pub const LOCALITY: &str = "locus.locality";
pub const HOTSPOT: &str = "locus.hotspot";
pub const SLOTS: &str = "locus.slots";
pub const SLOTS_MAP_SHARE: &str = "locus.slots.map-share";
pub const OFF_SWITCH_PER_HEARTBEAT: &str = "locus.off-switch-per-heartbeat";
pub const ASSIGN_MULTIPLE: &str = "locus.assign-multiple";
pub const SCHEDULING_MODE: &str = "locus.scheduling.mode";
pub const SCHEDULING_EAGER: &str = "locus.scheduling.eager";
pub const DATACENTER_MAPPING_FILE: &str = MAPPING_KEY;
pub use crate::policy::capacity::CAPACITY_QUEUES;
pub use crate::policy::capacity_tree::CAPACITY_TREE;
pub const CAPACITY_IGNORE_FILE: &str = "locus.capacity.ignore-file";
pub const FRESH_K: &str = "locus.fresh.k";
pub const FRESH_TAU1: &str = "locus.fresh.tau1";
pub const FRESH_TAU2: &str = "locus.fresh.tau2";
pub const MROSA_PUBLIC_FILE: &str = "locus.mrosa.public.file";
pub const MROSA_RHO: &str = "locus.mrosa.rho";
pub const MROSA_INIT_SECS: &str = "locus.mrosa.init-secs";
pub const MROSA_PRIVATE_MIPS: &str = "locus.mrosa.private.mips";
pub const MROSA_PRIVATE_BANDWIDTH: &str = "locus.mrosa.private.bandwidth";
pub const MROSA_SPLIT_MB: &str = "locus.mrosa.split-mb";
pub use crate::profile::{
    PROFILE_DEFAULT_MAP_SECS, PROFILE_DEFAULT_REDUCE_SECS, PROFILE_STORE_KEY as PROFILE_STORE,
};
pub const DELAY_NODE_THRESHOLD: &str = "locus.delay.node-locality-threshold";
pub const DELAY_RACK_THRESHOLD: &str = "locus.delay.rack-locality-threshold";
pub const DELAY_IDLE_ROOM: &str = "locus.delay.idle-room";
pub const PREEMPTION_SIZE_BASED: &str = "locus.preemption.size-based";
pub const JOSS_THRESHOLD: &str = "locus.joss.threshold";
pub const TD_LOWER_BOUND: &str = "locus.td.lower-bound";
pub const TD_UPPER_BOUND: &str = "locus.td.upper-bound";
pub const TD_HOTSPOT_READERS: &str = "locus.td.hotspot-readers";
pub const TD_SPLIT_BYTES: &str = "locus.td.split-bytes";
pub const TD_BANDWIDTH: &str = "locus.td.bandwidth";
pub use crate::hints::HINTS_TRUSTED;
pub const APP_MAX_ASK_ROWS: &str = crate::state::ask::MAX_ASK_ROWS_KEY;
pub const APP_MAX_RESOURCE_NAMES: &str = crate::state::ask::MAX_RESOURCE_NAMES_KEY;

/// TD's parameters are read from these keys, so a parameter TD refuses is the key's error.
impl From<TdParamError> for CoreError {
    fn from(e: TdParamError) -> Self {
        let key = match e.param {
            TdParam::LowerBound => TD_LOWER_BOUND,
            TdParam::UpperBound => TD_UPPER_BOUND,
            TdParam::HotspotReaders => TD_HOTSPOT_READERS,
            TdParam::SplitBytes => TD_SPLIT_BYTES,
            TdParam::Bandwidth => TD_BANDWIDTH,
        };
        CoreError::Config {
            key: key.to_string(),
            message: e.message,
        }
    }
}

/// How the sample `hadoop-conf/yarn-site.xml` shows a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InSample {
    /// A `<property>` whose value is [`Key::default`].
    Shown,
    /// Inside a comment only: any value, even an empty one, switches off a choice the RM makes
    /// when the key is absent.
    CommentedOut,
    /// Not in the sample: written by the shim, not by operators.
    Internal,
}

/// One `locus.*` setting: the parser accepts exactly these names, and the sample yarn-site.xml
/// and docs/operator/configuration.md are checked against this table by tests/sample_config.rs.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    /// The kind of value, for the reference page.
    pub kind: &'static str,
    /// The value in force when the key is unset or empty, spelled as the parser accepts it;
    /// empty when the default is "none" or depends on other settings ([`Key::unset`] says).
    pub default: &'static str,
    /// What an unset key means when that is not simply [`Key::default`]; empty otherwise.
    pub unset: &'static str,
    pub allowed: &'static str,
    /// One line: what the key changes.
    pub meaning: &'static str,
    pub in_sample: InSample,
}

const fn key(
    name: &'static str,
    kind: &'static str,
    default: &'static str,
    unset: &'static str,
    allowed: &'static str,
    meaning: &'static str,
) -> Key {
    Key {
        name,
        kind,
        default,
        unset,
        allowed,
        meaning,
        in_sample: InSample::Shown,
    }
}

/// Every key the core understands, in the order of the reference page.
pub const KEYS: &[Key] = &[
    Key {
        in_sample: InSample::CommentedOut,
        ..key(
            POLICY,
            "choice",
            "fsp",
            "`fsp`; `capacity` when the key is absent and capacity-scheduler.xml defines two or more leaf queues",
            "`fifo`, `fair`, `fsp`, `capacity`, `joss-t`, `joss-j`, `td`, `fresh`, `mrosa`",
            "job-level policy: which job gets freed capacity (docs/operator/scheduling.md)",
        )
    },
    key(
        CAPACITY_QUEUES,
        "list",
        "",
        "capacity-scheduler.xml's queues, else `default:100`",
        "`name:capacity[:maximum-capacity]`, comma-separated, percent of the cluster's memory, capacities summing to 100",
        "for `capacity`: queues that replace capacity-scheduler.xml's (docs/operator/queues.md)",
    ),
    key(
        CAPACITY_IGNORE_FILE,
        "boolean",
        "false",
        "",
        "`true`, `false`",
        "`true`: run a policy other than `capacity` although capacity-scheduler.xml defines several leaf queues (every application then runs in Locus's one queue); `false`: such a start is refused (docs/operator/queues.md)",
    ),
    Key {
        in_sample: InSample::Internal,
        ..key(
            CAPACITY_TREE,
            "JSON",
            "",
            "set by the shim",
            "written by the shim",
            "not for operators: the queue tree read from capacity-scheduler.xml with CapacityScheduler's parser",
        )
    },
    key(
        LOCALITY,
        "choice",
        "",
        "`delay`; `hadoop` under `td`, `joss-t`, `joss-j` (they place maps themselves)",
        "`hadoop`, `delay`, `delay-room`, `matchmaking`",
        "locality technique for tasks whose asks name hosts or racks",
    ),
    key(
        DELAY_NODE_THRESHOLD,
        "number",
        "1.0",
        "",
        "0 to 10 (fraction of the node count; 0 = no wait)",
        "for `delay`: missed nodes in a row before node-local relaxes to rack-local",
    ),
    key(
        DELAY_RACK_THRESHOLD,
        "number",
        "1.0",
        "",
        "0 to 10",
        "for `delay`: the same for rack-local to off-switch",
    ),
    key(
        DELAY_IDLE_ROOM,
        "boolean",
        "true",
        "",
        "`true`, `false`",
        "for `delay`, `delay-room`: misses on room nobody took also count, so a waiting key does not idle the cluster",
    ),
    key(
        PREEMPTION_SIZE_BASED,
        "boolean",
        "false",
        "",
        "`true` (only under `fsp` and `fair`), `false`",
        "under `fsp`, `fair`: preemption rounds (the RM's scheduling monitor) take containers back from the applications latest in the policy's order for a running application held back beyond its entitlement (docs/operator/preemption.md)",
    ),
    key(
        HOTSPOT,
        "choice",
        "off",
        "",
        "`off`, `hot-queue`",
        "hotspot guard: `hot-queue` = TD's hot queue, at most θ concurrent non-local readers per host",
    ),
    key(
        SLOTS,
        "choice",
        "static",
        "",
        "`static`, `fresh-static`, `fresh-dynamic` (needs `fresh`)",
        "slot configurator: the share of capacity map vs reduce containers may hold",
    ),
    key(
        SLOTS_MAP_SHARE,
        "number",
        "",
        "no cap",
        "strictly between 0 and 1",
        "for `static`: the share of memory and vcores map containers may hold",
    ),
    key(
        OFF_SWITCH_PER_HEARTBEAT,
        "integer",
        "1",
        "",
        "1 to 10000",
        "off-switch containers per node heartbeat, over all apps",
    ),
    key(
        ASSIGN_MULTIPLE,
        "boolean",
        "true",
        "",
        "`true`, `false`",
        "fill a node with as many containers as fit per heartbeat (`false`: one)",
    ),
    key(
        SCHEDULING_MODE,
        "choice",
        "auto",
        "",
        "`auto`, `async`, `heartbeat`",
        "when the scheduling thread decides: per node heartbeat, or also in passes over every node (docs/operator/scheduling.md)",
    ),
    key(
        SCHEDULING_EAGER,
        "boolean",
        "true",
        "",
        "`true`, `false`",
        "under `heartbeat` mode, place asks with nothing to wait for (no host or rack named, or a locality wait over) when they arrive or room is released (`false`: only at node heartbeats)",
    ),
    key(
        APP_MAX_ASK_ROWS,
        "integer",
        "12288",
        "",
        "1 to 10000000",
        "rows (scheduler key × resource name) one application's asks may hold; an update over it is refused for that app",
    ),
    key(
        APP_MAX_RESOURCE_NAMES,
        "integer",
        "8192",
        "",
        "1 to 10000000",
        "distinct resource names one application's asks may name",
    ),
    key(
        DATACENTER_MAPPING_FILE,
        "path",
        "",
        "none: the datacenter comes from a two-level network location",
        "a regular file of at most 16 MiB, `host datacenter` lines (`#` comments)",
        "datacenters for nodes whose network location has one component",
    ),
    key(
        JOSS_THRESHOLD,
        "number",
        "",
        "k/(k−1) for the k datacenters present (JoSS Eq. 8)",
        "a positive number",
        "for `joss-t`, `joss-j`: the filtering percentage above which a small job is reduce-heavy",
    ),
    key(
        TD_LOWER_BOUND,
        "number",
        "0.7",
        "",
        "strictly between 0 and 1",
        "for `td`: L, every co-scheduled job keeps at least L·demand map containers",
    ),
    key(
        TD_UPPER_BOUND,
        "number",
        "1.3",
        "",
        "greater than 1",
        "for `td`: H, no job holds more than H·demand map containers",
    ),
    key(
        TD_HOTSPOT_READERS,
        "integer",
        "3",
        "",
        "1 to 1000",
        "θ for `hot-queue` and `td`: non-local readers that make a host a hotspot",
    ),
    key(
        TD_SPLIT_BYTES,
        "integer",
        "67108864",
        "",
        "1 to 2^40",
        "δ: the split (HDFS block) size in bytes",
    ),
    key(
        TD_BANDWIDTH,
        "number",
        "125000000",
        "",
        "a positive number",
        "ρ: a node's network bandwidth in bytes per second (a non-local read lasts θ·δ/ρ)",
    ),
    key(
        HINTS_TRUSTED,
        "list",
        "",
        "nobody",
        "comma-separated users, or `*`",
        "who may use the job hints `locus.deadline=`, `locus.budget=`, `locus.demand=`; others' are logged and ignored",
    ),
    key(
        PROFILE_STORE,
        "path",
        "",
        "in memory only",
        "a regular file, not a link, of at most 128 MiB (JSON, written atomically, mode 0600)",
        "where learned job profiles are kept across RM restarts",
    ),
    key(
        PROFILE_DEFAULT_MAP_SECS,
        "number",
        "30",
        "",
        "0.001 to 86400",
        "seconds a map is assumed to take for a job with no profile yet (FRESH, MROSA)",
    ),
    key(
        PROFILE_DEFAULT_REDUCE_SECS,
        "number",
        "60",
        "",
        "0.001 to 86400",
        "the same for reduces",
    ),
    key(
        FRESH_K,
        "integer",
        "10",
        "",
        "1 to 10000",
        "FRESH's admission control k: at most k jobs in their map phase and k in their reduce phase",
    ),
    key(
        FRESH_TAU1,
        "number",
        "0.8",
        "",
        "0 to 1",
        "FRESH's τ1, CalExpSm's map-progress threshold",
    ),
    key(
        FRESH_TAU2,
        "number",
        "0.6",
        "",
        "0 to 100",
        "FRESH's τ2, CalExpSm's ratio-difference threshold",
    ),
    key(
        MROSA_PUBLIC_FILE,
        "path",
        "",
        "no public cloud",
        "a file of `host type price-per-sec mips mb-per-sec` and `* type ... [provider]` lines",
        "for `mrosa`: the public-cloud nodes and the instance types that can be started",
    ),
    key(
        MROSA_RHO,
        "number",
        "0.5",
        "",
        "0 to 1",
        "for `mrosa`: ρ of eq. 8, the budget's weight against the deadline",
    ),
    key(
        MROSA_INIT_SECS,
        "number",
        "30",
        "",
        "0 to 86400",
        "for `mrosa`: T_init, seconds until a new public instance runs a task",
    ),
    key(
        MROSA_PRIVATE_MIPS,
        "number",
        "2600",
        "",
        "a positive number",
        "for `mrosa`: speed of one private container in MIPS",
    ),
    key(
        MROSA_PRIVATE_BANDWIDTH,
        "number",
        "125",
        "",
        "a positive number",
        "for `mrosa`: MB/s a private container reads its input at",
    ),
    key(
        MROSA_SPLIT_MB,
        "number",
        "128",
        "",
        "a positive number",
        "for `mrosa`: MB of input per map task",
    ),
];

fn is_known(name: &str) -> bool {
    KEYS.iter().any(|k| k.name == name)
}

const OFF_SWITCH_MAX: u32 = 10_000;
/// Upper end of the `locus.app.*` limits: beyond ten million rows one app's asks alone would
/// hold gigabytes, which no bound worth the name allows.
const APP_LIMIT_MAX: u64 = 10_000_000;

/// A layer choice: the implemented values and those planned, so an operator asking for
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
    JobPolicyKind, POLICY, { Fifo = "fifo", Fair = "fair", Fsp = "fsp", JossT = "joss-t", JossJ = "joss-j", Td = "td", Fresh = "fresh", Mrosa = "mrosa", Capacity = "capacity" },
    planned: []
);
choice!(
    /// How map tasks trade waiting for locality.
    LocalityKind, LOCALITY, { Hadoop = "hadoop", Delay = "delay", DelayRoom = "delay-room", Matchmaking = "matchmaking" },
    planned: []
);
choice!(
    /// Whether hot nodes are protected from too many non-local readers.
    HotspotKind, HOTSPOT, { Off = "off", HotQueue = "hot-queue" },
    planned: []
);
choice!(
    /// When the shim asks for decisions: passes of its own, or one round per node heartbeat.
    SchedulingModeKind, SCHEDULING_MODE, { Auto = "auto", Async = "async", Heartbeat = "heartbeat" },
    planned: []
);
choice!(
    /// How capacity is split between map and reduce containers.
    SlotsKind, SLOTS, { Static = "static", FreshStatic = "fresh-static", FreshDynamic = "fresh-dynamic" },
    planned: []
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
    /// `None`: the policy's default ([`Config::scheduling_mode`]).
    pub scheduling_mode: Option<SchedulingModeKind>,
    /// `locus.scheduling.eager`: under `heartbeat` mode the shim also makes eager offers
    /// ([`crate::Heartbeat::eager`]) when asks arrive or room is released.
    pub scheduling_eager: bool,
    pub datacenter_mapping_file: Option<PathBuf>,
    /// The file's content, read once when the settings are (re)loaded.
    pub datacenter_mapping: DatacenterMapping,
    /// `delay`'s thresholds, as fractions of the cluster's node count.
    pub delay_node_threshold: f64,
    pub delay_rack_threshold: f64,
    /// Whether `delay` counts misses on room left idle across a key's containers.
    pub delay_idle_room: bool,
    /// `locus.preemption.size-based`: preemption rounds under `fsp` and `fair` take room back
    /// for the applications the policy's order entitles to it ([`crate::preemption`]).
    pub preemption_size_based: bool,
    /// TD's parameters (θ, δ, ρ for the hot queue), validated by the paper module.
    pub td: TdConfig,
    /// JoSS's td; `None` = k/(k−1) for k datacenters (Eq. 8).
    pub joss_threshold: Option<f64>,
    /// FRESH's k, τ1, τ2.
    pub fresh: crate::papers::fresh::yarn::FreshSettings,
    /// MROSA's ρ, T_init, private speed, public pool.
    pub mrosa: crate::papers::mrosa::yarn::MrosaSettings,
    /// `capacity`'s queues: `locus.capacity.queues` when set, else capacity-scheduler.xml's tree
    /// (`locus.capacity.tree`, written by the shim), else `default:100`.
    pub capacity: crate::policy::capacity::CapacityQueues,
    /// Why capacity-scheduler.xml's queues are not the ones in force, for the start-up log
    /// (`None`: they are, or there is no file).
    pub capacity_file_ignored: Option<String>,
    /// Read by the core at start and when a refresh changes it, never here: a refresh must not
    /// touch the disk for a store the core already holds.
    pub profile_store: Option<PathBuf>,
    pub profile_defaults: crate::profile::ProfileDefaults,
    /// `locus.hints.trusted`.
    pub hints_trusted: crate::hints::TrustedSubmitters,
    /// `locus.app.max-ask-rows` and `locus.app.max-resource-names`.
    pub app_limits: crate::state::ask::AskLimits,
    /// The system-wide application maximum and the one queue's outside `capacity`, from
    /// capacity-scheduler.xml (`locus.capacity.tree`) whatever the policy.
    pub submission: crate::policy::capacity_tree::SubmissionLimits,
    /// capacity-scheduler.xml's running-application limits (`max-parallel-apps`), whatever the
    /// policy: the file's queues' under `capacity`, the one queue's otherwise.
    pub parallel: crate::state::parallel::ParallelLimits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            // docs/results/default-policy.md: fsp + delay has the smallest worst-case turnaround over
            // the matrix (`./locus bench matrix`) among the configurations whose node-locality
            // is no worse than fifo's.
            policy: JobPolicyKind::Fsp,
            locality: LocalityKind::Delay,
            hotspot: HotspotKind::Off,
            slots: SlotsKind::Static,
            map_share: None,
            off_switch_per_heartbeat: 1,
            assign_multiple: true,
            scheduling_mode: None,
            scheduling_eager: true,
            datacenter_mapping_file: None,
            datacenter_mapping: DatacenterMapping::default(),
            delay_node_threshold: 1.0,
            delay_rack_threshold: 1.0,
            delay_idle_room: true,
            // docs/results/2026-11-29-size-based-preemption.md.
            preemption_size_based: false,
            // T is not a setting: the TD policy counts the cluster's map slots itself.
            td: TdConfig::with_slots(0),
            joss_threshold: None,
            fresh: Default::default(),
            mrosa: Default::default(),
            capacity: Default::default(),
            capacity_file_ignored: None,
            profile_store: None,
            profile_defaults: Default::default(),
            hints_trusted: Default::default(),
            submission: Default::default(),
            parallel: Default::default(),
            app_limits: Default::default(),
        }
    }
}

impl Config {
    /// The mode in force, `async` or `heartbeat` (never `auto`): the setting, and for `auto`
    /// (the default) `heartbeat` wherever something counts node heartbeats, `async` elsewhere.
    /// `heartbeat` for the papers' job policies (JoSS, TD, FRESH, MROSA) and TD's `hot-queue`
    /// guard: they are defined per node heartbeat (a slot at a time, one off-switch or one
    /// non-local reader per host per heartbeat), and a sweep offering every node every few
    /// milliseconds would multiply those per-heartbeat allowances. `heartbeat` too under a
    /// locality wait (`delay`, `delay-room`, `matchmaking`), the default fsp + delay included:
    /// their waits are counted in heartbeats in both modes, so a sweep can only place what a
    /// heartbeat already allowed, and on real MapReduce jobs `async` finished the batch later in
    /// every paired run (docs/results/default-policy.md "Scheduling mode"), while
    /// SLS measured no gain from it at the saturating scale. `async` for the Hadoop-style orders
    /// (`fifo`, `fair`, `fsp`, `capacity`) with `hadoop` locality, which waits for nothing, as
    /// CapacityScheduler schedules asynchronously by default.
    pub fn scheduling_mode(&self) -> SchedulingModeKind {
        match self.scheduling_mode {
            Some(SchedulingModeKind::Async) => SchedulingModeKind::Async,
            Some(SchedulingModeKind::Heartbeat) => SchedulingModeKind::Heartbeat,
            None | Some(SchedulingModeKind::Auto) => {
                let papers = matches!(
                    self.policy,
                    JobPolicyKind::JossT
                        | JobPolicyKind::JossJ
                        | JobPolicyKind::Td
                        | JobPolicyKind::Fresh
                        | JobPolicyKind::Mrosa
                );
                let waits = self.locality != LocalityKind::Hadoop;
                if papers || waits || self.hotspot == HotspotKind::HotQueue {
                    SchedulingModeKind::Heartbeat
                } else {
                    SchedulingModeKind::Async
                }
            }
        }
    }

    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Config, CoreError> {
        Self::from_properties_reusing(props, &SideFiles::default())
    }

    /// As [`Config::from_properties`], taking each side file `reuse` holds for the same path
    /// instead of reading it (a rebuilt core: [`crate::side_files`]).
    pub fn from_properties_reusing(
        props: &BTreeMap<String, String>,
        reuse: &SideFiles,
    ) -> Result<Config, CoreError> {
        let mut cfg = Config::default();
        let mut locality_given = false;
        let mut tree: Option<&str> = None;
        let mut shortcut_given = false;
        let mut ignore_file = false;
        for (key, raw) in props {
            if !key.starts_with("locus.") {
                continue;
            }
            let value = raw.trim();
            if !is_known(key) {
                let known: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
                return Err(CoreError::Config {
                    key: key.clone(),
                    message: format!(
                        "unknown Locus setting; known settings: {}",
                        known.join(", ")
                    ),
                });
            }
            if value.is_empty() {
                continue;
            }
            match key.as_str() {
                POLICY => cfg.policy = JobPolicyKind::parse(value)?,
                CAPACITY_QUEUES => {
                    cfg.capacity = crate::policy::capacity::CapacityQueues::parse(value)?;
                    shortcut_given = true;
                }
                // Read after the loop: it depends on the policy and on the shortcut.
                CAPACITY_TREE => tree = Some(value),
                CAPACITY_IGNORE_FILE => ignore_file = parse_bool(key, value)?,
                LOCALITY => {
                    cfg.locality = LocalityKind::parse(value)?;
                    locality_given = true;
                }
                HOTSPOT => cfg.hotspot = HotspotKind::parse(value)?,
                SLOTS => cfg.slots = SlotsKind::parse(value)?,
                SLOTS_MAP_SHARE => cfg.map_share = Some(parse_share(key, value)?),
                OFF_SWITCH_PER_HEARTBEAT => {
                    cfg.off_switch_per_heartbeat = parse_int(key, value, 1, OFF_SWITCH_MAX)?
                }
                ASSIGN_MULTIPLE => cfg.assign_multiple = parse_bool(key, value)?,
                SCHEDULING_MODE => cfg.scheduling_mode = Some(SchedulingModeKind::parse(value)?),
                SCHEDULING_EAGER => cfg.scheduling_eager = parse_bool(key, value)?,
                APP_MAX_ASK_ROWS => {
                    cfg.app_limits.max_rows = parse_u64(key, value, 1, APP_LIMIT_MAX)? as usize
                }
                APP_MAX_RESOURCE_NAMES => {
                    cfg.app_limits.max_names = parse_u64(key, value, 1, APP_LIMIT_MAX)? as usize
                }
                DATACENTER_MAPPING_FILE => {
                    let path = PathBuf::from(value);
                    cfg.datacenter_mapping = match reuse.mapping_of(&path) {
                        Some(parsed) => parsed.clone(),
                        None => DatacenterMapping::load(&path)?,
                    };
                    cfg.datacenter_mapping_file = Some(path);
                }
                DELAY_NODE_THRESHOLD => cfg.delay_node_threshold = parse_threshold(key, value)?,
                DELAY_RACK_THRESHOLD => cfg.delay_rack_threshold = parse_threshold(key, value)?,
                DELAY_IDLE_ROOM => cfg.delay_idle_room = parse_bool(key, value)?,
                PREEMPTION_SIZE_BASED => cfg.preemption_size_based = parse_bool(key, value)?,
                JOSS_THRESHOLD => cfg.joss_threshold = Some(parse_positive(key, value)?),
                TD_LOWER_BOUND => cfg.td.lower_bound = parse_positive(key, value)?,
                TD_UPPER_BOUND => cfg.td.upper_bound = parse_positive(key, value)?,
                TD_HOTSPOT_READERS => cfg.td.hotspot_readers = parse_int(key, value, 1, 1000)?,
                TD_SPLIT_BYTES => cfg.td.split_bytes = parse_u64(key, value, 1, 1 << 40)?,
                TD_BANDWIDTH => cfg.td.bandwidth_bytes_per_sec = parse_positive(key, value)?,
                FRESH_K | FRESH_TAU1 | FRESH_TAU2 => set_fresh(&mut cfg.fresh, key, value)?,
                PROFILE_DEFAULT_MAP_SECS | PROFILE_DEFAULT_REDUCE_SECS => {
                    cfg.profile_defaults.set(key, value)?
                }
                HINTS_TRUSTED => cfg.hints_trusted = crate::hints::TrustedSubmitters::parse(value)?,
                PROFILE_STORE => cfg.profile_store = Some(PathBuf::from(value)),
                MROSA_PUBLIC_FILE if reuse.public_pool_of(Path::new(value)).is_some() => {
                    let path = PathBuf::from(value);
                    cfg.mrosa.pool = reuse.public_pool_of(&path).cloned().unwrap_or_default();
                    cfg.mrosa.public_file = Some(path);
                }
                MROSA_PUBLIC_FILE
                | MROSA_RHO
                | MROSA_INIT_SECS
                | MROSA_PRIVATE_MIPS
                | MROSA_PRIVATE_BANDWIDTH
                | MROSA_SPLIT_MB => set_mrosa(&mut cfg.mrosa, key, value)?,
                _ => {
                    // KEYS and this match are kept in step by the tests below; an entry in
                    // one but not the other is reported rather than silently ignored.
                    return Err(CoreError::Config {
                        key: key.clone(),
                        message: "known but not handled; this is a Locus bug".into(),
                    });
                }
            }
        }
        if let Some(tree) = tree {
            let leaves = crate::policy::capacity_tree::leaves_or_refusal(tree)?;
            if leaves >= 2
                && !shortcut_given
                && cfg.policy != JobPolicyKind::Capacity
                && !ignore_file
            {
                // The operator's tenants would share one queue, and the RM's reports would
                // still name the queues they asked for.
                return Err(CoreError::Config {
                    key: POLICY.to_string(),
                    message: format!(
                        "is {} but capacity-scheduler.xml defines {leaves} leaf queues, which only {POLICY}=capacity runs; remove {POLICY} (Locus then runs capacity over them), set it to capacity, or set {CAPACITY_IGNORE_FILE}=true to run every application in one queue",
                        cfg.policy.as_str()
                    ),
                });
            }
            if shortcut_given {
                cfg.capacity_file_ignored = Some(format!(
                    "{CAPACITY_QUEUES} is set and replaces capacity-scheduler.xml's queues"
                ));
            } else if cfg.policy != JobPolicyKind::Capacity {
                cfg.capacity_file_ignored = Some(format!(
                    "capacity-scheduler.xml's queues are used only under {POLICY}=capacity, not {}",
                    cfg.policy.as_str()
                ));
            } else {
                cfg.capacity = crate::policy::capacity_tree::parse(tree)?;
            }
        }
        cfg.submission = crate::policy::capacity_tree::submission_limits(tree)?;
        cfg.parallel = crate::policy::capacity_tree::parallel_limits(
            tree,
            cfg.policy == JobPolicyKind::Capacity && !shortcut_given,
        )?;
        if cfg.policy == JobPolicyKind::Capacity {
            cfg.capacity
                .default_application_limits(cfg.submission.system);
        }
        if !locality_given && places_maps_itself(cfg.policy).is_some() {
            // The default technique only where the policy leaves map placement to a layer.
            cfg.locality = LocalityKind::Hadoop;
        }
        cfg.td.validate()?;
        check_combination(&cfg)?;
        cfg.check_combination()?;
        Ok(cfg)
    }
}

impl Config {
    /// Combinations that cannot work, refused at start with the reason.
    fn check_combination(&self) -> Result<(), CoreError> {
        let refuse = |key: &str, message: String| {
            Err(CoreError::Config {
                key: key.to_string(),
                message,
            })
        };
        if self.slots == SlotsKind::FreshDynamic && self.policy != JobPolicyKind::Fresh {
            return refuse(
                SLOTS,
                format!(
                    "fresh-dynamic needs locus.policy=fresh, not {}: FRESH's Algorithms 2-4 work together (its admission control k decides which jobs use the map and reduce slots Algorithm 2 configures)",
                    self.policy.as_str()
                ),
            );
        }
        if self.map_share.is_some() && self.slots != SlotsKind::Static {
            return refuse(
                SLOTS_MAP_SHARE,
                format!(
                    "is only for locus.slots=static; {} computes the split itself",
                    self.slots.as_str()
                ),
            );
        }
        if self.capacity != Default::default() && self.policy != JobPolicyKind::Capacity {
            return refuse(
                CAPACITY_QUEUES,
                format!(
                    "only locus.policy=capacity enforces queues; with {} they would be ignored (leave the key empty)",
                    self.policy.as_str()
                ),
            );
        }
        if self.preemption_size_based
            && !matches!(self.policy, JobPolicyKind::Fsp | JobPolicyKind::Fair)
        {
            return refuse(
                PREEMPTION_SIZE_BASED,
                format!(
                    "takes room back in the order of fsp or fair, not {}{}",
                    self.policy.as_str(),
                    if self.policy == JobPolicyKind::Capacity {
                        " (capacity's queues have their own preemption: docs/operator/preemption.md)"
                    } else {
                        ""
                    }
                ),
            );
        }
        if self.mrosa.public_file.is_some() && self.policy != JobPolicyKind::Mrosa {
            return refuse(
                MROSA_PUBLIC_FILE,
                format!(
                    "marks public-cloud nodes, which only locus.policy=mrosa keeps apart; with {} they would run ordinary work",
                    self.policy.as_str()
                ),
            );
        }
        Ok(())
    }
}

/// Why a policy places map tasks itself, for those that do (they take only `hadoop`).
fn places_maps_itself(policy: JobPolicyKind) -> Option<&'static str> {
    match policy {
        JobPolicyKind::JossT | JobPolicyKind::JossJ => {
            Some("JoSS places map tasks with its own assigner (TTA/JTA, VPS- then datacenter-locality)")
        }
        JobPolicyKind::Td => Some(
            "TD decides locality itself (local slots to I/O-bound jobs, non-local ones to CPU-bound jobs)",
        ),
        _ => None,
    }
}

/// Layer choices that contradict each other are refused at start, naming the setting to change.
fn check_combination(cfg: &Config) -> Result<(), CoreError> {
    if let Some(why) = places_maps_itself(cfg.policy) {
        if cfg.locality != LocalityKind::Hadoop {
            return Err(CoreError::Config {
                key: LOCALITY.to_string(),
                message: format!(
                    "{:?} cannot be combined with locus.policy={}: {why}; use locus.locality=hadoop",
                    cfg.locality.as_str(),
                    cfg.policy.as_str()
                ),
            });
        }
    }
    Ok(())
}

fn parse_threshold(key: &str, value: &str) -> Result<f64, CoreError> {
    match value.parse::<f64>() {
        Ok(x) if (0.0..=10.0).contains(&x) => Ok(x),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!(
                "invalid value {value:?}; allowed: a number from 0 to 10 (a fraction of the cluster's node count; 0 = no wait)"
            ),
        }),
    }
}

fn parse_u64(key: &str, value: &str, min: u64, max: u64) -> Result<u64, CoreError> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!("invalid value {value:?}; allowed: an integer from {min} to {max}"),
        }),
    }
}

fn set_fresh(s: &mut FreshSettings, key: &str, value: &str) -> Result<(), CoreError> {
    match key {
        FRESH_K => match value.trim().parse::<u32>() {
            Ok(k) if (1..=10_000).contains(&k) => s.k = k,
            _ => {
                return Err(CoreError::Config {
                    key: key.to_string(),
                    message: format!(
                        "invalid value {value:?}; allowed: an integer from 1 to 10000"
                    ),
                })
            }
        },
        FRESH_TAU1 => s.tau1 = parse_number(key, value, 0.0, 1.0)?,
        _ => s.tau2 = parse_number(key, value, 0.0, 100.0)?,
    }
    Ok(())
}

fn set_mrosa(s: &mut MrosaSettings, key: &str, value: &str) -> Result<(), CoreError> {
    match key {
        MROSA_PUBLIC_FILE => {
            let path = PathBuf::from(value);
            s.pool = load_public_pool(&path)?;
            s.public_file = Some(path);
        }
        MROSA_RHO => s.rho = parse_number(key, value, 0.0, 1.0)?,
        MROSA_INIT_SECS => s.init_secs = parse_number(key, value, 0.0, 86_400.0)?,
        MROSA_PRIVATE_MIPS => s.private_mips = parse_number(key, value, 1e-6, 1e12)?,
        MROSA_PRIVATE_BANDWIDTH => s.private_band_mb_s = parse_number(key, value, 1e-6, 1e12)?,
        _ => s.split_mb = parse_number(key, value, 1e-6, 1e9)?,
    }
    Ok(())
}

/// The public pool listed in the file `locus.mrosa.public.file` names; a bad line is that key's
/// error.
pub fn load_public_pool(path: &Path) -> Result<PublicPool, CoreError> {
    let text = crate::state::topology::read_list_file(MROSA_PUBLIC_FILE, path)?;
    PublicPool::parse(&text, &path.display().to_string()).map_err(|message| CoreError::Config {
        key: MROSA_PUBLIC_FILE.into(),
        message,
    })
}

fn parse_positive(key: &str, value: &str) -> Result<f64, CoreError> {
    match value.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!("invalid value {value:?}; allowed: a positive number"),
        }),
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

/// What a core parsed from its side files, each with the path it came from: handed from a
/// core that is being replaced to the one rebuilt in its place ([`crate::Core::into_side_files`],
/// [`crate::Core::rebuilt`]).
#[derive(Debug, Clone, Default)]
pub struct SideFiles {
    pub mapping: Option<(PathBuf, DatacenterMapping)>,
    pub public_pool: Option<(PathBuf, PublicPool)>,
    /// The profile store as the replaced core held it (what its writer was writing).
    pub profiles: Option<(PathBuf, ProfileStore)>,
}

impl SideFiles {
    pub fn is_empty(&self) -> bool {
        self.mapping.is_none() && self.public_pool.is_none() && self.profiles.is_none()
    }

    pub(crate) fn mapping_of(&self, path: &Path) -> Option<&DatacenterMapping> {
        self.mapping
            .as_ref()
            .filter(|(p, _)| p == path)
            .map(|(_, m)| m)
    }

    pub(crate) fn public_pool_of(&self, path: &Path) -> Option<&PublicPool> {
        self.public_pool
            .as_ref()
            .filter(|(p, _)| p == path)
            .map(|(_, m)| m)
    }

    pub(crate) fn take_profiles_of(&mut self, path: &Path) -> Option<ProfileStore> {
        match &self.profiles {
            Some((p, _)) if p == path => self.profiles.take().map(|(_, s)| s),
            _ => None,
        }
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
    fn default_is_fsp_with_delay_and_td_joss_keep_hadoop_locality() {
        let c = Config::from_properties(&BTreeMap::new()).unwrap();
        assert_eq!(
            (c.policy, c.locality),
            (JobPolicyKind::Fsp, LocalityKind::Delay)
        );
        // A policy that places maps itself gets hadoop unless the operator names another
        // technique, which is then refused rather than silently replaced.
        for p in ["td", "joss-t", "joss-j"] {
            let c = Config::from_properties(&props(&[(POLICY, p)])).unwrap();
            assert_eq!(c.locality, LocalityKind::Hadoop, "{p}");
            let (key, _) = config_err(&[(POLICY, p), (LOCALITY, "delay")]);
            assert_eq!(key, LOCALITY, "{p}");
        }
        let c = Config::from_properties(&props(&[(POLICY, "fifo")])).unwrap();
        assert_eq!(c.locality, LocalityKind::Delay);
    }

    #[test]
    fn every_known_key_is_handled() {
        for key in KEYS {
            // An empty value means the default, so this only proves the key is accepted.
            assert!(
                Config::from_properties(&props(&[(key.name, "")])).is_ok(),
                "{}",
                key.name
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
    fn scheduling_mode_is_auto_by_default_and_names_bad_values() {
        let mode = |pairs: &[(&str, &str)]| {
            Config::from_properties(&props(pairs))
                .unwrap()
                .scheduling_mode()
        };
        // auto: the Hadoop-style orders run async where no layer waits for heartbeats ...
        for policy in ["fifo", "fair", "fsp", "capacity"] {
            assert_eq!(
                mode(&[(POLICY, policy), (LOCALITY, "hadoop")]),
                SchedulingModeKind::Async,
                "{policy}"
            );
        }
        // ... and heartbeat under a locality wait, the default fsp + delay included: real jobs
        // finished later under async (docs/results/default-policy.md).
        assert_eq!(mode(&[]), SchedulingModeKind::Heartbeat);
        for locality in ["delay", "delay-room", "matchmaking"] {
            for policy in ["fifo", "fair", "fsp", "capacity"] {
                assert_eq!(
                    mode(&[(POLICY, policy), (LOCALITY, locality)]),
                    SchedulingModeKind::Heartbeat,
                    "{policy} + {locality}"
                );
            }
        }
        // ... the papers' policies, and anything under TD's per-heartbeat hot queue, heartbeat.
        for policy in ["td", "joss-t", "joss-j", "fresh", "mrosa"] {
            assert_eq!(
                mode(&[(POLICY, policy), (SCHEDULING_MODE, "auto")]),
                SchedulingModeKind::Heartbeat,
                "{policy}"
            );
        }
        assert_eq!(
            mode(&[(POLICY, "fsp"), (HOTSPOT, "hot-queue")]),
            SchedulingModeKind::Heartbeat
        );
        assert_eq!(
            mode(&[(POLICY, "capacity"), (SCHEDULING_MODE, "heartbeat")]),
            SchedulingModeKind::Heartbeat
        );
        assert_eq!(
            mode(&[(POLICY, "fresh"), (SCHEDULING_MODE, "async")]),
            SchedulingModeKind::Async
        );
        let (key, message) = config_err(&[(SCHEDULING_MODE, "continuous")]);
        assert_eq!(key, SCHEDULING_MODE);
        assert!(message.contains("auto, async, heartbeat"), "{message}");
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

        let (key, message) = config_err(&[(POLICY, "joss-j"), (LOCALITY, "matchmaking")]);
        assert_eq!(key, LOCALITY);
        assert!(
            message.contains("own assigner") && message.contains("locality=hadoop"),
            "{message}"
        );
        let (key, message) = config_err(&[(POLICY, "td"), (LOCALITY, "delay")]);
        assert_eq!(key, LOCALITY);
        assert!(message.contains("TD decides locality"), "{message}");
        let (key, _) = config_err(&[(JOSS_THRESHOLD, "-2")]);
        assert_eq!(key, JOSS_THRESHOLD);

        let (key, message) = config_err(&[(LOCALITY, "wait")]);
        assert_eq!(key, LOCALITY);
        assert!(
            message.contains("allowed: hadoop, delay, delay-room, matchmaking"),
            "{message}"
        );

        let (key, _) = config_err(&[(HOTSPOT, "on")]);
        assert_eq!(key, HOTSPOT);

        let (key, message) = config_err(&[(DELAY_NODE_THRESHOLD, "-1")]);
        assert_eq!(key, DELAY_NODE_THRESHOLD);
        assert!(message.contains("from 0 to 10"), "{message}");
        let (key, _) = config_err(&[(TD_HOTSPOT_READERS, "0")]);
        assert_eq!(key, TD_HOTSPOT_READERS);
        let (key, message) = config_err(&[(TD_LOWER_BOUND, "1.2")]);
        assert_eq!(key, TD_LOWER_BOUND);
        assert_eq!(message, "L must lie in (0, 1), got 1.2");
        let (key, message) = config_err(&[(TD_UPPER_BOUND, "0.9")]);
        assert_eq!(key, TD_UPPER_BOUND);
        assert_eq!(message, "H must be a finite number > 1, got 0.9");
        let (key, message) = config_err(&[(TD_BANDWIDTH, "fast")]);
        assert_eq!(key, TD_BANDWIDTH);
        assert!(message.contains("positive number"), "{message}");
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
    fn capacity_queues_are_validated_and_only_taken_with_the_capacity_policy() {
        let c = Config::from_properties(&props(&[
            (POLICY, "capacity"),
            (CAPACITY_QUEUES, "a:50:90,b:50:90"),
        ]))
        .unwrap();
        assert_eq!(c.capacity.names(), vec!["a", "b"]);
        let c = Config::from_properties(&props(&[(POLICY, "capacity")])).unwrap();
        assert_eq!(c.capacity.names(), vec!["default"]);

        let (key, message) = config_err(&[(POLICY, "capacity"), (CAPACITY_QUEUES, "a:60,b:60")]);
        assert_eq!(key, CAPACITY_QUEUES);
        assert!(
            message.contains("sum to 120") && message.contains("name:capacity[:maximum-capacity]"),
            "{message}"
        );
        let (key, message) = config_err(&[(POLICY, "fair"), (CAPACITY_QUEUES, "a:50,b:50")]);
        assert_eq!(key, CAPACITY_QUEUES);
        assert!(
            message.contains("only locus.policy=capacity") && message.contains("fair"),
            "{message}"
        );
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
