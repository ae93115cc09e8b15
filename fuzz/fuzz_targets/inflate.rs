//! Arbitrary bytes into each container's decoder, whole-buffer and streaming (with small,
//! data-chosen input and output pieces): neither may panic, and both must agree on success and
//! on the decoded bytes.
#![no_main]

use hyperz_engine::inflate::{Decompressor, ErrorKind, Inflater, StreamState};
use hyperz_engine::Format;
use libfuzzer_sys::fuzz_target;

/// Output above this is not compared (bounds the fuzzer's memory).
const LIMIT: usize = 1 << 24;

/// The result (`Err(kind)` on failure, with `Truncated` when the decoder wants input that is
/// not there) and the output delivered, also before an error. With `stops`, the decoder stops
/// at every block boundary and after every block header (zlib's `Z_BLOCK` and `Z_TREES`).
fn streamed(
    format: Format,
    input: &[u8],
    piece: usize,
    stops: bool,
) -> Option<(Result<(), ErrorKind>, Vec<u8>)> {
    let mut inf = Inflater::new(format, 15);
    inf.set_stop_at_block(stops);
    inf.set_stop_after_header(stops);
    let mut out = vec![0u8; piece];
    let mut got = Vec::new();
    let mut pos = 0;
    // Calls in a row without progress: a boundary and then a header read from bits already
    // buffered are two stops that need no input.
    let mut idle = 0;
    loop {
        let end = (pos + piece).min(input.len());
        let st = match inf.inflate(&input[pos..end], &mut out) {
            Ok(st) => st,
            Err(e) => return Some((Err(e.kind), got)),
        };
        pos += st.consumed;
        got.extend_from_slice(&out[..st.produced]);
        if got.len() > LIMIT {
            return None;
        }
        match st.state {
            StreamState::StreamEnd => return Some((Ok(()), got)),
            StreamState::NeedDictionary(_) => return None,
            StreamState::Progress => {
                idle = if st.consumed == 0 && st.produced == 0 {
                    idle + 1
                } else {
                    0
                };
                if idle > 2 * stops as usize && pos >= input.len() {
                    return Some((Err(ErrorKind::Truncated), got));
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let format = match data[0] % 3 {
        0 => Format::Raw,
        1 => Format::Zlib,
        _ => Format::Gzip,
    };
    let piece = 1 + (data[0] as usize >> 2);
    let stops = data[0] & 4 != 0;
    let input = &data[1..];
    let whole = Decompressor::new(format)
        .multi_member(false)
        .allow_trailing(true)
        .with_limit(LIMIT)
        .decompress(input);
    let Some((streamed, got)) = streamed(format, input, piece, stops) else {
        return;
    };
    // The output before an error comes out first, all of it, whatever the piece sizes and
    // stops: one piece of 64 KiB each way, without stops, gives the same bytes and the same end.
    if let Some(other) = self::streamed(format, input, 1 << 16, false) {
        assert!(
            other == (streamed, got.clone()),
            "output or end depends on the pieces"
        );
    }
    match (whole, streamed) {
        (Ok(w), Ok(())) => assert!(w.data == got, "whole and streamed disagree on the data"),
        (Err(e), Ok(_)) => assert_eq!(e.kind, ErrorKind::OutputLimitExceeded),
        (Ok(_), Err(k)) => panic!("streaming failed ({k:?}) where whole-buffer succeeded"),
        (Err(e), Err(k)) => {
            assert!(
                e.offset <= input.len() as u64,
                "error offset past the input"
            );
            if e.kind != ErrorKind::OutputLimitExceeded {
                assert_eq!(
                    e.kind, k,
                    "whole-buffer and streaming disagree on the error"
                );
            }
        }
    }
});
