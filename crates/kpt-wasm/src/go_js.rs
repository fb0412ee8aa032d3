//! The part of Go's `js/wasm` ABI that kpt's glue needs: the exports `run`, `resume`,
//! `getsp` (and the memory as `mem`, see build.rs), and calls into the glue's `go`
//! imports.
//!
//! Every import takes one pointer, which Go calls its stack pointer: the arguments are
//! read from 8-byte slots at fixed offsets after it, and results written back into
//! later slots. Here that "stack" is a [`Frame`] on our own stack. A JavaScript value is
//! a `u64` reference: a non-zero `f64` is that number, `0` is `undefined`, and a NaN
//! whose low 32 bits index the glue's table of values is anything else. A reentrant
//! import asks `getsp` where the frame is now; ours never moves, so `getsp` answers the
//! frame being used.

use std::sync::atomic::{AtomicU32, Ordering};

/// The frame of one import call: slot 0 is Go's return address, unused; arguments and
/// results follow at the offsets the glue reads (`sp + 8`, `sp + 16`, ...).
#[repr(C, align(8))]
struct Frame([u64; 9]);

// The glue's imports (wasm_exec.js), each `(sp) => { ... }`.
#[link(wasm_import_module = "go")]
unsafe extern "C" {
    #[link_name = "runtime.resetMemoryDataView"]
    fn reset_memory_data_view(sp: *mut Frame);
    #[link_name = "syscall/js.stringVal"]
    fn string_val(sp: *mut Frame);
    #[link_name = "syscall/js.valueGet"]
    fn value_get(sp: *mut Frame);
    #[link_name = "syscall/js.valueSet"]
    fn value_set(sp: *mut Frame);
    #[link_name = "syscall/js.valueIndex"]
    fn value_index(sp: *mut Frame);
    #[link_name = "syscall/js.valueCall"]
    fn value_call(sp: *mut Frame);
    #[link_name = "syscall/js.valuePrepareString"]
    fn value_prepare_string(sp: *mut Frame);
    #[link_name = "syscall/js.valueLoadString"]
    fn value_load_string(sp: *mut Frame);
    #[link_name = "syscall/js.finalizeRef"]
    fn finalize_ref(sp: *mut Frame);
}

/// A reference to a JavaScript value, as the glue stores it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Ref(u64);

const NAN_HEAD: u64 = 0x7FF8_0000;
const OBJECT: u64 = 1;
/// Values with fixed ids in the glue's table (Go's `run` sets them up the same way).
const ZERO: Ref = Ref((NAN_HEAD << 32) | 1);
const NULL: Ref = Ref((NAN_HEAD << 32) | 2);
const GLOBAL: Ref = Ref(((NAN_HEAD | OBJECT) << 32) | 5);
const GO: Ref = Ref(((NAN_HEAD | OBJECT) << 32) | 6);

/// The ids the two JavaScript functions are registered under.
const PROCESS: u32 = 1;
const PROCESS_ERRORS: u32 = 2;

impl Ref {
    fn number(n: f64) -> Ref {
        if n == 0.0 { ZERO } else { Ref(n.to_bits()) }
    }

    fn as_number(self) -> Option<f64> {
        if self == ZERO {
            return Some(0.0);
        }
        let n = f64::from_bits(self.0);
        (!n.is_nan()).then_some(n)
    }
}

/// Where the frame of the call in progress is: what `getsp` answers.
static SP: AtomicU32 = AtomicU32::new(0);

/// Calls `import` with a frame holding `args` from slot 1 on, and returns the frame as
/// the import left it.
fn call(import: unsafe extern "C" fn(*mut Frame), args: &[u64]) -> [u64; 9] {
    let mut frame = Frame([0; 9]);
    frame.0[1..=args.len()].copy_from_slice(args);
    let sp: *mut Frame = &mut frame;
    SP.store(sp as u32, Ordering::Relaxed);
    // SAFETY: the glue reads this frame's slots and writes its result slots, all inside
    // the 72 bytes of `frame`, which lives until the call returns. Memory may have grown
    // since the glue last looked (a growth detaches its DataView), so it is told to look
    // again first, as Go's runtime does after growing memory.
    unsafe {
        reset_memory_data_view(sp);
        import(sp);
    }
    frame.0
}

