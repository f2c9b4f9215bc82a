use crate::net::transport::{Sender, Transport};
use crate::net::transport::RetryingTransport as Retrying;

pub struct Mailer {
    transport: Transport,
}

impl Mailer {
    pub fn new() -> Mailer {
        Mailer { transport: Transport::new("smtp") }
    }

    pub fn send(&self, msg: &str) -> usize {
        self.transport.send(msg)
    }
}

fn deliver(t: &mut Transport, msg: &str) -> usize {
    t.send(msg)
}

pub fn run() {
    let m = Mailer::new();
    m.send("hi");
    let mut t: Transport = Transport::new("smtp");
    t.write("raw");
    let r = Retrying::new("backup");
    r.send("again");
    deliver(&mut t, "x");
    let n = helper(2);
    n.to_string();
}

fn helper(x: u32) -> u32 {
    x + 1
}

fn notify(s: &dyn Sender) -> usize {
    s.send("ping")
}

fn generic<S: Sender>(s: &S) -> usize {
    s.send("a");
    s.send("b")
}

fn bounded<S>(s: S) -> usize where S: Sender {
    s.send("c")
}
