pub trait Buf {
    fn remaining(&self) -> usize;
    fn advance(&mut self, cnt: usize);

    fn get_u8(&mut self) -> u8 {
        self.advance(1);
        0
    }
}

pub struct Cursor {
    pos: usize,
}

impl Buf for Cursor {
    fn remaining(&self) -> usize {
        0
    }

    fn advance(&mut self, cnt: usize) {
        self.pos += cnt;
    }
}

pub struct Chain<T, U> {
    a: T,
    b: U,
}

impl<T, U> Buf for Chain<T, U>
where
    T: Buf,
    U: Buf,
{
    fn remaining(&self) -> usize {
        self.a.remaining() + self.b.remaining()
    }

    fn advance(&mut self, cnt: usize) {
        self.b.advance(cnt);
    }
}
