use std::fmt;

/// Every way the core refuses input. Messages name the culprit (key, node, app) so an operator
/// can act on them from the ResourceManager log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// A `locus.*` setting is unknown or has an invalid value.
    Config {
        key: String,
        message: String,
    },
    /// A message is malformed (bad JSON, missing field, nonsense value).
    Protocol(String),
    UnknownNode(String),
    UnknownApp(String),
    /// Under `locus.policy=capacity`, an application names a queue `locus.capacity.queues`
    /// does not configure.
    UnknownQueue {
        app: String,
        queue: String,
        configured: Vec<String>,
    },
    /// A queue does not take the application now (STOPPED, or at its maximum-applications);
    /// the message is CapacityScheduler's for the same refusal.
    QueueRefused(String),
    /// An application's asks would exceed a per-application bound (`locus.app.*`); the update
    /// is refused and the application keeps its previous asks.
    OverLimit {
        app: String,
        key: &'static str,
        limit: usize,
        found: String,
    },
}

impl CoreError {
    pub fn is_config(&self) -> bool {
        matches!(self, CoreError::Config { .. })
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreError::Config { key, message } => write!(f, "invalid Locus setting {key}: {message}"),
            CoreError::Protocol(m) => write!(f, "malformed message: {m}"),
            CoreError::UnknownNode(n) => write!(f, "unknown node {n}"),
            CoreError::QueueRefused(m) => write!(f, "{m}"),
            CoreError::UnknownApp(a) => write!(f, "unknown application {a}"),
            CoreError::OverLimit {
                app,
                key,
                limit,
                found,
            } => write!(
                f,
                "application {app}: ask update refused, {found}, over {key} = {limit}; its previous asks stay in force"
            ),
            CoreError::UnknownQueue {
                app,
                queue,
                configured,
            } => write!(
                f,
                "application {app} names queue {queue:?}, which locus.capacity.queues does not configure; configured queues: {}",
                configured.join(", ")
            ),
        }
    }
}

impl std::error::Error for CoreError {}
