const { Transport: Link } = require('./transport');
const transport = require('./transport');

class RetryingTransport extends Link {
  send(data) {
    return super.send(data);
  }
}

function main(data) {
  const t = new RetryingTransport('h');
  t.send(data);
  const m = new transport.Mailer();
  m.send(data);
  t.write(data);
}

module.exports = { main };
