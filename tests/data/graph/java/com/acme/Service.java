package com.acme;

import com.acme.net.RetryingTransport;
import com.acme.net.Transport;

public class Service {
    private Mailer mailer = new Mailer();
    private Transport conn;

    public Service(Transport conn) {
        this.conn = conn;
    }

    public void run(String data) {
        mailer.send(data);
        this.conn.send(data);
        Transport t = new RetryingTransport("h");
        t.send(data);
        var r = new RetryingTransport("x");
        r.write(data);
        data.trim();
    }
}
