//! Hand-built dynamic blocks whose length and distance codes are 15 bits long: a match then
//! takes 15 + 5 + 15 + 13 = 48 bits, the most a DEFLATE match can, and the decoder's fast loop
//! must still look up the next symbol correctly after it. The matches sit at every bit offset
//! relative to the loop's refills, followed by literals with short and long codes. The stream
//! is checked against the system zlib, and our whole-buffer decoder (fast loop) against our
//! streaming one fed a byte at a time (slow path).

mod deflate_util;

use deflate_util::{dyn_header, Bits};
use hyperz_engine::inflate::{self, Inflater, StreamState};
use hyperz_engine::Format;

/// Canonical codes (RFC 1951 3.2.2) for `lens`: (code, length) per symbol.
fn canonical(lens: &[u32]) -> Vec<(u32, u32)> {
    let mut count = [0u32; 16];
    for &l in lens {
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; 16];
    let mut code = 0;
    for len in 1..16 {
        code = (code + count[len - 1]) << 1;
        next[len] = code;
    }
    lens.iter()
        .map(|&l| {
            if l == 0 {
                return (0, 0);
            }
            let c = next[l as usize];
            next[l as usize] += 1;
            (c, l)
        })
        .collect()
}

#[test]
fn matches_of_48_bits_then_literals() {
    // Literal/length code: 'a'..'m' take 1..13 bits, end-of-block 14, and length symbol 284
    // and 'n' 15 each (a complete code).
    let mut lit_lens = vec![0u32; 286];
    for (k, c) in (b'a'..=b'm').enumerate() {
        lit_lens[c as usize] = k as u32 + 1;
    }
    lit_lens[256] = 14;
    lit_lens[284] = 15;
    lit_lens[b'n' as usize] = 15;
    // Distance code: symbols 0..13 take 1..14 bits, 14 and 29 take 15.
    let mut dist_lens = vec![0u32; 30];
    for (k, l) in dist_lens.iter_mut().enumerate().take(14) {
        *l = k as u32 + 1;
    }
    dist_lens[14] = 15;
    dist_lens[29] = 15;
    let lit = canonical(&lit_lens);
    let dist = canonical(&dist_lens);

    // Code-length code: symbols 0..15 take 4 bits each (complete), 16-18 are unused.
    let mut cl_lens = [4u32; 19];
    cl_lens[16..].fill(0);
    let mut b = dyn_header(286, 30, &cl_lens);
    let cl = canonical(&cl_lens);
    for &l in lit_lens.iter().chain(&dist_lens) {
        let (code, len) = cl[l as usize];
        b.code(code, len);
    }

    // 25000 'a's of history, then for each of 64 alignments: `k` more 'a's, a match of length
    // 257 (symbol 284, extra 30) at distance 24577 + 100 (symbol 29, extra 100), then 'n'
    // (15 bits), 'm' (13) and 'a' (1).
    let mut want = Vec::new();
    let lit_sym = |b: &mut Bits, want: &mut Vec<u8>, c: u8| {
        let (code, len) = lit[c as usize];
        b.code(code, len);
        want.push(c);
    };
    for _ in 0..25_000 {
        lit_sym(&mut b, &mut want, b'a');
    }
    for k in 0..64 {
        for _ in 0..k {
            lit_sym(&mut b, &mut want, b'a');
        }
        b.code(lit[284].0, lit[284].1).put(30, 5);
        b.code(dist[29].0, dist[29].1).put(100, 13);
        let from = want.len() - 24_677;
        for i in 0..257 {
            want.push(want[from + i]);
        }
        for c in [b'n', b'm', b'a'] {
            lit_sym(&mut b, &mut want, c);
        }
        // A different byte in the history for the next matches to copy.
        lit_sym(&mut b, &mut want, b'a' + (k % 13) as u8);
    }
    b.code(lit[256].0, lit[256].1);
    let stream = b.finish();

    // The stream is valid DEFLATE and `want` is what it holds.
    let mut check = deflate_util::Checker::new("long_codes");
    check.add(&stream, Format::Raw, &want);
    check.check();

    // The fast loop (whole buffer) and the slow path (one byte in, one byte out) agree.
    assert_eq!(inflate::decompress(Format::Raw, &stream).unwrap(), want);
    let mut inf = Inflater::new(Format::Raw, 15);
    let mut got = Vec::new();
    let mut pos = 0;
    let mut one = [0u8; 1];
    loop {
        let end = (pos + 1).min(stream.len());
        let st = inf.inflate(&stream[pos..end], &mut one).unwrap();
        pos += st.consumed;
        got.extend_from_slice(&one[..st.produced]);
        if st.state == StreamState::StreamEnd {
            break;
        }
        assert!(
            st.consumed + st.produced > 0,
            "no progress at input byte {pos}"
        );
    }
    assert_eq!(got, want);
}
