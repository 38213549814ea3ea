//! What a submitter tells Locus about a job through application tags (`mapreduce.job.tags`,
//! `yarn application -appTags`): parsed and validated here, once, for every policy.
//!
//! | tag | value | used by |
//! | --- | --- | --- |
//! | `locus.deadline=` | seconds after the application's submission, > 0 (`600`, `600s`, `10m`, `2h`) | MROSA's `D_i` |
//! | `locus.budget=` | dollars, > 0 (`0.25`) | MROSA's `C_i` |
//! | `locus.demand=` | map slots the job expects, integer > 0 | TD's j.demand; profiles |
//! | `locus.fp=` | filtering percentage: map output bytes / map input bytes, > 0 | JoSS (RH vs MH); MROSA's `f` |
//! | `locus.input-type=` | a label of `a-z 0-9 . _ -` (`web`, `text`) | the job signature (JoSS's hash) |
//!
//! YARN lower-cases application tags, so keys and values are matched in lower case. A tag with a
//! bad value is logged and ignored; the application and its other hints are scheduled as usual,
//! because one submitter's typo must not block or crash anything else. The errors are kept so
//! tests and diagnostics can show them.
//!
//! Trust: `locus.deadline=`, `locus.budget=` and `locus.demand=` move a job ahead of others
//! (MROSA's eq. 8 serves deadline jobs first; TD sizes a job's map share by its demand), so any
//! submitter could take the cluster by tagging. They count only for the users an operator lists
//! in `locus.hints.trusted` (default: nobody); anyone else's are logged once per application and
//! ignored, as if absent. `locus.fp=` and `locus.input-type=` only describe the job (they feed
//! its own profile, keyed by its user) and count for everyone.

use std::collections::BTreeSet;

use crate::error::CoreError;

pub const HINTS_TRUSTED: &str = "locus.hints.trusted";

pub const DEADLINE_TAG: &str = "locus.deadline=";
pub const BUDGET_TAG: &str = "locus.budget=";
pub const FP_TAG: &str = "locus.fp=";
/// The tag carrying JoSS's input-data type ("web document" / "non-web document", or any finer
/// label the submitter chooses), e.g. `locus.input-type=web`.
pub const INPUT_TYPE_TAG: &str = "locus.input-type=";

/// Every hint tag, for the "unknown hint" message.
pub const HINT_TAGS: &[&str] = &[DEADLINE_TAG, BUDGET_TAG, DEMAND_TAG, FP_TAG, INPUT_TYPE_TAG];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobHints {
    /// Seconds after submission.
    pub deadline_secs: Option<f64>,
    /// Dollars.
    pub budget: Option<f64>,
    pub demand: Option<u32>,
    pub fp: Option<f64>,
    /// Empty when not given.
    pub input_type: String,
}

impl JobHints {
    /// Parses the `locus.*` tags of application `app`; returns the hints that were valid and one
    /// error per tag that was not (each naming the application and the tag).
    pub fn from_tags(app: &str, tags: &[String]) -> (JobHints, Vec<CoreError>) {
        let mut hints = JobHints::default();
        let mut errors = Vec::new();
        for raw in tags {
            let tag = raw.trim().to_ascii_lowercase();
            if !tag.starts_with("locus.") {
                continue;
            }
            let bad = |why: &str| {
                CoreError::Protocol(format!("application {app}: tag {tag:?} ignored: {why}"))
            };
            if let Some(v) = tag.strip_prefix(DEADLINE_TAG) {
                match parse_duration_secs(v) {
                    Some(s) => hints.deadline_secs = Some(s),
                    None => errors.push(bad(
                        "the deadline must be a positive number of seconds after submission, optionally with s, m or h (600, 10m, 2h)",
                    )),
                }
            } else if let Some(v) = tag.strip_prefix(BUDGET_TAG) {
                match positive(v) {
                    Some(x) => hints.budget = Some(x),
                    None => errors.push(bad(
                        "the budget must be a positive amount of dollars (0.25)",
                    )),
                }
            } else if tag.starts_with(DEMAND_TAG) {
                match demand_from_tags(app, std::slice::from_ref(&tag)) {
                    Ok(d) => hints.demand = d,
                    Err(e) => errors.push(e),
                }
            } else if let Some(v) = tag.strip_prefix(FP_TAG) {
                match positive(v) {
                    Some(x) => hints.fp = Some(x),
                    None => errors.push(bad(
                        "the filtering percentage must be a positive number (map output bytes / map input bytes, e.g. 0.3)",
                    )),
                }
            } else if let Some(v) = tag.strip_prefix(INPUT_TYPE_TAG) {
                let ok = !v.is_empty()
                    && v.len() <= 64
                    && v.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b)
                    });
                if ok {
                    hints.input_type = v.to_string();
                } else {
                    errors.push(bad("the input type must be 1 to 64 characters of a-z, 0-9, '.', '_', '-' (web, text)"));
                }
            } else {
                errors.push(bad(&format!(
                    "unknown Locus hint; known: {}",
                    HINT_TAGS.join(" ")
                )));
            }
        }
        for e in &errors {
            log::warn!("{e}");
        }
        (hints, errors)
    }
}

