//! JNI bridge between `org.locus.yarn.LocusNative` and `locus-core`.
//!
//! Each `extern "system"` function only converts Java arguments and hands the work to
//! [`ops`] inside [`guard::with_guard`], which turns errors and panics into
//! `LocusException` / `LocusConfigException`. Nothing else in this crate touches JNI except
//! the log forwarder.

pub mod deferred;
pub mod error;
pub mod guard;
pub mod handle;
pub mod logging;
pub mod ops;

use jni::objects::{JByteBuffer, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong, jstring};
use jni::JNIEnv;

use crate::error::BridgeError;
use crate::guard::with_guard;

fn java_string(env: &mut JNIEnv, s: &JString, name: &'static str) -> Result<String, BridgeError> {
    if s.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    // SAFETY: every caller passes a parameter the native method declares as
    // `java.lang.String`, and the JVM only binds arguments of the declared type. The checked
    // `get_string` would look up `java/lang/String` on every call (about 5x slower).
    let java = unsafe { env.get_string_unchecked(s)? };
    Ok(java.into())
}

/// `null` for none, else the JSON array of application ids the shim owes a snapshot.
fn drifted_to_java(env: &mut JNIEnv, drifted: &[String]) -> Result<jstring, BridgeError> {
    if drifted.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    let text = serde_json::to_string(drifted).map_err(|e| BridgeError::BadJson {
        what: "drifted applications",
        detail: e.to_string(),
    })?;
    Ok(env.new_string(text)?.into_raw())
}

/// The shim-core contract (`contract/wire.json`): the natives below, the frames and their codes.
/// Both sides' tests check their code against it byte for byte.
pub const CONTRACT: &[u8] = include_bytes!("../../contract/wire.json");

/// The native interface this library speaks: a hash of [`CONTRACT`] ([`abi_of`]), so any change
/// to a native's signature or a frame's layout, which must be made in the spec first, gives a
/// new number. The shim's `NativeLoader.ABI` must be the same (its `ContractTest` computes it
/// from the same file and names the number to set).
pub const ABI: jint = abi_of(CONTRACT);

/// FNV-1a (32-bit) over every byte of `spec` that is not ASCII white space (re-indenting the
/// spec changes nothing), the top two bits cleared so the number stays positive with room
/// above it.
pub const fn abi_of(spec: &[u8]) -> jint {
    let mut hash: u32 = 0x811C_9DC5;
    let mut i = 0;
    while i < spec.len() {
        let b = spec[i];
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            hash ^= b as u32;
            hash = hash.wrapping_mul(0x0100_0193);
        }
        i += 1;
    }
    (hash & 0x3FFF_FFFF) as jint
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_abi<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jint {
    ABI
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_initLogging<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    max_level: jint,
) {
    with_guard(&mut env, (), |env| logging::init(env, max_level))
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    properties_json: JString<'l>,
) -> jlong {
    with_guard(&mut env, 0, |env| {
        let json = java_string(env, &properties_json, "propertiesJson")?;
        let h = ops::create(&json)?;
        log::info!(target: "locus_jni", "Locus core created (handle {h:#x})");
        Ok(h)
    })
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_reconfigure<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    properties_json: JString<'l>,
) {
    with_guard(&mut env, (), |env| {
        let json = java_string(env, &properties_json, "propertiesJson")?;
        ops::reconfigure(handle, &json)
    })
}

/// `null` when every `asks_digest` matched, else a JSON array of the applications whose did
/// not (the shim sends each a snapshot).
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_events<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    events_json: JString<'l>,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let json = java_string(env, &events_json, "eventsJsonArray")?;
        let drifted = ops::events(handle, &json)?;
        drifted_to_java(env, &drifted)
    })
}

/// The first `length` bytes of the direct buffer `frame` are one binary events frame
/// (`locus_core::events_frame`). Returns as `events` does.
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_eventsFrame<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    frame: JByteBuffer<'l>,
    length: jint,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let bytes = direct_bytes(env, &frame, length)?;
        let drifted = ops::events_frame(handle, bytes)?;
        drifted_to_java(env, &drifted)
    })
}

/// Events no caller waits on (`deferred::DEFERRABLE`), the batch of one binary events frame:
/// applied now if the core is free, else queued for its next call. `null`, or the refusals of
/// earlier queued events since the last report (the shim resynchronises the core as for a
/// refused event).
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_deferrableEventsFrame<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    frame: JByteBuffer<'l>,
    length: jint,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let bytes = direct_bytes(env, &frame, length)?;
        match ops::events_frame_deferrable(handle, bytes)? {
            Some(report) => Ok(env.new_string(report)?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        }
    })
}

/// The first `length` bytes of the direct buffer `frame` are one binary asks frame
/// (`locus_core::frame`). Returns as `events` does. `learned` (may be null): set to what the
/// frame taught, `[n, row, id, row, id, ...]`, as many pairs as fit (ids only save work).
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_asks<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    frame: JByteBuffer<'l>,
    length: jint,
    learned: JIntArray<'l>,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let bytes = direct_bytes(env, &frame, length)?;
        let (drifted, taught) = ops::asks_frame(handle, bytes)?;
        if !learned.is_null() {
            write_learned(env, &learned, &taught)?;
        }
        drifted_to_java(env, &drifted)
    })
}

