//! `hyperz bench [PATH] [out.png] [--codec engine|zlib|store]`: the seed's microbenchmark for
//! users, on their own data. Throughput against buffer size (4 KiB to 64 MiB) for 1 and 2
//! engines, compression and decompression, against the system zlib loaded at run time; the
//! peak, half-peak data size and setup time T0 of each series; and a PNG chart. PATH (a file
//! or a directory) defaults to the bundled sample corpus.
//!
//! The measurement code is the device crate's `throughput` example, included here so the two
//! cannot drift apart.

#[path = "../../../device/examples/throughput/micro.rs"]
mod micro;
/// System zlib through `dlopen`: C calls, the one place in the CLI with `unsafe`.
#[allow(unsafe_code)]
#[path = "../../../device/examples/throughput/zlib.rs"]
mod zlib;

/// Runs `hyperz bench` with the arguments after `bench`; returns the exit status.
pub fn main(args: &[String]) -> i32 {
    let path = args
        .iter()
        .find(|a| {
            !a.starts_with("--")
                && !a.ends_with(".png")
                && !matches!(a.as_str(), "engine" | "zlib" | "store")
        })
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample"))
        });
    match micro::load_data(&path) {
        Ok(data) => {
            println!("data: {} (repeated to 64 MiB)", path.display());
            micro::run(args, data);
            0
        }
        Err(e) => {
            eprintln!("hyperz bench: {}: {e}", path.display());
            1
        }
    }
}
