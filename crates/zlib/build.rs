//! Gives the shared library zlib's SONAME and zlib's symbol versions, so programs linked
//! against the system `libz.so.1` (whose references carry versions such as `ZLIB_1.2.9`) bind
//! to ours without "no version information available" warnings.
//!
//! rustc passes its own anonymous version script for a cdylib, which leaves every
//! `#[no_mangle]` symbol unversioned ("Base", as zlib's oldest functions are). A versioned
//! function is therefore exported under an internal name `hz_<name>` and renamed with an
//! assembler `.symver hz_<name>, <name>@@<node>` directive (generated into `symver.rs`), and
//! the nodes are declared in a second version script (`zlib.map`) passed to the linker.
use std::fmt::Write as _;
use std::path::PathBuf;

/// zlib's version nodes (from its `zlib.map`), each inheriting from the previous one.
const NODES: &[(&str, &[&str])] = &[
    (
        "ZLIB_1.2.0",
        &[
            "compressBound",
            "deflateBound",
            "inflateBack",
            "inflateBackEnd",
            "inflateBackInit_",
            "inflateCopy",
        ],
    ),
    (
        "ZLIB_1.2.0.2",
        &["gzclearerr", "gzungetc", "zlibCompileFlags"],
    ),
    ("ZLIB_1.2.0.8", &["deflatePrime"]),
    (
        "ZLIB_1.2.2",
        &[
            "adler32_combine",
            "crc32_combine",
            "deflateSetHeader",
            "inflateGetHeader",
        ],
    ),
    ("ZLIB_1.2.2.3", &["deflateTune", "gzdirect"]),
    ("ZLIB_1.2.2.4", &["inflatePrime"]),
    (
        "ZLIB_1.2.3.3",
        &[
            "adler32_combine64",
            "crc32_combine64",
            "gzopen64",
            "gzseek64",
            "gztell64",
            "inflateUndermine",
        ],
    ),
    ("ZLIB_1.2.3.4", &["inflateMark", "inflateReset2"]),
    (
        "ZLIB_1.2.3.5",
        &[
            "gzbuffer",
            "gzclose_r",
            "gzclose_w",
            "gzoffset",
            "gzoffset64",
        ],
    ),
    ("ZLIB_1.2.5.1", &["deflatePending"]),
    (
        "ZLIB_1.2.5.2",
        &["deflateResetKeep", "gzgetc_", "inflateResetKeep"],
    ),
    ("ZLIB_1.2.7.1", &["gzvprintf", "inflateGetDictionary"]),
    (
        "ZLIB_1.2.9",
        &[
            "adler32_z",
            "crc32_z",
            "deflateGetDictionary",
            "gzfread",
            "gzfwrite",
            "inflateCodesUsed",
            "inflateValidate",
            "uncompress2",
        ],
    ),
    (
        "ZLIB_1.2.12",
        &[
            "crc32_combine_gen",
            "crc32_combine_gen64",
            "crc32_combine_op",
        ],
    ),
];

/// Names exported as `hz_<name>` in our Rust and C sources (`export_name = "hz_..."`,
/// `int hz_...(`): only those get a version, so the list above can never name a missing symbol.
/// `tests/` checks that the finished library exports every symbol the system libz does.
fn defined_names() -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![PathBuf::from("src")];
    while let Some(p) = stack.pop() {
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for part in text.split("hz_").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let defined = defined_names();
    let mut map = String::new();
    let mut asm = String::from("std::arch::global_asm!(\n");
    let mut prev: Option<&str> = None;
    for (node, names) in NODES {
        writeln!(map, "{node} {{").unwrap();
        writeln!(map, "  global:").unwrap();
        for n in names.iter().filter(|n| defined.iter().any(|d| d == *n)) {
            writeln!(map, "    {n};").unwrap();
            // gzvprintf is C code that does its own .symver.
            if *n != "gzvprintf" {
                writeln!(asm, "    \".symver hz_{n}, {n}@@{node}\",").unwrap();
            }
        }
        match prev {
            Some(p) => writeln!(map, "}} {p};").unwrap(),
            None => writeln!(map, "}};").unwrap(),
        }
        prev = Some(node);
    }
    asm.push_str(");\n");
    std::fs::write(out.join("zlib.map"), map).unwrap();
    std::fs::write(out.join("symver.rs"), asm).unwrap();

    // zlibVersion() reports the version of the zlib whose header this machine has (the library
    // we stand in for), so programs that compare ZLIB_VERSION with zlibVersion() see no
    // mismatch; without a system header, the version whose ABI we implement.
    let version = std::fs::read_to_string("/usr/include/zlib.h")
        .ok()
        .and_then(|h| {
            h.lines()
                .find(|l| l.starts_with("#define ZLIB_VERSION"))
                .and_then(|l| l.split('"').nth(1).map(str::to_string))
        })
        .filter(|v| v.starts_with('1'))
        .unwrap_or_else(|| "1.3.1".to_string());
    println!("cargo:rustc-env=HZ_ZLIB_VERSION={version}");
    println!("cargo:rerun-if-changed=/usr/include/zlib.h");

    // Without the `symver` feature (the rlib linked into the fuzz target) the versioned
    // functions keep their internal names, and the shared object built alongside is not the
    // product: it gets no version script, which would name functions it does not export.
    let symver = std::env::var_os("CARGO_FEATURE_SYMVER").is_some();
    let mut c = cc::Build::new();
    c.file("src/printf.c")
        .warnings(true)
        .link_lib_modifier("+whole-archive");
    if !symver {
        c.define("HZ_NO_SYMVER", None);
    }
    c.compile("hz_printf");
    println!("cargo:rerun-if-changed=src/printf.c");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libz.so.1");
    if symver {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
            out.join("zlib.map").display()
        );
    }
}
