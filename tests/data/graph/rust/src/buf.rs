use std::fmt;

/// A growable byte buffer with a name.
pub struct Buffer {
    data: Vec<u8>,
    name: String,
}

impl Buffer {
    pub fn with_capacity(n: usize) -> Self {
        Buffer { data: Vec::with_capacity(n), name: String::new() }
    }

    pub fn new() -> Buffer {
        Self::with_capacity(0)
    }

    pub fn reserve(&mut self, n: usize) {
        self.data.reserve(n);
    }

    pub fn push(&mut self, b: u8) {
        self.data.push(b);
        debug_assert!(self.is_valid(), "buffer {} broken", self.name);
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn clear(&mut self) {
        self.name.clear();
        self.data.clear();
    }

    fn is_valid(&self) -> bool {
        self.data.len() <= self.data.capacity()
    }

    pub fn copy(&self) -> Self {
        let mut out = Self::new();
        out.reserve(self.len());
        out
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}", self.name, self.len())
    }
}
