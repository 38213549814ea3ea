//! The sample hadoop-conf/yarn-site.xml is what operators copy: every `locus.*` key in it must be
//! a key the core knows, with a value the core accepts, and every known key must be in it.

use std::collections::BTreeMap;

use locus_core::config::{CAPACITY_TREE, KNOWN_KEYS};
use locus_core::Core;

/// (name, value) of every `<property>` in the file; the sample has one name and one value each.
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

#[test]
fn sample_yarn_site_lists_every_locus_key_with_an_accepted_value() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../hadoop-conf/yarn-site.xml");
    let xml = std::fs::read_to_string(path).expect("sample yarn-site.xml");
    let props: BTreeMap<String, String> = properties(&xml)
        .into_iter()
        .filter(|(k, _)| k.starts_with("locus."))
        .collect();
    // The tree is written by the shim from capacity-scheduler.xml, not by the operator.
    for key in KNOWN_KEYS.iter().filter(|k| **k != CAPACITY_TREE) {
        assert!(
            props.contains_key(*key),
            "{key} is missing from hadoop-conf/yarn-site.xml"
        );
    }
    if let Err(e) = Core::new(&props) {
        panic!("the sample's locus.* values are refused: {e}");
    }
}