impl JobHints {
    /// The hints that count for a job of `user`: all of them when the user is trusted, else
    /// these without the ones that raise its priority. Also returns the tags that were dropped.
    pub fn honoured_for(
        &self,
        user: &str,
        trusted: &TrustedSubmitters,
    ) -> (JobHints, Vec<&'static str>) {
        if trusted.allows(user) {
            return (self.clone(), Vec::new());
        }
        let mut dropped = Vec::new();
        if self.deadline_secs.is_some() {
            dropped.push(DEADLINE_TAG);
        }
        if self.budget.is_some() {
            dropped.push(BUDGET_TAG);
        }
        if self.demand.is_some() {
            dropped.push(DEMAND_TAG);
        }
        let hints = JobHints {
            deadline_secs: None,
            budget: None,
            demand: None,
            ..self.clone()
        };
        (hints, dropped)
    }
}

/// `locus.hints.trusted`: who may use the hints that raise a job's priority, in Hadoop's ACL
/// syntax (`alice,bob`; `*` for everyone; empty for nobody). Users only: the RM's `app_added`
/// carries the submitting user but not their groups, so a group part is refused rather than
/// silently never matching.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum TrustedSubmitters {
    #[default]
    Nobody,
    Everyone,
    Users(BTreeSet<String>),
}

impl TrustedSubmitters {
    pub fn parse(value: &str) -> Result<TrustedSubmitters, CoreError> {
        let value = value.trim();
        if value == "*" {
            return Ok(TrustedSubmitters::Everyone);
        }
        let bad = |why: String| {
            CoreError::Config {
            key: HINTS_TRUSTED.to_string(),
            message: format!(
                "invalid value {value:?}: {why}; allowed: a comma list of user names (alice,bob), * for everyone, or empty for nobody"
            ),
        }
        };
        // Hadoop's ACL separates users from groups by a space; spaces around a comma are taken
        // as part of the user list, the way an operator writing "alice, bob" means it.
        let joined = value
            .split(',')
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(",");
        let (users, groups) = match joined.split_once(char::is_whitespace) {
            Some((u, g)) => (u, g.trim()),
            None => (joined.as_str(), ""),
        };
        if !groups.is_empty() {
            return Err(bad(format!(
                "groups ({groups}) cannot be checked: the ResourceManager tells Locus an application's user but not the user's groups; list the users"
            )));
        }
        let mut set = BTreeSet::new();
        for u in users.split(',').map(str::trim) {
            if u.is_empty() {
                return Err(bad("an empty user name".into()));
            }
            if u == "*" {
                return Err(bad("* must stand alone".into()));
            }
            set.insert(u.to_string());
        }
        Ok(TrustedSubmitters::Users(set))
    }

    pub fn allows(&self, user: &str) -> bool {
        match self {
            TrustedSubmitters::Nobody => false,
            TrustedSubmitters::Everyone => true,
            TrustedSubmitters::Users(set) => set.contains(user),
        }
    }
}

fn positive(v: &str) -> Option<f64> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
}

fn parse_duration_secs(v: &str) -> Option<f64> {
    let v = v.trim();
    let (num, unit) = match v.char_indices().last() {
        Some((i, 's')) => (&v[..i], 1.0),
        Some((i, 'm')) => (&v[..i], 60.0),
        Some((i, 'h')) => (&v[..i], 3600.0),
        _ => (v, 1.0),
    };
    positive(num).map(|x| x * unit)
}

/// Application tag carrying j.demand, e.g. `locus.demand=120`.
pub const DEMAND_TAG: &str = "locus.demand=";

