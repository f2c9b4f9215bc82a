use std::collections::HashMap;

use crate::buf::Buffer;

pub struct Pool {
    free: Vec<Buffer>,
    names: HashMap<String, usize>,
}

fn checked(b: &Buffer) -> bool {
    b.len() < 4096
}

impl Pool {
    pub fn take(&mut self, size: usize) -> Buffer {
        let mut b = crate::buf::Buffer::with_capacity(size);
        b.reserve(16);
        assert!(checked(&b), "oversized");
        assert_eq!(b.len(), 0);
        let mut spare = Vec::with_capacity(4);
        spare.reserve(8);
        let mut label = String::new();
        label.push('x');
        self.free.reserve(1);
        self.names.clear();
        let old: Option<Buffer> = self.free.pop();
        old.map(|o| o.len());
        b
    }
}

pub fn drain<'a>(into: &'a mut Buffer, bytes: &[u8], tag: &str) -> usize {
    into.reserve(bytes.len());
    tag.len() + bytes.len()
}
