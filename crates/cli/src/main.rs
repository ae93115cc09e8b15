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
mod cleanup;
mod codec;
mod files;
mod list;
mod lzh;
mod lzw;
mod members;
mod pack;
mod pipe;
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
    // gzip 1.12 still reads a few options from GZIP, with a warning.
    let env = std::env::var_os("GZIP").unwrap_or_default();
    let env_opts = match args::env_options(&env) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("hyperz: {e}\nTry `hyperz --help' for more information.");
            std::process::exit(1);
        }
    };
    let opts = match args::parse_with_env(std::env::args_os(), &env_opts) {
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
        Ok(args::Parsed::Refused(why)) => {
            eprintln!("hyperz: {why}");
            std::process::exit(1);
        }
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    // gzip warns once it has read them, so only their own -q silences it.
    let env_quiet = env_opts.iter().any(|o| {
        let o = o.to_string_lossy();
        o == "--quiet" || o == "--silent" || (!o.starts_with("--") && o.contains('q'))
    });
    if !env_opts.is_empty() && !env_quiet {
        eprintln!(
            "hyperz: warning: GZIP environment variable is deprecated; use an alias or script"
        );
    }
    let mut rep = report::Reporter::new(opts.quiet > 0);
    if opts.ascii {
        rep.note("option --ascii ignored on this system");
    }
    files::run(&opts, &mut rep);
    std::process::exit(rep.exit_code());
}
