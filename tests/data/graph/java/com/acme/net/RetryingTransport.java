package com.acme.net;

public class RetryingTransport extends Transport {
    public RetryingTransport(String host) {
        super(host);
    }

    @Override
    public int send(String data) {
        return super.send(data);
    }
}
