//! Throughput against buffer size for the device (seed 000, Figs 13-14 and Table II); see
//! `micro.rs`, which `hyperz bench` shares.
//!
//! `cargo run -p hyperz-device --release --example throughput -- [out.png] [--codec engine|zlib|store]`
mod micro;
mod zlib;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample");
    let data = micro::load_data(std::path::Path::new(sample)).expect("data/sample");
    micro::run(&args, data);
}
