pub trait Sink {
    fn slot(&mut self) -> &mut Slot;

    fn put_byte(&mut self, b: u8) {
        let s = self.slot();
        s.fill(b);
    }

    fn put_from<T: super::chain::Buf>(&mut self, mut src: T) {
        src.advance(1);
    }
}

pub struct Slot {
    n: u8,
}

impl Slot {
    pub fn fill(&mut self, b: u8) {
        self.n = b;
    }
}

pub struct Vec8 {
    s: Slot,
}

impl Vec8 {
    pub fn new() -> Vec8 {
        Vec8 { s: Slot { n: 0 } }
    }
}

impl Sink for Vec8 {
    fn slot(&mut self) -> &mut Slot {
        &mut self.s
    }
}

pub fn abort() {}

pub fn fail() {
    crate::put::abort();
}
