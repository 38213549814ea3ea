use std::fmt;

use locus_core::CoreError;

/// Refused events of one batch named in its error; the others are counted.
pub const MAX_REPORTED_EVENTS: usize = 10;

/// Everything a native call can fail with. The Java side sees the `Display` text as the
/// exception message, so every variant names the culprit (key, event index, handle).
#[derive(Debug)]
pub enum BridgeError {
    /// The core refused the input; config errors become `LocusConfigException`.
    Core(CoreError),
    /// One event of a batch failed (the rest of the batch is still applied); the index tells the caller
    /// which event to look at.
    Event {
        index: usize,
        kind: String,
        source: Box<BridgeError>,
    },
    /// Several events of a batch failed (each an `Event`); all the others were applied. At most
    /// [`MAX_REPORTED_EVENTS`] are kept, the rest only counted in `omitted`, so the exception
    /// message (logged by the shim) stays small whatever the batch held.
    Events {
        total: usize,
        refused: Vec<BridgeError>,
        omitted: usize,
    },
    /// An event sent to the deferrable entry point whose answer a caller needs; nothing of the
    /// batch was applied.
    NotDeferrable { index: usize, kind: String },
    /// The text is not the JSON the entry point expects.
    BadJson { what: &'static str, detail: String },
    /// A binary asks frame that does not follow its layout (`locus_core::frame`).
    BadFrame(locus_core::frame::FrameError),
    /// A binary offers frame that does not follow its layout (`locus_core::offers`).
    BadOffersFrame(locus_core::frame::FrameError),
    /// A binary events frame that does not follow its layout (`locus_core::events_frame`).
    BadEventsFrame(locus_core::frame::FrameError),
    /// The core's answer does not fit its frame (`locus_core::decisions_frame`): a defect of
    /// the core, reported instead of a frame the shim would misread.
    BadAnswer(String),
    /// A required argument was a Java `null`.
    NullArgument(&'static str),
    /// Zero, never issued, or already closed.
    InvalidHandle(i64),
    /// A panic caught at the JNI boundary; payload is the panic message.
    Panic(String),
    /// The core behind this handle panicked (now or in an earlier call) and is out of service:
    /// parking_lot's mutex does not poison, so the bridge does, and the shim must rebuild.
    Poisoned { handle: i64, cause: String },
    /// The JVM side of a call failed (string conversion, allocation).
    Jni(String),
}

impl BridgeError {
    /// True when the Java side should see `LocusConfigException`.
    pub fn is_config(&self) -> bool {
        match self {
            BridgeError::Core(e) => e.is_config(),
            _ => false,
        }
    }
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::Core(e) => write!(f, "{e}"),
            BridgeError::Event {
                index,
                kind,
                source,
            } => {
                write!(f, "event {index} ({kind}) rejected: {source}")
            }
            BridgeError::Events {
                total,
                refused,
                omitted,
            } => {
                write!(
                    f,
                    "{} of {total} events rejected, the others applied: ",
                    refused.len() + omitted
                )?;
                for (i, e) in refused.iter().enumerate() {
                    write!(f, "{}{e}", if i > 0 { "; " } else { "" })?;
                }
                if *omitted > 0 {
                    write!(f, "; and {omitted} more")?;
                }
                Ok(())
            }
            BridgeError::NotDeferrable { index, kind } => write!(
                f,
                "event {index} ({kind}) cannot be queued: its answer is needed, send it with events"
            ),
            BridgeError::BadJson { what, detail } => write!(f, "malformed {what}: {detail}"),
            BridgeError::BadFrame(e) => write!(f, "malformed asks frame {e}"),
            BridgeError::BadOffersFrame(e) => write!(f, "malformed offers frame {e}"),
            BridgeError::BadEventsFrame(e) => write!(f, "malformed events frame {e}"),
            BridgeError::BadAnswer(e) => {
                write!(f, "the core's decisions do not fit their frame: {e}")
            }
            BridgeError::NullArgument(name) => write!(f, "{name} must not be null"),
            BridgeError::InvalidHandle(h) => write!(f, "invalid or closed Locus handle {h:#x}"),
            BridgeError::Panic(msg) => write!(f, "Locus core panicked: {msg}"),
            BridgeError::Poisoned { handle, cause } => write!(
                f,
                "Locus core {handle:#x} is out of service after a panic ({cause})"
            ),
            BridgeError::Jni(msg) => write!(f, "JNI call failed: {msg}"),
        }
    }
}

impl std::error::Error for BridgeError {}

impl From<CoreError> for BridgeError {
    fn from(e: CoreError) -> Self {
        BridgeError::Core(e)
    }
}

impl From<jni::errors::Error> for BridgeError {
    fn from(e: jni::errors::Error) -> Self {
        BridgeError::Jni(e.to_string())
    }
}
