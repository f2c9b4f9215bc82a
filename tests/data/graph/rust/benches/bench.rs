// A bench crate of its own (Cargo's benches/): it implements a trait of its own for
// the library's Buffer; the library never calls into it.
use mailer::buf::Buffer;

trait Grow {
    fn reserve(&mut self, n: usize);
}

impl Grow for Buffer {
    fn reserve(&mut self, n: usize) {
        let _ = n;
    }
}

fn bench_grow(b: &mut Buffer) {
    Grow::reserve(b, 8);
}

// the library's trait implemented here: the trait's default methods, in the library,
// run this impl's methods when called on a TestBuf (dispatch, not a call by name)
struct TestBuf {
    left: usize,
}

impl mailer::chain::Buf for TestBuf {
    fn remaining(&self) -> usize {
        self.left
    }

    fn advance(&mut self, cnt: usize) {
        self.left -= cnt;
    }
}

// the library by its crate name, from its root (`pub use put::Vec8` there)
use mailer::Vec8;

fn bench_put() {
    let mut v = Vec8::new();
    v.put_byte(1);
}

// a type's inherent method before a trait's of the same name: Buffer's own `reserve`
// (src/buf.rs), not this crate's `impl Grow for Buffer`
fn bench_reserve(b: &mut Buffer) {
    b.reserve(4);
}

// a trait implemented for an outside type: `self.insert(v)` in its own `insert` is
// BTreeSet's inherent insert (the standard library's), no recursion
trait Set {
    fn insert(&mut self, v: u8) -> bool;
}

impl Set for std::collections::BTreeSet<u8> {
    fn insert(&mut self, v: u8) -> bool {
        self.insert(v)
    }
}
