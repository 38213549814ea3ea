//! The files the settings point at besides the settings themselves (`locus.profile.store`,
//! `locus.datacenter.mapping.file`, `locus.mrosa.public.file`): how they are read, and how a
//! rebuilt core takes them over from the core it replaces.
//!
//! A read happens only at start and at a refresh, and is bounded so a broken file cannot stall
//! the caller:
//! - in time: the read runs on a thread of its own and the caller waits at most
//!   [`READ_TIMEOUT`]; a read that has not finished by then (a lost NFS mount) is left to its
//!   thread and reported as an error naming the key and the file. At most [`MAX_STUCK_READS`]
//!   such threads exist at once; further reads are refused at once while they hang.
//! - in size: at most the caller's limit, larger files are refused naming the file.
//! - in kind: only a regular file is read; the file is opened non-blocking, so a FIFO planted at
//!   the path cannot block the open, and its type is checked on the open handle. The profile
//!   store, which Locus also writes, is opened without following a symlink (`O_NOFOLLOW`).
//!
//! A rebuilt core (after a panic or a resynchronisation) reads none of them:
//! [`crate::config::SideFiles`] carries what the replaced core parsed, and the new core takes it for every path its settings
//! still name. A file that became unreadable meanwhile therefore cannot stop the rebuild.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::error::CoreError;

/// Longest a start or a refresh waits for one file.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads that outlived [`READ_TIMEOUT`] and still hold a thread; a further read is refused at
/// once while this many hang, so a dead mount costs at most this many threads.
pub const MAX_STUCK_READS: usize = 4;

/// Largest `locus.datacenter.mapping.file` or `locus.mrosa.public.file` read: a line per host,
/// far more hosts than any cluster has.
pub const MAX_LIST_FILE_BYTES: u64 = 16 << 20;

static STUCK_READS: AtomicUsize = AtomicUsize::new(0);

/// How a side file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A symlink at the path is followed (operators link configuration files into place).
    Follow,
    /// A symlink at the path is refused (a file Locus writes and reads back).
    Refuse,
}

/// The text of the file at `path`, `Ok(None)` when there is none; every other failure is a
/// configuration error naming `key` and the file. See the module for the bounds.
pub fn read_text(
    key: &str,
    path: &Path,
    max_bytes: u64,
    links: Links,
) -> Result<Option<String>, CoreError> {
    let error = |message: String| CoreError::Config {
        key: key.to_string(),
        message,
    };
    let shown = path.display().to_string();
    if STUCK_READS.load(Ordering::Relaxed) >= MAX_STUCK_READS {
        return Err(error(format!(
            "cannot read {shown}: {MAX_STUCK_READS} earlier reads of Locus's files did not finish (a hung mount?)"
        )));
    }
    let (tx, rx) = mpsc::channel();
    let owned = path.to_path_buf();
    // RUNNING until the read ends (DONE) or the caller gives up on it (ABANDONED): whichever
    // comes second of an abandon and the end releases the stuck slot.
    let fate = Arc::new(AtomicU8::new(RUNNING));
    let fate_of_thread = Arc::clone(&fate);
    let spawned = std::thread::Builder::new()
        .name("locus-read-file".into())
        .spawn(move || {
            let result = read_bounded(&owned, max_bytes, links);
            if fate_of_thread
                .compare_exchange(RUNNING, DONE, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                STUCK_READS.fetch_sub(1, Ordering::AcqRel);
            }
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(error(format!(
            "cannot read {shown}: no thread to read it on: {e}"
        )));
    }
    match rx.recv_timeout(READ_TIMEOUT) {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(why)) => Err(error(format!("cannot read {shown}: {why}"))),
        Err(_) => {
            // Counted before the abandon is published, so the thread's release follows it.
            STUCK_READS.fetch_add(1, Ordering::AcqRel);
            if fate
                .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // It ended just now after all.
                STUCK_READS.fetch_sub(1, Ordering::AcqRel);
            }
            Err(error(format!(
                "cannot read {shown}: no answer within {} s (a hung mount?)",
                READ_TIMEOUT.as_secs()
            )))
        }
    }
}

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const ABANDONED: u8 = 2;

fn read_bounded(path: &Path, max_bytes: u64, links: Links) -> Result<Option<String>, String> {
    let mut flags = libc::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) && links == Links::Refuse => {
            return Err("it is a symbolic link, which Locus does not follow for this file".into())
        }
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!(
            "it is not a regular file ({})",
            kind_of(&meta.file_type())
        ));
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "it holds {} bytes, more than the {max_bytes} Locus reads",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    // One byte over the limit tells a file that grew since its size was looked at.
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "it holds more than the {max_bytes} bytes Locus reads"
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| format!("it is not UTF-8 text ({e})"))
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("locus-side-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn message(r: Result<Option<String>, CoreError>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let d = dir("plain");
        let f = d.join("f");
        std::fs::write(&f, "h1 east\n").unwrap();
        assert_eq!(
            read_text("k", &f, 100, Links::Refuse).unwrap().as_deref(),
            Some("h1 east\n")
        );
        assert_eq!(
            read_text("k", &d.join("none"), 100, Links::Refuse).unwrap(),
            None
        );
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = dir("fifo");
        let f = d.join("fifo");
        let c = std::ffi::CString::new(f.as_os_str().to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let m = message(read_text("locus.profile.store", &f, 100, Links::Refuse));
        assert!(
            m.contains("locus.profile.store") && m.contains("a FIFO"),
            "{m}"
        );
        assert!(m.contains(&f.display().to_string()), "{m}");
    }

    #[test]
    fn a_symlink_is_refused_only_where_links_are_not_followed() {
        let d = dir("link");
        let target = d.join("target");
        std::fs::write(&target, "x").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let m = message(read_text("k", &link, 100, Links::Refuse));
        assert!(m.contains("symbolic link"), "{m}");
        assert_eq!(
            read_text("k", &link, 100, Links::Follow)
                .unwrap()
                .as_deref(),
            Some("x")
        );
    }

    #[test]
    fn a_file_over_the_limit_is_refused_naming_it() {
        let d = dir("big");
        let f = d.join("big");
        std::fs::write(&f, vec![b'a'; 101]).unwrap();
        let m = message(read_text("k", &f, 100, Links::Follow));
        assert!(
            m.contains(&f.display().to_string()) && m.contains("more than the 100"),
            "{m}"
        );
        std::fs::write(&f, vec![b'a'; 100]).unwrap();
        assert!(read_text("k", &f, 100, Links::Follow).is_ok());
    }

    #[test]
    fn a_directory_is_refused() {
        let d = dir("dir");
        let m = message(read_text("k", &d, 100, Links::Follow));
        assert!(m.contains("a directory"), "{m}");
    }
}