/// `taught` into `array` as `[n, row, id, ...]`, cut to the pairs that fit.
fn write_learned(
    env: &mut JNIEnv,
    array: &JIntArray,
    taught: &[(u32, u32)],
) -> Result<(), BridgeError> {
    let capacity = usize::try_from(env.get_array_length(array)?).unwrap_or(0);
    if capacity == 0 {
        return Ok(());
    }
    let pairs = taught.len().min((capacity - 1) / 2);
    let mut out = Vec::with_capacity(1 + 2 * pairs);
    out.push(pairs as i32);
    for &(row, id) in &taught[..pairs] {
        // Ids are u32 with the top bit set: the same 32 bits as a Java int.
        out.extend([row as i32, id as i32]);
    }
    env.set_int_array_region(array, 0, &out)?;
    Ok(())
}

/// The ids the core published for the names in `namesJson` (a JSON array), with its epoch:
/// `{"epoch":E,"ids":[...]}` (see `ops::name_ids`).
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_nameIds<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    names_json: JString<'l>,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let json = java_string(env, &names_json, "namesJson")?;
        let answer = ops::name_ids(handle, &json)?;
        Ok(env.new_string(answer)?.into_raw())
    })
}

/// The first `length` bytes of the direct buffer `frame` (asks and offers frames) as a slice.
fn direct_bytes<'b>(
    env: &mut JNIEnv,
    frame: &'b JByteBuffer,
    length: jint,
) -> Result<&'b [u8], BridgeError> {
    if frame.is_null() {
        return Err(BridgeError::NullArgument("frame"));
    }
    let address = env.get_direct_buffer_address(frame)?;
    let capacity = env.get_direct_buffer_capacity(frame)?;
    let length = usize::try_from(length)
        .ok()
        .filter(|n| *n <= capacity)
        .ok_or_else(|| {
            BridgeError::Jni(format!(
                "frame length {length} outside the buffer's {capacity} bytes"
            ))
        })?;
    // SAFETY: a direct buffer's address and capacity come from the JVM and stay valid while the
    // buffer is reachable, which `frame` (a live local reference held by the caller for the whole
    // native call) guarantees; `length` was checked against the capacity. The shim's buffers are
    // per thread and that thread is inside this call, so nothing writes to them meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(address as *const u8, length) })
}

/// The first `length` bytes of the direct buffer `frame` are one binary offers frame
/// (`locus_core::offers`). Returns `null` when no node got a decision and none was refused,
/// else the answer as a binary decisions frame (`locus_core::decisions_frame`) in a new
/// `byte[]`. Named apart from the earlier `offers`, which answered a `String`: a stale
/// library on `java.library.path` then fails to link (an `UnsatisfiedLinkError` the shim
/// survives) instead of handing the JVM a string where it expects an array.
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_decide<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    frame: JByteBuffer<'l>,
    length: jint,
) -> jbyteArray {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let bytes = direct_bytes(env, &frame, length)?;
        match ops::offers(handle, bytes)? {
            Some(answer) => Ok(env.byte_array_from_slice(&answer)?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        }
    })
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_stats<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let stats = ops::stats(handle)?;
        Ok(env.new_string(stats)?.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_preemptionRound<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    request_json: JString<'l>,
) -> jstring {
    with_guard(&mut env, std::ptr::null_mut(), |env| {
        let json = java_string(env, &request_json, "requestJson")?;
        let answer = ops::preemption_round(handle, &json)?;
        Ok(env.new_string(answer)?.into_raw())
    })
}

/// `null` (and no exception) when the policy is not `capacity`.
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_capacityQueues<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jstring {
    with_guard(
        &mut env,
        std::ptr::null_mut(),
        |env| match ops::capacity_queues(handle)? {
            Some(queues) => Ok(env.new_string(queues)?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        },
    )
}

#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_LocusNative_close<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    with_guard(&mut env, (), |_| {
        ops::close(handle)?;
        log::debug!(target: "locus_jni", "Locus core closed (handle {handle:#x})");
        Ok(())
    })
}

/// Test support, only in builds with the `test-hooks` feature (never in the shipped library):
/// makes the core behind `handle` panic inside its lock, as a core bug would, so the shim's
/// tests (`org.locus.yarn.CoreFaults`, in its test sources) see the handle poisoned and the shim
/// rebuild.
#[cfg(feature = "test-hooks")]
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_CoreFaults_injectPanic<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    message: JString<'l>,
) {
    with_guard(&mut env, (), |env| {
        let message = java_string(env, &message, "message")?;
        ops::inject_panic_for_tests(handle, &message)
    })
}

/// Test support, `test-hooks` builds only: runs the `java.lang.Runnable` `during` while holding
/// the core's lock, as a long scheduling pass does, so the shim's tests can call in meanwhile.
#[cfg(feature = "test-hooks")]
#[no_mangle]
pub extern "system" fn Java_org_locus_yarn_CoreFaults_holdCore<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    during: jni::objects::JObject<'l>,
) {
    with_guard(&mut env, (), |env| {
        if during.is_null() {
            return Err(BridgeError::NullArgument("during"));
        }
        handle::hold_core_for_tests(handle, || {
            // A Java exception from `run` stays pending and is what the caller sees.
            env.call_method(&during, "run", "()V", &[])?;
            Ok(())
        })
    })
}
