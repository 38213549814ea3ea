//! The bridge's side of `contract/wire.json`: the natives this library exports, with the JNI
//! signature each Rust function's parameters make, are the spec's (the shim's `ContractTest`
//! checks `LocusNative`'s declarations against the same list), the events it may defer are the
//! spec's, and the ABI number is the spec's hash.

use std::collections::BTreeMap;

use serde_json::Value;

fn spec_text() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/wire.json");
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn spec() -> Value {
    serde_json::from_slice(&spec_text()).unwrap()
}

/// The JNI type descriptor of a Rust parameter or return type as the bridge spells it.
fn descriptor(rust: &str) -> String {
    let rust = rust.trim();
    let bare = rust.split('<').next().unwrap().trim();
    match bare {
        "jint" => "I",
        "jlong" => "J",
        "jstring" | "JString" => "Ljava/lang/String;",
        "jbyteArray" => "[B",
        "JByteBuffer" => "Ljava/nio/ByteBuffer;",
        "JIntArray" => "[I",
        // The only object parameter is the test hook's `Runnable`.
        "jni::objects::JObject" | "JObject" => "Ljava/lang/Runnable;",
        "" => "V",
        other => panic!("no JNI descriptor known for the Rust type {other}"),
    }
    .to_string()
}

/// `Java_<class>_<method>` functions of the bridge's source, each with the descriptor its
/// parameters (after the env and the class) and its return type make.
fn exported(class: &str) -> BTreeMap<String, String> {
    let source = include_str!("../src/lib.rs");
    let prefix = format!("fn Java_{}_", class.replace('.', "_"));
    let mut out = BTreeMap::new();
    for (at, _) in source.match_indices(&prefix) {
        let rest = &source[at + prefix.len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        let open = rest.find('(').unwrap();
        let close = rest.find(')').unwrap();
        let body = rest.find('{').unwrap();
        let params: Vec<&str> = rest[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        assert!(params.len() >= 2, "{name}: no env and class");
        let mut d = String::from("(");
        for p in &params[2..] {
            d.push_str(&descriptor(p.split_once(':').unwrap().1));
        }
        let ret = rest[close + 1..body].trim().trim_start_matches("->");
        d.push(')');
        d.push_str(&descriptor(ret));
        out.insert(name, d);
    }
    out
}

fn listed(natives: &Value) -> BTreeMap<String, String> {
    natives["methods"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn the_exported_natives_are_the_specs() {
    let s = spec();
    let natives = &s["natives"];
    assert_eq!(
        exported(natives["class"].as_str().unwrap()),
        listed(natives)
    );
    let hooks = &natives["test_hooks"];
    assert_eq!(exported(hooks["class"].as_str().unwrap()), listed(hooks));
}

#[test]
fn the_deferrable_events_are_the_specs() {
    let s = spec();
    let listed: Vec<&str> = s["deferrable_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(locus_jni::deferred::DEFERRABLE, listed.as_slice());
}

#[test]
fn the_abi_number_is_the_specs_hash_and_ignores_white_space() {
    assert_eq!(locus_jni::ABI, locus_jni::abi_of(&spec_text()));
    let spaced: Vec<u8> = spec_text()
        .iter()
        .flat_map(|&b| {
            if b == b',' {
                vec![b, b'\n', b' ']
            } else {
                vec![b]
            }
        })
        .collect();
    assert_eq!(locus_jni::ABI, locus_jni::abi_of(&spaced));
    // One code changed is another number.
    let text = String::from_utf8(spec_text()).unwrap();
    let changed = text.replacen("\"eager\": 2", "\"eager\": 3", 1);
    assert_ne!(changed, text);
    assert_ne!(locus_jni::ABI, locus_jni::abi_of(changed.as_bytes()));
    assert!(locus_jni::ABI > 0);
}
