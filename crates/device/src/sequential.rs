//! Sequential decoding of a stream read from a reader, in bounded memory: the engine's
//! resumable decoder on the caller's thread, fed and drained in fixed-size pieces. This is how
//! [`Device::decompress_stream`](crate::Device::decompress_stream) decodes what is not an
//! independent-block member (an ordinary gzip member, a zlib or raw stream).
#![forbid(unsafe_code)]

use std::io::{self, Read, Write};

use hyperz_engine::inflate::{Inflater, StreamState};
use hyperz_engine::Format;

use crate::codec::{DecodeError, DecodeErrorKind};
use crate::engine_codec::map_error;

/// Bytes read from the reader, and written to the writer, at a time.
const PIECE: usize = 256 << 10;

/// What a sequential decode went through.
pub(crate) struct Decoded {
    /// Bytes taken from `pending` and the reader.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
}

/// Decodes the `format` stream made of `pending` (bytes already read) followed by the rest of
/// `r` into `w`. `base` is the stream offset of `pending[0]`; errors carry absolute offsets.
/// gzip members follow one another to the end of the input; after a zlib or raw stream the
/// rest of the input is read and ignored. Output decoded before an error has been written.
pub(crate) fn decode_rest<R: Read, W: Write>(
    format: Format,
    pending: &[u8],
    eof: bool,
    base: u64,
    r: &mut R,
    w: &mut W,
) -> io::Result<Decoded> {
    let bad = |e: DecodeError| io::Error::new(io::ErrorKind::InvalidData, e);
    let mut input = Vec::with_capacity(PIECE.max(pending.len()));
    input.extend_from_slice(pending);
    let (mut ip, mut eof) = (0usize, eof);
    let mut read_at = base + pending.len() as u64; // stream offset of input's end
    let mut out = vec![0u8; PIECE];
    let mut inf = Inflater::new(format, 15);
    let mut member_at = base;
    let mut bytes_out = 0u64;
    loop {
        if ip == input.len() && !eof {
            input.clear();
            ip = 0;
            eof = read_some(r, &mut input)?;
            read_at += input.len() as u64;
        }
        let st = inf
            .inflate(&input[ip..], &mut out)
            .map_err(|e| bad(map_error(e).shifted(member_at)))?;
        ip += st.consumed;
        w.write_all(&out[..st.produced])?;
        bytes_out += st.produced as u64;
        match st.state {
            StreamState::Progress if st.consumed == 0 && st.produced == 0 => {
                // With output room, no progress means the input ran out (a decoder that stood
                // still with input left would be a defect: an error, not a loop).
                let kind = if ip == input.len() && eof {
                    DecodeErrorKind::Truncated
                } else {
                    DecodeErrorKind::BadBlock
                };
                let at = read_at - (input.len() - ip) as u64;
                return Err(bad(DecodeError::at(kind, at)));
            }
            StreamState::Progress => {}
            StreamState::NeedDictionary(_) => {
                let at = member_at + inf.total_in();
                return Err(bad(DecodeError::at(DecodeErrorKind::BadHeader, at)));
            }
            StreamState::StreamEnd => {
                member_at += inf.total_in();
                if format == Format::Gzip {
                    while ip == input.len() && !eof {
                        input.clear();
                        ip = 0;
                        eof = read_some(r, &mut input)?;
                        read_at += input.len() as u64;
                    }
                    if ip == input.len() {
                        return Ok(Decoded {
                            bytes_in: read_at - base,
                            bytes_out,
                        });
                    }
                    inf.reset(); // another member follows
                } else {
                    let rest = io::copy(r, &mut io::sink())?;
                    return Ok(Decoded {
                        bytes_in: read_at + rest - base,
                        bytes_out,
                    });
                }
            }
        }
    }
}

/// Reads one piece into the empty `buf`; true at the end of the input.
fn read_some<R: Read>(r: &mut R, buf: &mut Vec<u8>) -> io::Result<bool> {
    buf.resize(PIECE, 0);
    loop {
        match r.read(buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(n == 0);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.clear();
                return Err(e);
            }
        }
    }
}
