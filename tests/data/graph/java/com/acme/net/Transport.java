package com.acme.net;

public class Transport {
    protected String host;

    public Transport(String host) {
        this.host = host;
    }

    public int send(String data) {
        return write(data);
    }

    public int write(String data) {
        return data.length();
    }
}
