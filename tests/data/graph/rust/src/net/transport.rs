pub trait Sender {
    fn send(&self, data: &str) -> usize;
}

pub struct Transport {
    host: String,
}

impl Transport {
    pub fn new(host: &str) -> Transport {
        Transport { host: host.to_string() }
    }

    pub fn write(&self, data: &str) -> usize {
        data.len() + self.host.len()
    }
}

impl Sender for Transport {
    fn send(&self, data: &str) -> usize {
        self.write(data)
    }
}

pub struct RetryingTransport {
    inner: Transport,
}

impl RetryingTransport {
    pub fn new(host: &str) -> Self {
        RetryingTransport { inner: Transport::new(host) }
    }
}

impl Sender for RetryingTransport {
    fn send(&self, data: &str) -> usize {
        self.inner.send(data);
        Transport::send(&self.inner, data)
    }
}
