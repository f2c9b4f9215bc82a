use std::io;

pub struct Conn {
    id: usize,
}

// the trap: a `send` of another type, never the target of a call on a Conn
pub struct Relay;

impl Relay {
    pub fn send(&self) {}
}

impl Conn {
    pub fn open(id: usize) -> Result<Self, io::Error> {
        Ok(Conn { id })
    }

    pub fn find(id: usize) -> Option<Conn> {
        if id > 0 { Some(Conn { id }) } else { None }
    }

    pub fn boxed(id: usize) -> Box<Conn> {
        Box::new(Conn { id })
    }

    pub fn send(&self) {}
}

pub fn connect_all(ids: &[usize]) -> Result<Vec<Conn>, io::Error> {
    let first = Conn::open(ids[0])?;
    first.send();
    let second = Conn::open(ids[1]).unwrap();
    second.send();
    if let Some(found) = Conn::find(ids[2]) {
        found.send();
    }
    let third = Conn::find(3).expect("a connection");
    third.send();
    Conn::boxed(4).send();
    let mut pool: Vec<Conn> = Vec::new();
    pool.iter().for_each(|c| c.send());
    for c in pool.iter() {
        c.send();
    }
    while let Some(last) = pool.pop() {
        last.send();
    }
    let maybe = Conn::find(5);
    maybe.is_some();
    Ok(pool)
}
