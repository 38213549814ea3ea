//! One table of keys, three readers: the parser (`config::KEYS`), the sample
//! hadoop-conf/yarn-site.xml operators copy, and the reference page
//! docs/operator/configuration.md. These tests fail when any of them disagrees on a key or a
//! default. `LOCUS_WRITE_CONFIG_DOC=1 cargo test -p locus-core --test sample_config` rewrites
//! the page's generated table from `KEYS`.

use std::collections::BTreeMap;

use locus_core::config::{InSample, KEYS};
use locus_core::{Config, Core};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../hadoop-conf/yarn-site.xml");
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/operator/configuration.md"
);
const BEGIN: &str =
    "<!-- keys: generated from rust-core/src/config.rs KEYS; do not edit by hand -->\n";
const END: &str = "<!-- keys: end -->\n";

/// (name, value) of every `<property>` in `xml`; the sample has one name and one value each.
fn properties(xml: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in xml.split("<property>").skip(1) {
        let field = |tag: &str| {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            block
                .split_once(&open)
                .and_then(|(_, rest)| rest.split_once(&close))
                .map(|(v, _)| v.trim().to_string())
        };
        if let Some(name) = field("name") {
            out.push((name, field("value").unwrap_or_default()));
        }
    }
    out
}

/// The sample split into what the RM reads and what sits in comments.
fn sample() -> (String, String) {
    let xml = std::fs::read_to_string(SAMPLE).expect("sample yarn-site.xml");
    let (mut live, mut commented) = (String::new(), String::new());
    let mut rest = xml.as_str();
    while let Some((before, after)) = rest.split_once("<!--") {
        live.push_str(before);
        let (comment, after) = after
            .split_once("-->")
            .expect("unclosed comment in the sample");
        commented.push_str(comment);
        rest = after;
    }
    live.push_str(rest);
    (live, commented)
}

fn parse(pairs: &[(&str, &str)]) -> Config {
    let props: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    same_mode(Config::from_properties(&props).unwrap_or_else(|e| panic!("{pairs:?} refused: {e}")))
}

/// `auto` is kept as given (`Some(Auto)`) or left unset (`None`); both resolve alike.
fn same_mode(mut c: Config) -> Config {
    c.scheduling_mode = Some(c.scheduling_mode());
    c
}

#[test]
fn each_default_in_the_table_is_the_parsers() {
    let default = same_mode(Config::default());
    assert_eq!(parse(&[]), default);
    for key in KEYS {
        if !key.default.is_empty() {
            assert_eq!(
                parse(&[(key.name, key.default)]),
                default,
                "{} = {:?} (the table's default) is not what the parser uses when it is unset",
                key.name,
                key.default
            );
        }
        if !key.default.is_empty() && !key.unset.is_empty() {
            assert!(
                key.unset.starts_with(&format!("`{}`", key.default)),
                "{}: the unset text must start with the default `{}`",
                key.name,
                key.default
            );
        }
    }
}

#[test]
fn sample_yarn_site_shows_every_key_at_its_default() {
    let (live, commented) = sample();
    let live: BTreeMap<String, String> = properties(&live)
        .into_iter()
        .filter(|(k, _)| k.starts_with("locus."))
        .collect();
    let commented: BTreeMap<String, String> = properties(&commented).into_iter().collect();
    for (name, _) in &live {
        assert!(
            KEYS.iter().any(|k| k.name == name),
            "hadoop-conf/yarn-site.xml sets {name}, which the core does not know"
        );
    }
    for key in KEYS {
        match key.in_sample {
            InSample::Shown => assert_eq!(
                live.get(key.name).map(String::as_str),
                Some(key.default),
                "hadoop-conf/yarn-site.xml must set {} to its default {:?}",
                key.name,
                key.default
            ),
            InSample::CommentedOut => {
                assert!(
                    !live.contains_key(key.name),
                    "hadoop-conf/yarn-site.xml sets {}: any value switches off what the RM \
                     chooses when it is absent ({}); keep it commented out",
                    key.name,
                    key.unset
                );
                assert_eq!(
                    commented.get(key.name).map(String::as_str),
                    Some(key.default),
                    "hadoop-conf/yarn-site.xml must show {} = {:?} in a comment",
                    key.name,
                    key.default
                );
            }
            InSample::Internal => assert!(
                !live.contains_key(key.name) && !commented.contains_key(key.name),
                "{} is written by the shim and must not be in the sample",
                key.name
            ),
        }
    }
    let config = Config::from_properties(&live).expect("the sample's locus.* values are refused");
    assert_eq!(
        same_mode(config),
        same_mode(Config::default()),
        "the sample is not the defaults"
    );
    if let Err(e) = Core::new(&live) {
        panic!("the core refuses the sample: {e}");
    }
}

/// The reference page's table, one row per key.
fn reference_table() -> String {
    let mut out = String::from(BEGIN);
    out.push_str("| key | type | default | allowed values | meaning |\n");
    out.push_str("| --- | --- | --- | --- | --- |\n");
    for key in KEYS {
        let default = match (key.default.is_empty(), key.unset.is_empty()) {
            (_, false) => key.unset.to_string(),
            (false, true) => format!("`{}`", key.default),
            (true, true) => "empty".to_string(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            key.name, key.kind, default, key.allowed, key.meaning
        ));
    }
    out.push_str(END);
    out
}

#[test]
fn reference_page_lists_the_table() {
    let page = std::fs::read_to_string(REFERENCE).expect("docs/operator/configuration.md");
    let (head, rest) = page
        .split_once(BEGIN)
        .expect("docs/operator/configuration.md lacks the generated table's begin marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("docs/operator/configuration.md lacks the generated table's end marker");
    let expected = format!("{head}{}{tail}", reference_table());
    if std::env::var_os("LOCUS_WRITE_CONFIG_DOC").is_some() {
        std::fs::write(REFERENCE, &expected).expect("write docs/operator/configuration.md");
        return;
    }
    assert!(
        page == expected,
        "docs/operator/configuration.md's key table differs from config::KEYS; rewrite it with \
         LOCUS_WRITE_CONFIG_DOC=1 cargo test -p locus-core --test sample_config"
    );
}
