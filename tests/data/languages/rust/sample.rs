//! Message transport: an HTTP client and a logger.

use std::collections::HashMap;
use std::fmt::{self, Display};
use std::io::Write as IoWrite;
use crate::net::{http::Request, Timeout as Deadline};

/// Something that can send a message.
pub trait Sender {
    /// Sends one message.
    fn send(&self, msg: &str) -> Result<(), String>;

    fn name(&self) -> String {
        String::from("sender")
    }
}

/// A client for the message server.
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    headers: HashMap<String, String>,
}

pub enum Level {
    Info,
    Warn(u8),
}

pub union Bits {
    int: u32,
    float: f32,
}

impl Client {
    /// Builds a client for `base`.
    pub fn new(base: &str) -> Self {
        Client { base: base.to_string(), headers: HashMap::new() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

impl Sender for Client {
    fn send(&self, msg: &str) -> Result<(), String> {
        let req = Request::post(self.url("/send"), msg);
        req.execute(Deadline::default()).map_err(|e| e.to_string())
    }
}

pub struct Logger;

const MAX_LEN: usize = usize::pow(2, 10);

impl Sender for Logger {
    fn send(&self, msg: &str) -> Result<(), String> {
        let mut out = std::io::stdout();
        IoWrite::write_all(&mut out, msg.as_bytes()).map_err(|e| e.to_string())
    }
}

impl Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "level")
    }
}

mod util {
    /// Joins two parts.
    pub fn join(a: &str, b: &str) -> String {
        let mut s = a.to_owned();
        s.push_str(b);
        s
    }

    pub mod deep {
        pub fn depth() -> usize {
            super::join("a", "b").len()
        }
    }
}

pub fn broadcast(senders: &[Box<dyn Sender>], msg: &str) -> usize {
    fn ok(r: &Result<(), String>) -> bool {
        r.is_ok()
    }
    senders.iter().map(|s| s.send(msg)).filter(ok).count()
}

fn main() {
    let client = Client::new("http://localhost");
    client.send("hello").unwrap();
    let logger = Logger;
    logger.send("hello").expect("log");
    let n = broadcast(&[Box::new(client), Box::new(logger)], "bye");
    let line = util::join("sent ", &n.to_string());
    println!("{}", line);
    let _ = Level::Warn(2);
}
