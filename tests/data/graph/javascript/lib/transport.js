class Transport {
  constructor(host) {
    this.host = host;
  }

  send(data) {
    return this.write(data);
  }

  write(data) {
    return data.length;
  }
}

class Mailer {
  send(message) {
    return message;
  }
}

module.exports = { Transport, Mailer };
