//! The fast loop decodes a length right after one or two literals in the same step, so the
//! output room it checks once per step must hold those literals and a maximal match with the
//! copy's overshoot. Hand-built fixed-Huffman streams put literals and 258-byte matches at
//! every output room around that bound, decoded into buffers of exactly the output's size
//! (whole-buffer) and through the streaming decoder with output pieces of many sizes.

mod deflate_util;

use deflate_util::Bits;
use hyperz_engine::inflate::{Decompressor, Inflater, StreamState};
use hyperz_engine::Format;

/// A fixed-Huffman literal (RFC 1951 3.2.6: 0-143 take 8 bits from 0x30).
fn lit(b: &mut Bits, want: &mut Vec<u8>, c: u8) {
    assert!(c < 144);
    b.code(0x30 + c as u32, 8);
    want.push(c);
}

/// A match of 258 bytes (symbol 285, eight bits from 0xc0 + 5) at distance `dist` (< 5: symbols
/// 0-3, five bits, no extra bits).
fn max_match(b: &mut Bits, want: &mut Vec<u8>, dist: usize) {
    b.code(0xc0 + 5, 8);
    b.code(dist as u32 - 1, 5);
    let from = want.len() - dist;
    for i in 0..258 {
        want.push(want[from + i]);
    }
}

/// One final fixed block: `units` times `lits` literals then a 258-byte match, then `tail`
/// literals; the stream and its output.
fn stream(units: usize, lits: usize, tail: usize) -> (Vec<u8>, Vec<u8>) {
    let mut b = Bits::new();
    b.put(1, 1).put(1, 2);
    let mut want = Vec::new();
    for u in 0..units {
        for k in 0..lits {
            lit(&mut b, &mut want, b'a' + ((u + k) % 26) as u8);
        }
        max_match(&mut b, &mut want, 1 + u % 4);
    }
    for k in 0..tail {
        lit(&mut b, &mut want, b'0' + (k % 10) as u8);
    }
    b.code(0, 7); // end of block (symbol 256)
    (b.finish(), want)
}

#[test]
fn maximal_matches_after_literals_at_every_room() {
    let mut d = Decompressor::new(Format::Raw);
    for lits in [1, 2, 3] {
        // Every room from a few hundred bytes down at the start of each unit: the tail
        // literals shift where the units end relative to the buffer's end.
        // (The bound is 2 + 258 + 48 bytes of the copy's overshoot: `copy::SLACK`.)
        for tail in 0..=(lits + 258 + 64) {
            let (s, want) = stream(4, lits, tail);
            let mut out = vec![0u8; want.len()];
            let (_, n) = d
                .decompress_member_into(&s, &mut out)
                .unwrap_or_else(|e| panic!("lits {lits} tail {tail}: {e}"));
            assert_eq!(
                (n, &out[..]),
                (want.len(), &want[..]),
                "lits {lits} tail {tail}"
            );
            // Streaming, with output pieces of sizes around the bound.
            for piece in [259, 260, 261, 290, 291, 292, 293, 300, 307, 308, 309, 320] {
                let mut inf = Inflater::new(Format::Raw, 15);
                let mut buf = vec![0u8; piece];
                let (mut got, mut pos) = (Vec::new(), 0);
                loop {
                    let st = inf.inflate(&s[pos..], &mut buf).unwrap();
                    pos += st.consumed;
                    got.extend_from_slice(&buf[..st.produced]);
                    if st.state == StreamState::StreamEnd {
                        break;
                    }
                    assert!(st.consumed + st.produced > 0, "stuck");
                }
                assert_eq!(got, want, "lits {lits} tail {tail} piece {piece}");
            }
        }
    }
}
