package com.acme;

public class Mailer {
    public String send(String message) {
        return message;
    }
}
