//! zlib's gzip header calls in the drop-in, against the system zlib: `tests/c/gz_header_diff.c`
//! writes members with every mix of header fields through deflateSetHeader and reads them
//! back through inflateGetHeader (windowBits 31 and 47, whole and a byte at a time, caller
//! buffers from 0 to 100 bytes), printing the header bytes written and every field read, and
//! then writes a stream without a header right after one with fields, resets a stream that was
//! given a header structure, and ends one whose inflateInit2 was refused. It is compiled once
//! against the system `zlib.h` and run with the system libz and with ours preloaded; the
//! transcripts must be identical.

use hyperz_tests::dropin::{cc, same_transcript, scratch};
use hyperz_tests::repo_root;

#[test]
fn gzip_header_fields_match_system_zlib() {
    let root = scratch("gzheader");
    let exe = root.join("gz_header_diff");
    cc(&[&repo_root().join("tests/c/gz_header_diff.c")], &exe, &[]);
    let want = same_transcript(&exe, &[]);
    // The program ran to its end, through members whose fields were cut to their buffers.
    assert!(want.contains("zlib stream, windowBits 47: get 0 inflate 1 done -1"));
    // A name of 5 bytes or more in a 5-byte buffer: its first 5 bytes, no zero (the buffer's
    // sixth byte is printed too, untouched).
    assert!(
        want.contains("name[616263646577]"),
        "a name cut to its buffer"
    );
    // The default header (no name, time 0, OS 3) for a stream after one with fields.
    assert!(
        want.contains("then a stream without a header: deflate 1 header[1f8b0800000000000003]"),
        "the default header after a stream with fields"
    );
    // inflateReset forgets the header structure: nothing is written into it, by the reset or
    // by the next member (before, the reset wrote done = 0 and the member its name, through
    // pointers the caller may have freed).
    assert!(
        want.contains(
            "after inflateReset: inflate 1 reset 0 done 7 then inflate 1 done 7 name[77777777]"
        ),
        "header structure untouched after a reset"
    );
    // A rejected windowBits leaves state NULL (before: whatever the caller's struct held,
    // which inflateEnd then followed).
    assert!(
        want.contains("inflateInit2 windowBits 7: -2 state null 1 inflateEnd -2 inflate -2"),
        "state NULL after a failed inflateInit2"
    );
}
