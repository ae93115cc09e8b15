//! Gives the shared library zlib's SONAME, so programs linked against the system `libz.so.1`
//! can load ours in its place.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libz.so.1");
}
