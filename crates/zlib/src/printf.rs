//! `gzprintf`: variadic, so it is written in C (`printf.c`, as `hz_c_gzprintf`); this naked
//! trampoline exports it under zlib's unversioned name. A tail jump leaves every argument
//! register, the stack and `%al` (the vector-register count of the variadic call) untouched.

extern "C" {
    fn hz_c_gzprintf();
}

/// `int gzprintf(gzFile file, const char *format, ...)`
///
/// # Safety
/// Only for C callers, with zlib's arguments: the declared signature is not the real one.
#[no_mangle]
#[unsafe(naked)]
pub unsafe extern "C" fn gzprintf() {
    core::arch::naked_asm!("jmp {}", sym hz_c_gzprintf)
}
