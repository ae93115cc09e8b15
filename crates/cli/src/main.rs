//! `hyperz`: a gzip-compatible command that uses every core and never loses data.
//!
//! The binary is thin: [`args`] turns the command line into [`args::Options`], [`files`] applies
//! gzip's file rules with safe output, [`codec`] runs the streams through the engine and the
//! device runtime, and [`report`] keeps gzip's messages and exit status.
#![deny(missing_docs)]
// No unsafe code except the dlopen'd system zlib that `hyperz bench` compares against.
#![deny(unsafe_code)]

mod args;
mod bench;
mod codec;
mod files;
mod list;
mod lzw;
mod members;
mod progress;
mod report;
mod zip;

fn main() {
    // `hyperz bench ...` (file names may not be UTF-8, so only peek at the first argument).
    if std::env::args_os().nth(1).is_some_and(|a| a == "bench") {
        let rest: Vec<String> = std::env::args_os()
            .skip(2)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        std::process::exit(bench::main(&rest));
    }
    let opts = match args::parse(std::env::args_os()) {
        Ok(args::Parsed::Run(o)) => o,
        Ok(args::Parsed::Version) => {
            println!("hyperz {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        Ok(args::Parsed::License) => {
            println!("hyperz {}", env!("CARGO_PKG_VERSION"));
            println!("Licensed under {}.", env!("CARGO_PKG_LICENSE"));
            println!("There is NO WARRANTY, to the extent permitted by law.");
            return;
        }
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let mut rep = report::Reporter::new(opts.quiet > 0);
    if opts.ascii {
        rep.note("option --ascii ignored on this system");
    }
    files::run(&opts, &mut rep);
    std::process::exit(rep.exit_code());
}