/// A string argument: two slots, address and length.
fn string(s: &str) -> [u64; 2] {
    [s.as_ptr() as u64, s.len() as u64]
}

fn get(v: Ref, property: &str) -> Ref {
    let [p, len] = string(property);
    Ref(call(value_get, &[v.0, p, len])[4])
}

fn set(v: Ref, property: &str, x: Ref) {
    let [p, len] = string(property);
    call(value_set, &[v.0, p, len, x.0]);
}

fn index(v: Ref, i: u64) -> Ref {
    Ref(call(value_index, &[v.0, i])[3])
}

fn release(v: Ref) {
    call(finalize_ref, &[v.0]);
}

fn js_string(s: &str) -> Ref {
    let [p, len] = string(s);
    Ref(call(string_val, &[p, len])[3])
}

/// `v.method(number)`, for `go._makeFuncWrapper(id)`.
fn call_method(v: Ref, method: &str, arg: Ref) -> Ref {
    let [m, len] = string(method);
    let args = [arg.0];
    let slots = call(value_call, &[v.0, m, len, args.as_ptr() as u64, 1, 1]);
    assert_eq!(slots[8] & 0xff, 1, "{method} threw");
    Ref(slots[7])
}

/// A JavaScript string's UTF-8 bytes, copied in.
fn rust_string(v: Ref) -> String {
    let slots = call(value_prepare_string, &[v.0]);
    let (bytes, len) = (Ref(slots[2]), slots[3] as usize);
    let mut buffer = vec![0u8; len];
    call(
        value_load_string,
        &[bytes.0, buffer.as_mut_ptr() as u64, len as u64, len as u64],
    );
    release(bytes);
    // The glue encodes with TextEncoder: always UTF-8.
    String::from_utf8(buffer).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Go's entry point: registers `processResourceList` and `processResourceListErrors`
/// as globals, then returns to the glue, which calls them.
#[unsafe(no_mangle)]
pub extern "C" fn run(_argc: i32, _argv: i32) {
    for (id, name) in [
        (PROCESS, "processResourceList"),
        (PROCESS_ERRORS, "processResourceListErrors"),
    ] {
        let function = call_method(GO, "_makeFuncWrapper", Ref::number(f64::from(id)));
        set(GLOBAL, name, function);
    }
}

/// Called by a registered function: answers the event the glue left in
/// `go._pendingEvent` (`{id, this, args, result}`) by setting its `result`.
#[unsafe(no_mangle)]
pub extern "C" fn resume() {
    let event = get(GO, "_pendingEvent");
    set(GO, "_pendingEvent", NULL);
    let id = get(event, "id").as_number().unwrap_or(-1.0);
    let args = get(event, "args");
    let input_ref = index(args, 0);
    let input = rust_string(input_ref);
    release(input_ref);
    release(args);
    let (output, failed) = crate::process_resource_list(&input);
    let answer = if id == f64::from(PROCESS_ERRORS) {
        output
    } else {
        // An error makes node exit 1 (kpt then fails the step and shows the results,
        // as it does for `--exec`); the ResourceList is still printed.
        if failed {
            let process = get(GLOBAL, "process");
            set(process, "exitCode", Ref::number(1.0));
            release(process);
        }
        output
    };
    let result = js_string(&answer);
    set(event, "result", result);
    release(result);
    release(event);
}

/// Where the frame of the import in progress is (see the module comment).
#[unsafe(no_mangle)]
pub extern "C" fn getsp() -> i32 {
    SP.load(Ordering::Relaxed) as i32
}