/// j.demand from an application's tags: `Ok(None)` when absent, an error naming the application
/// and the tag when the value is not a positive slot count.
pub fn demand_from_tags(app: &str, tags: &[String]) -> Result<Option<u32>, CoreError> {
    let Some(raw) = tags.iter().find_map(|t| t.strip_prefix(DEMAND_TAG)) else {
        return Ok(None);
    };
    match raw.trim().parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(CoreError::Protocol(format!(
            "application {app}: tag {DEMAND_TAG}{raw} must be a positive number of map slots"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_hint_is_parsed_in_any_case() {
        let (h, errs) = JobHints::from_tags(
            "app_1",
            &tags(&[
                "LOCUS.DEADLINE=10m",
                "locus.budget=0.25",
                "locus.demand=40",
                "locus.fp=1.5",
                "locus.input-type=Web",
                "team-a",
            ]),
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(h.deadline_secs, Some(600.0));
        assert_eq!(h.budget, Some(0.25));
        assert_eq!(h.demand, Some(40));
        assert_eq!(h.fp, Some(1.5));
        assert_eq!(h.input_type, "web");
        assert_eq!(
            JobHints::from_tags("a", &tags(&["locus.deadline=90"]))
                .0
                .deadline_secs,
            Some(90.0)
        );
        assert_eq!(
            JobHints::from_tags("a", &tags(&["locus.deadline=2h"]))
                .0
                .deadline_secs,
            Some(7200.0)
        );
    }

    #[test]
    fn priority_hints_count_only_for_trusted_users() {
        let (declared, _) = JobHints::from_tags(
            "app_1",
            &tags(&[
                "locus.deadline=60",
                "locus.budget=1",
                "locus.demand=9",
                "locus.fp=0.5",
                "locus.input-type=web",
            ]),
        );
        let alice = TrustedSubmitters::parse("alice, bob").unwrap();
        assert_eq!(
            declared.honoured_for("alice", &alice),
            (declared.clone(), vec![])
        );
        let (h, dropped) = declared.honoured_for("mallory", &alice);
        assert_eq!(dropped, vec![DEADLINE_TAG, BUDGET_TAG, DEMAND_TAG]);
        assert_eq!((h.deadline_secs, h.budget, h.demand), (None, None, None));
        assert_eq!((h.fp, h.input_type.as_str()), (Some(0.5), "web"));
        assert!(!TrustedSubmitters::default().allows("alice"));
        assert!(TrustedSubmitters::parse("*").unwrap().allows("anyone"));
        for bad in ["alice,bob admins", "alice,,bob", "*,alice"] {
            match TrustedSubmitters::parse(bad) {
                Err(CoreError::Config { key, message }) => {
                    assert_eq!(key, HINTS_TRUSTED);
                    assert!(message.contains(bad), "{message}");
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        let groups = TrustedSubmitters::parse("alice admins")
            .unwrap_err()
            .to_string();
        assert!(
            groups.contains("groups (admins) cannot be checked"),
            "{groups}"
        );
    }

    #[test]
    fn a_bad_tag_is_named_with_its_app_and_the_others_still_count() {
        let (h, errs) = JobHints::from_tags(
            "application_7_0003",
            &tags(&[
                "locus.deadline=soon",
                "locus.budget=-1",
                "locus.fp=0",
                "locus.demand=x",
                "locus.input-type=a b",
                "locus.dedline=5",
                "locus.demand=12",
            ]),
        );
        assert_eq!(errs.len(), 6, "{errs:?}");
        for e in &errs {
            assert!(e.to_string().contains("application_7_0003"), "{e}");
        }
        assert!(errs[0].to_string().contains("locus.deadline=soon"));
        assert!(errs[1].to_string().contains("locus.budget=-1"));
        assert!(errs[5].to_string().contains("unknown Locus hint"));
        assert_eq!(h.deadline_secs, None);
        assert_eq!(h.budget, None);
        assert_eq!(h.fp, None);
        assert_eq!(h.demand, Some(12));
        assert_eq!(h.input_type, "");
    }

    #[test]
    fn demand_comes_from_the_application_tag() {
        let tags = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(
            demand_from_tags("app_1", &tags(&["x", "locus.demand=120"])),
            Ok(Some(120))
        );
        assert_eq!(
            demand_from_tags("app_1", &tags(&["locus.deadline=60"])),
            Ok(None)
        );
        let err = demand_from_tags("app_7", &tags(&["locus.demand=lots"]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("app_7") && err.contains("locus.demand=lots"),
            "{err}"
        );
        assert!(demand_from_tags("app_7", &tags(&["locus.demand=0"])).is_err());
    }
}
