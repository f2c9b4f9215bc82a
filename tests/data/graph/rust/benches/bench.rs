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
